// body_facts_test.cpp - coverage sees the operators inside bodies: both fact builders
// (GraphIR and the exported ONNX model) list them, with the edges from outer values into
// the body, and Isra's metrics (whose script reads no bodies) skip them.
#include <gtest/gtest.h>

#include "onnx/export.h"
#include "search/model_facts.h"

namespace nnfuzz::search {
namespace {

const char* kIf = R"(graph {
  %0 = input bool[]
  %1 = input f32[2]
  %2 = Relu(%1) : f32[2]
  %3 = If(%0) {else_branch=graph {
    %4 = Neg(%2) : f32[2]
    return %4
  }, then_branch=graph {
    %5 = Abs(%2) : f32[2]
    %6 = Sigmoid(%5) : f32[2]
    return %6
  }} : f32[2]
  return %3
}
)";

std::vector<std::string> opsOf(const ModelFacts& f, const BlockCorpus& corpus) {
  std::vector<std::string> ops;
  for (const auto& n : f.nodes) ops.push_back(n.op >= 0 ? corpus.op(n.op).name : f.unknownOps[n.unknown]);
  return ops;
}

TEST(BodyFacts, BodyOperatorsAreNodesInBothBuilders) {
  const BlockCorpus corpus = defaultCorpus();
  const Graph g = parseGraph(kIf);
  ModelFacts fromGraph, fromOnnx;
  factsFromGraph(g, corpus, fromGraph);
  factsFromOnnx(exportModel(g), corpus, fromOnnx);
  const std::vector<std::string> expected{"Relu", "If", "Neg", "Abs", "Sigmoid"};
  EXPECT_EQ(opsOf(fromGraph, corpus), expected);
  EXPECT_EQ(opsOf(fromOnnx, corpus), expected);
  for (const ModelFacts* f : {&fromGraph, &fromOnnx}) {
    // Relu's result feeds Neg and Abs inside the branches: two uses beyond none outside.
    const auto& relu = f->nodes[0];
    const auto& out = f->values[f->results[relu.resultBegin]];
    EXPECT_EQ(out.useEnd - out.useBegin, 2u);
    EXPECT_FALSE(f->nodes[1].israSkip);
    for (size_t k = 2; k < f->nodes.size(); ++k) EXPECT_TRUE(f->nodes[k].israSkip);
    // Abs -> Sigmoid inside the then-branch is an edge.
    const auto& abs = f->nodes[3];
    const auto& absOut = f->values[f->results[abs.resultBegin]];
    ASSERT_EQ(absOut.useEnd - absOut.useBegin, 1u);
    EXPECT_EQ(f->uses[absOut.useBegin], 4u);
  }
}

}  // namespace
}  // namespace nnfuzz::search
