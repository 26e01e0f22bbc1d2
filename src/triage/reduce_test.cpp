// reduce_test.cpp - sub-case extraction and the ddmin search, with predicates standing in for SUTs.
#include "triage/reduce.h"

#include <gtest/gtest.h>

#include "interp/interpreter.h"
#include "ops/infer_node.h"

namespace nnfuzz {
namespace {

// x -> Abs -> Exp -> Neg -> Add -> Reshape, with Add's other operand computed from weights only.
const char* kChain = R"(graph {
  %0 = input f32[2,3]
  %1 = weight f32[2,3] [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
  %2 = weight i64[2] [3, 2]
  %3 = Abs(%0) : f32[2,3]
  %4 = Exp(%3) : f32[2,3]
  %5 = Neg(%4) : f32[2,3]
  %6 = Sigmoid(%1) : f32[2,3]
  %7 = Add(%5, %6) : f32[2,3]
  %8 = Reshape(%7, %2) : f32[3,2]
  return %8
}
)";

// Node dropping alone (the ddmin pass), for the tests about it.
ReduceOptions nodesOnly() {
  ReduceOptions options;
  options.maxPassTries = 0;
  return options;
}

std::vector<Tensor> chainInputs() { return {Tensor({DType::Float32, {2, 3}}, {-1, 0.5, -0.25, 2, -3, 0})}; }

// Every sub-case must be a case of its own: it verifies, and its expectation is what the
// reference computes for it.
void expectSelfContained(const SubCase& sub) {
  EXPECT_EQ(verifyGraph(sub.graph), std::nullopt) << printGraph(sub.graph);
  const auto outputs = runGraph(sub.graph, sub.inputs);
  ASSERT_EQ(outputs.size(), sub.expected.size());
  for (size_t k = 0; k < outputs.size(); ++k) EXPECT_EQ(outputs[k].data, sub.expected[k].data) << k;
}

TEST(Reduce, CutValuesBecomeInputsOrWeightsWithReferenceContents) {
  const Graph g = parseGraph(kChain);
  const auto values = runGraphAll(g, chainInputs());
  const auto nodes = g.nodes();
  // Keep Neg and Add: Exp's result is cut (runtime: an input), Sigmoid's too (constant: a weight).
  const SubCase sub = extractSubCase(g, values, {nodes[4], nodes[2]});
  EXPECT_EQ(printGraph(sub.graph), R"(graph {
  %0 = input f32[2,3]
  %1 = weight f32[2,3] [0.7310586, 0.8807971, 0.95257413, 0.98201376, 0.9933072, 0.99752736]
  %2 = Neg(%0) : f32[2,3]
  %3 = Add(%2, %1) : f32[2,3]
  return %3
}
)");
  expectSelfContained(sub);
  ASSERT_EQ(sub.inputs.size(), 1u);
  EXPECT_EQ(sub.inputs[0].data, values[g.node(nodes[1]).outputs[0]].data);  // Exp's reference result
}

TEST(Reduce, ShrinksToTheOneNodeThatFails) {
  const Graph g = parseGraph(kChain);
  size_t calls = 0;
  const Reduction r = reduceCase(g, chainInputs(), [&](const SubCase& sub) {
    ++calls;
    expectSelfContained(sub);
    return containsOp(sub.graph, "Exp");
  }, nodesOnly());
  ASSERT_TRUE(r.shrunk);
  EXPECT_TRUE(r.minimal);
  EXPECT_EQ(r.tries, calls);
  EXPECT_EQ(printGraph(r.reduced.graph), R"(graph {
  %0 = input f32[2,3]
  %1 = Exp(%0) : f32[2,3]
  return %1
}
)");
  ASSERT_EQ(r.kept.size(), 1u);
  EXPECT_EQ(g.node(r.kept[0]).op, "Exp");
}

