// fold_test.cpp - the folding rules: culprit naming, downstream folding, mode and oracle folding.
#include "triage/fold.h"

#include <gtest/gtest.h>

namespace nnfuzz {
namespace {

Signature dcf(const std::string& mode, const std::string& against, std::vector<std::string> ops) {
  Signature s;
  s.backend = "openvino";
  s.mode = mode;
  s.against = against;
  s.phase = "run";
  s.verdict = "dcf";
  s.symptom = "values";
  s.opTypes = std::move(ops);
  s.outputs = {0};
  return s;
}

Signature prepareError(const std::string& backend, const std::string& mode, const std::string& errorType,
                       std::string message) {
  Signature s;
  s.backend = backend;
  s.mode = mode;
  s.against = "reference";
  s.phase = "prepare";
  s.verdict = "mcf";
  s.symptom = "error";
  s.errorType = errorType;
  s.message = std::move(message);
  return s;
}

TEST(Fold, OneCulpritWhateverItsProducersAndModes) {
  const Culprit prelu{"PRelu", {}, {}, true};
  // OpenVINO's PRelu bug reduced with five different slope producers, against the reference and
  // against noopt: one bug, seen in two comparisons.
  std::vector<Signature> found;
  for (const char* producer : {"Softsign", "Round", "Mod"}) {
    found.push_back(foldModes(culpritSignature(dcf("noopt", "reference", {"PRelu", producer}), prelu)));
    found.push_back(foldModes(culpritSignature(dcf("opt", "noopt", {"PRelu", producer}), prelu)));
  }
  const auto bugs = mergeFolded(found);
  ASSERT_EQ(bugs.size(), 1u);
  EXPECT_EQ(bugs[0].mode, kAnyMode);
  EXPECT_EQ(bugs[0].opTypes, std::vector<std::string>{"PRelu"});
  EXPECT_EQ(bugs[0].modes, (std::vector<std::string>{"noopt", "opt vs noopt"}));
  // Modes are a property: they do not change the bug's name.
  EXPECT_EQ(bugs[0].hash(), found[0].hash());
}

TEST(Fold, CulpritsApartByOperatorAndDtypesNotByAttributes) {
  const auto named = [](const Culprit& c) { return foldModes(culpritSignature(dcf("all", "reference", {c.op}), c)); };
  const Signature lrn = named({"LRN", {}, {"bias"}, true});
  const Signature lrnToo = named({"LRN", {}, {"bias", "size"}, true});  // size mattered on a smaller case
  const Signature divInt8 = named({"Div", {"i8", "i8"}, {}, true});
  const Signature divInt32 = named({"Div", {"i32", "i32"}, {}, true});
  EXPECT_EQ(mergeFolded({lrn, lrnToo, divInt8, divInt32, lrn}).size(), 3u);
  EXPECT_EQ(lrn.opTypes, std::vector<std::string>{"LRN"});
}

TEST(Fold, AnErrorOverAWrongValueIsThatValuesBug) {
  const Signature mcf = prepareError("tvm", "opt", "ValueError", "shapes are not broadcastable");
  const Culprit convT{"ConvTranspose", {}, {"output_shape"}, true};
  const Signature folded = foldModes(foldDownstream(mcf, convT));
  Signature wrongShape = dcf("all", "reference", {"ConvTranspose"});
  wrongShape.backend = "tvm";
  wrongShape.symptom = "shape";
  const Signature direct = foldModes(culpritSignature(wrongShape, convT));
  EXPECT_EQ(folded.verdict, "dcf");
  EXPECT_EQ(folded.message, "");
  EXPECT_EQ(folded.hash(), direct.hash());
  EXPECT_EQ(foldDownstream(mcf, std::nullopt), mcf);  // no wrong value: the error stands
}

// openvino-any-mcf-ff60b727 and -88fcbfac of the three-SUT campaign: LayerNormalization's
// failure makes its consumer fail too, and the list names both.
TEST(Fold, AConversionFailureThatNamesFewerOfTheSameNodesIsStillTheBug) {
  const std::string before = "Check 'false' failed at <path>:<n>: | -- Conversion is failed for: ";
  const Signature listed = prepareError("openvino", "any", "RuntimeError", before + "ArgMax-<n>, LayerNormalization-<n>");
  Signature alone = listed;
  alone.message = before + "LayerNormalization-<n>";
  EXPECT_TRUE(stillTheBug(alone, listed));
  EXPECT_TRUE(stillTheBug(listed, listed));
  EXPECT_FALSE(stillTheBug(listed, alone));  // a wider list is not the narrower bug
  Signature other = listed;
  other.message = before + "STFT-<n>";
  EXPECT_FALSE(stillTheBug(other, listed));  // another node: another bug
  Signature otherType = alone;
  otherType.errorType = "ValueError";
  EXPECT_FALSE(stillTheBug(otherType, listed));
  Signature plain = listed;
  plain.message = "Check 'false' failed";
  EXPECT_FALSE(stillTheBug(plain, listed));
}

TEST(Fold, AnErrorFoldsOnlyIntoAValueEveryModeGetsWrong) {
  const Culprit loss{"SoftmaxCrossEntropyLoss", {"*", "i64"}, {}, true};
  // OpenCV c11a dcf-0d9b0826: opt (ENGINE_AUTO) ran the loss alone on the new engine, which gets
  // its 0-d result wrong; classic and noopt cannot even load it. No fold.
  EXPECT_FALSE(agreedCulprit({loss, std::nullopt, std::nullopt}));
  EXPECT_FALSE(agreedCulprit({loss, Culprit{"Concat", {}, {}, true}}));
  EXPECT_FALSE(agreedCulprit({}));
  const auto both = agreedCulprit({loss, Culprit{"SoftmaxCrossEntropyLoss", {"*", "i64"}, {"reduction=none"}, true}});
  ASSERT_TRUE(both);
  EXPECT_EQ(both->identity(), "SoftmaxCrossEntropyLoss(*,i64)");
}

TEST(Fold, ModesAreAPropertyOfEveryClass) {
  // OpenCV c11a: one importer fault under {classic, noopt} in one test and {opt, classic, noopt}
  // in another (ENGINE_AUTO falls back to the classic engine): one signature per class.
  const std::string message =
      "OpenCV(<n>.<n>) <path>:<n>: error: (<n>:Unspecified error) in function 'handleNode' | > Node "
      "[Relu@ai.onnx]:(onnx_node!<name>) parse error: OpenCV(<n>.<n>) <path>:<n>: error: (<n>:Assertion failed) "
      "inputs.size() in function 'getMemoryShapes' | >";
  for (const char* verdict : {"mcf", "if", "dcf"}) {
    std::vector<Signature> found;
    for (const auto& modes : std::vector<std::vector<const char*>>{{"classic", "noopt"}, {"opt", "classic", "noopt"},
                                                                   {"opt"}}) {
      std::vector<Signature> oneTest;
      for (const char* mode : modes) {
        Signature s = dcf(mode, "reference", {"Relu"});
        s.backend = "opencv";
        s.verdict = verdict;
        if (std::string(verdict) != "dcf") {
          s.phase = std::string(verdict) == "mcf" ? "prepare" : "run";
          s.symptom = "error";
          s.errorType = "error";
          s.message = message;
          s.opTypes.clear();
          s.outputs.clear();
        }
        oneTest.push_back(foldModes(s));
      }
      const auto bugs = mergeFolded(oneTest);
      ASSERT_EQ(bugs.size(), 1u) << verdict;
      found.push_back(bugs[0]);
    }
    EXPECT_EQ(found[0].hash(), found[1].hash()) << verdict;
    EXPECT_EQ(found[0].hash(), found[2].hash()) << verdict;
    EXPECT_EQ(found[1].modes, (std::vector<std::string>{"opt", "classic", "noopt"})) << verdict;
  }
}

}  // namespace
}  // namespace nnfuzz
