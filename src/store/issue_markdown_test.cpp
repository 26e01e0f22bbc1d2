// issue_markdown_test.cpp - a bundle's upstream-issue README: golden texts for a fixed wrong
// result and a fixed conversion failure, the onnx.helper script's forms, and the ONNX spec
// notes covering every operator we generate.
// Regenerate the golden files with NNFUZZ_UPDATE_GOLDEN=1 after an intended change.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "interp/interpreter.h"
#include "onnx/export.h"
#include "onnx/tensor_proto.h"
#include "ops/registry.h"
#include "store/bundle.h"
#include "store/issue_markdown.h"
#include "store/onnx_snippet.h"
#include "store/op_notes.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

namespace fs = std::filesystem;

// A convolution whose input (108 elements) is too large to write out and whose weights are not.
const char* const kConvModel = R"(graph {
  %0 = input f32[1,3,6,6]
  %1 = weight f32[2,3,1,1] [0.5, -1.0, 0.25, 2.0, 0.125, -0.5]
  %2 = weight f32[2] [0.1, -0.2]
  %3 = Conv(%0, %1, %2) {pads=[1,1,1,1], strides=[2,2]} : f32[1,2,4,4]
  %4 = Relu(%3) : f32[1,2,4,4]
  return %4
}
)";

void expectGolden(const std::string& text, const std::string& name) {
  const fs::path golden = fs::path(NNFUZZ_SOURCE_DIR) / "src" / "store" / "testdata" / name;
  if (std::getenv("NNFUZZ_UPDATE_GOLDEN")) writeFileBytes(golden, text);
  ASSERT_TRUE(fs::exists(golden)) << golden << " is missing: run with NNFUZZ_UPDATE_GOLDEN=1";
  EXPECT_EQ(text, readFileBytes(golden)) << "README differs from " << golden;
}

class IssueMarkdown : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("nnfuzz_issue_" + std::to_string(::getpid()));
    fs::remove_all(root);
    graph = parseGraph(kConvModel);
    Tensor x({DType::Float32, {1, 3, 6, 6}});
    for (size_t i = 0; i < x.data.size(); ++i) x.data[i] = roundTo(DType::Float32, static_cast<double>(i % 7) * 0.25 - 0.5);
    inputs = {x};
    reference = runGraph(graph, inputs);
  }
  void TearDown() override { fs::remove_all(root); }

  BundleFinding finding(const RunOutcome& o, const std::vector<std::string>& ops) const {
    BundleFinding f;
    f.judgement = Oracle().judge(o, reference);
    f.signature = makeSignature(f.judgement, o, ops);
    f.signature.modes = {o.mode};
    f.outcome = o;
    f.versions = {{"nnfuzz", "0.1.0"}, {o.backend, o.version}};
    return f;
  }
  fs::path write(const BundleFinding& f, const nlohmann::json& passes = nlohmann::json::array()) const {
    nlohmann::json meta = {{"seed", 7}, {"reduced", {{"culprit", "Conv"}, {"from_nodes", 12}, {"culprit_passes", passes}}}};
    auto c = bundleCase(graph, inputs, reference, meta);
    c.original = c.model;  // stands in for the model before reduction
    return writeBundle(root, c, f);
  }

  fs::path root;
  Graph graph;
  std::vector<Tensor> inputs, reference;
};

TEST_F(IssueMarkdown, WrongResultReadsLikeAnUpstreamIssue) {
  RunOutcome o;
  o.backend = "onnxruntime";
  o.mode = "opt";
  o.version = "1.31.1";
  o.status = RunStatus::Ok;
  o.outputs = reference;
  o.outputs[0].data[5] = roundTo(DType::Float32, o.outputs[0].data[5] + 1.5);  // two wrong elements
  o.outputs[0].data[17] = roundTo(DType::Float32, o.outputs[0].data[17] - 0.75);
  const fs::path dir = write(finding(o, {"Conv"}));
  const std::string readme = readFileBytes(dir / "README.md");
  EXPECT_EQ(readme, issueMarkdown(dir)) << "writeBundle and nnfuzz report --bug must print the same text";
  expectGolden(readme, "issue_dcf.md");
}

TEST_F(IssueMarkdown, ConversionFailureQuotesTheMessage) {
  RunOutcome o;
  o.backend = "openvino";
  o.mode = "noopt";
  o.version = "2026.4.1";
  o.status = RunStatus::PrepareError;
  o.phase = "prepare";
  o.errorType = "RuntimeError";
  o.message = "Exception from src/core/src/node.cpp:123:\nConv: pads [1,1,1,1] do not fit stride 2\n";
  const fs::path dir = write(finding(o, {"Conv", "Relu"}), {"ConvAddFusion", "PadFusion"});
  const std::string readme = readFileBytes(dir / "README.md");
  EXPECT_NE(readme.find("| optimizer pass | `ConvAddFusion`, `PadFusion`: switched off alone"), std::string::npos);
  expectGolden(readme, "issue_mcf.md");
}

TEST_F(IssueMarkdown, ABundleWithoutMetaIsAnError) {
  fs::create_directories(root / "empty");
  EXPECT_THROW(issueMarkdown(root / "empty"), Error);
}

TEST(OnnxSnippet, WritesSmallTensorsExactlyAndDrawsLargeOnes) {
  const Graph g = parseGraph(kConvModel);
  const auto model = exportModel(g);
  Tensor x({DType::Float32, {1, 3, 6, 6}});
  const std::string script = onnxHelperSnippet(model, {x});
  EXPECT_NE(script.find("np.array([0.5, -1.0, 0.25, 2.0, 0.125, -0.5], dtype=np.float32).reshape((2, 3, 1, 1))"),
            std::string::npos) << script;
  EXPECT_NE(script.find("pads=[1, 1, 1, 1], strides=[2, 2]"), std::string::npos) << script;
  EXPECT_NE(script.find("rng = np.random.default_rng(0)"), std::string::npos);
  EXPECT_NE(script.find("exact ones: test_data_set_0/input_0.pb"), std::string::npos) << script;
  EXPECT_NE(script.find("onnx.checker.check_model(model, full_check=True)"), std::string::npos);
  // Everything fits when the limit allows: no random draws at all.
  EXPECT_EQ(onnxHelperSnippet(model, {x}, {.inlineLimit = 1000}).find("rng"), std::string::npos);
}

TEST(OpNotes, EveryGeneratedOperatorHasOne) {
  for (const OpSpec* op : allOps()) {
    const std::string name(op->name);
    const auto note = onnxOpNote(name);
    ASSERT_TRUE(note.has_value()) << name;
    EXPECT_GT(note->size(), 10u) << name;
  }
  EXPECT_FALSE(onnxOpNote("NoSuchOp").has_value());
  EXPECT_EQ(onnxOpDocUrl("Conv"), "https://onnx.ai/onnx/operators/onnx__Conv.html");
}

}  // namespace
}  // namespace nnfuzz
