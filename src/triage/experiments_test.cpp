// experiments_test.cpp - the omitted-input experiment on old-c1's reduced models (OpenVINO
// 2025.2.0 fails each with "" written for the omitted input, and passes each without it).
#include "triage/experiments.h"

#include <gtest/gtest.h>

#include "interp/interpreter.h"
#include "triage/fold.h"

namespace nnfuzz {
namespace {

SubCase inputlessCase(const char* text) {
  SubCase c;
  c.graph = parseGraph(text);
  c.expected = runGraph(c.graph, {});
  return c;
}

TEST(Experiments, TrailingOmittedInputsAreLeftOffAndTheModelStaysTheSame) {
  // openvino-any-mcf-1e8d8c40 (ConvTranspose without bias) and -41abe048 (ReduceSum without axes).
  for (const char* text : {R"(graph {
  %0 = weight f32[1,1,1,1,1] [0.0]
  %1 = weight f32[1,1,1,1,1] [0.0]
  %2 = ConvTranspose(%0, %1, _) : f32[1,1,1,1,1]
  return %2
}
)",
                           R"(graph {
  %0 = weight i32[] [0]
  %1 = ReduceSum(%0, _) : i32[]
  return %1
}
)"}) {
    const SubCase reduced = inputlessCase(text);
    const auto plain = withoutTrailingOmittedInputs(reduced);
    ASSERT_TRUE(plain) << text;
    const Node& node = plain->graph.node(plain->graph.nodes().front());
    EXPECT_EQ(node.inputs.size(), reduced.graph.node(reduced.graph.nodes().front()).inputs.size() - 1);
    EXPECT_NE(node.inputs.back(), kNoValue);
    EXPECT_EQ(runGraph(plain->graph, plain->inputs), reduced.expected);  // the same model
  }
}

TEST(Experiments, NoVariantWithoutATrailingOmittedInput) {
  // openvino-any-mcf-a5e673a3: STFT's omitted window sits between two inputs, so it stays.
  EXPECT_FALSE(withoutTrailingOmittedInputs(inputlessCase(R"(graph {
  %0 = weight i32[] [1]
  %1 = weight i32[] [1]
  %2 = weight f32[1,1,2] [1.0, 1.0]
  %3 = STFT(%2, %0, _, %1) {onesided=0} : f32[1,1,1,2]
  return %3
}
)")));
}

TEST(Experiments, AnErrorNamedByTheExperimentDropsItsWords) {
  Signature a, b;
  for (Signature* s : {&a, &b}) {
    s->backend = "openvino";
    s->mode = "any";
    s->against = "reference";
    s->phase = "prepare";
    s->verdict = "mcf";
    s->symptom = "error";
    s->errorType = "RuntimeError";
  }
  a.message = "Exception from <path>:<n>: | Exception from <path>:<n>: | Exception from <path>:<n>: | Unexpected: CPU "
              "plug-in doesn't support NullNode operation with dynamic rank. Operation name: <name>";
  b.message = "Exception from <path>:<n>: | Check 'false' failed at <path>:<n>: | FrontEnd API failed with "
              "GeneralFailure: | The axes tensor's shape needs to be known(static). Node: <name>";
  ASSERT_NE(a, b);
  EXPECT_EQ(namedByExperiment(a, kOmittedInputExperiment), namedByExperiment(b, kOmittedInputExperiment));
  EXPECT_EQ(namedByExperiment(a, kOmittedInputExperiment).message, kOmittedInputExperiment);
  Signature wrong = a;  // a wrong result keeps its name
  wrong.verdict = "dcf";
  EXPECT_EQ(namedByExperiment(wrong, kOmittedInputExperiment), wrong);
}

}  // namespace
}  // namespace nnfuzz