TEST(Reduce, KeepsAPairThatOnlyFailsTogether) {
  const Graph g = parseGraph(kChain);
  // A "fusion bug": only Exp feeding Neg inside one model fails.
  const Reduction r = reduceCase(g, chainInputs(), [](const SubCase& sub) {
    for (NodeId n : sub.graph.nodes()) {
      const Node& node = sub.graph.node(n);
      if (node.op != "Neg") continue;
      const Value& in = sub.graph.value(node.inputs[0]);
      if (in.kind == ValueKind::Result && sub.graph.node(in.producer).op == "Exp") return true;
    }
    return false;
  }, nodesOnly());
  EXPECT_TRUE(r.minimal);
  EXPECT_EQ(printGraph(r.reduced.graph), R"(graph {
  %0 = input f32[2,3]
  %1 = Exp(%0) : f32[2,3]
  %2 = Neg(%1) : f32[2,3]
  return %2
}
)");
}

TEST(Reduce, AKnownCulpritCostsOneTry) {
  const Graph g = parseGraph(kChain);
  ReduceOptions options = nodesOnly();
  options.suspects = {"Softmax", "Neg"};  // Softmax is not in the model: no try spent on it
  const Reduction r = reduceCase(g, chainInputs(), [](const SubCase& sub) { return containsOp(sub.graph, "Neg"); }, options);
  EXPECT_EQ(r.tries, 1u);
  EXPECT_TRUE(r.minimal);
  EXPECT_EQ(r.kept.size(), 1u);
}

TEST(Reduce, TheFocusedOutputsConeIsTriedFirst) {
  const Graph g = parseGraph(R"(graph {
  %0 = input f32[4]
  %1 = Relu(%0) : f32[4]
  %2 = Sigmoid(%0) : f32[4]
  %3 = Tanh(%2) : f32[4]
  return %1, %3
}
)");
  const std::vector<Tensor> inputs = {Tensor({DType::Float32, {4}}, {-1, 0, 1, 2})};
  EXPECT_EQ(coneOf(g, {1}).size(), 2u);
  std::vector<size_t> sizes;
  ReduceOptions options;
  options.focusOutputs = {1};
  reduceCase(g, inputs, [&](const SubCase& sub) {
    sizes.push_back(sub.graph.numNodes());
    return containsOp(sub.graph, "Sigmoid") && containsOp(sub.graph, "Tanh");
  }, options);
  ASSERT_FALSE(sizes.empty());
  EXPECT_EQ(sizes[0], 2u);
}

TEST(Reduce, StopsAtItsBudget) {
  const Graph g = parseGraph(kChain);
  ReduceOptions options = nodesOnly();
  options.maxTries = 1;
  size_t calls = 0;
  const Reduction r = reduceCase(g, chainInputs(), [&](const SubCase& sub) {
    ++calls;
    return containsOp(sub.graph, "Exp");
  }, options);
  EXPECT_EQ(calls, 1u);
  EXPECT_FALSE(r.minimal);
}

TEST(Reduce, ThePassesAfterNodeDroppingShrinkWhatIsLeft) {
  const Graph g = parseGraph(kChain);
  const Reduction r = reduceCase(g, chainInputs(), [&](const SubCase& sub) {
    expectSelfContained(sub);
    return containsOp(sub.graph, "Exp") && !sub.graph.inputs().empty();  // a bug that needs a runtime input
  });
  EXPECT_TRUE(r.minimal);
  EXPECT_GT(r.passTries, 0u);
  EXPECT_TRUE(r.passesFinished);
  EXPECT_EQ(printGraph(r.reduced.graph), R"(graph {
  %0 = input f32[]
  %1 = Exp(%0) : f32[]
  return %1
}
)");
  ASSERT_EQ(r.reduced.inputs.size(), 1u);
  EXPECT_EQ(r.reduced.inputs[0].data, std::vector<double>{0.0});
}

TEST(Reduce, NothingSmallerFailsLeavesTheCaseWhole) {
  const Graph g = parseGraph(kChain);
  const Reduction r = reduceCase(g, chainInputs(), [](const SubCase&) { return false; });
  EXPECT_FALSE(r.shrunk);
  EXPECT_TRUE(r.minimal);
  EXPECT_EQ(r.kept.size(), g.numNodes());
}

}  // namespace
}  // namespace nnfuzz
