// reduce_bodies_test.cpp - reduction with bodies: inline-if, bypass-in-body, sub-cases that
// cut a node with captures, and settling a case whose Loop body must be retyped.
#include <gtest/gtest.h>

#include "interp/interpreter.h"
#include "ops/infer_node.h"
#include "triage/reduce_pass.h"
#include "triage/reduce_schedule.h"
#include "triage/reduce_variant.h"

namespace nnfuzz {
namespace {

SubCase caseOf(const char* text, std::vector<Tensor> inputs) {
  SubCase c;
  c.graph = parseGraph(text);
  c.inputs = std::move(inputs);
  return c;
}

Tensor boolean(bool b) { return Tensor(TensorType{DType::Bool, {}}, {b ? 1.0 : 0.0}); }
const char* kIf = R"(graph {
  %0 = input bool[]
  %1 = input f32[2]
  %2 = weight f32[2] [1.0, 2.0]
  %3 = If(%0) {else_branch=graph {
    %4 = Neg(%1) : f32[2]
    return %4
  }, then_branch=graph {
    %5 = weight f32[2] [3.0, 4.0]
    %6 = Add(%1, %5) : f32[2]
    %7 = Mul(%6, %2) : f32[2]
    return %7
  }} : f32[2]
  %8 = Relu(%3) : f32[2]
  return %8
}
)";

TEST(ReduceBodies, InlineIfTakesTheBranchTheReferenceTook) {
  const SubCase c = caseOf(kIf, {boolean(true), float32Tensor({0.5, -1})});
  const auto r = reduceWithPasses(c, [](const SubCase& s) { return containsOp(s.graph, "Mul"); }, 16,
                                  {{0, makeInlineIfPass}});
  EXPECT_EQ(printGraph(r.reduced.graph), R"(graph {
  %0 = input f32[2]
  %1 = weight f32[2] [1.0, 2.0]
  %2 = weight f32[2] [3.0, 4.0]
  %3 = Add(%0, %2) : f32[2]
  %4 = Mul(%3, %1) : f32[2]
  %5 = Relu(%4) : f32[2]
  return %5
}
)");
  // The unread cond input went with the If; the expectation is the If's.
  const auto before = runGraph(c.graph, c.inputs);
  EXPECT_EQ(r.reduced.expected, before);
  EXPECT_EQ(r.reduced.inputs.size(), 1u);
}

TEST(ReduceBodies, BypassInBodyShrinksABranchAndDropsUnreadCaptures) {
  const SubCase c = caseOf(kIf, {boolean(false), float32Tensor({0.5, -1})});
  // The bug needs the If only: every body node can go but one per branch's output type.
  const auto r = reduceWithPasses(c, [](const SubCase& s) { return containsOp(s.graph, "If"); }, 32,
                                  {{0, makeBypassInBodyPass}});
  EXPECT_EQ(countNodesDeep(r.reduced.graph), 2u);  // the If and Relu; every body node bypassed
  const Node& ifNode = r.reduced.graph.node(r.reduced.graph.nodes()[0]);
  EXPECT_EQ(ifNode.captures.size(), 1u);  // only %1 is still read (returned by both branches)
  EXPECT_EQ(verifyGraph(r.reduced.graph), std::nullopt);
}

TEST(ReduceBodies, SubCasesKeepCapturesAndConesFollowThem) {
  const Graph g = parseGraph(kIf);
  const auto values = runGraphAll(g, {boolean(true), float32Tensor({0.5, -1})});
  const NodeId ifNode = g.nodes()[0];
  // Keeping only the If: its captured input stays an input, the weight a weight.
  const SubCase sub = extractSubCase(g, values, {ifNode});
  EXPECT_EQ(verifyGraph(sub.graph), std::nullopt);
  EXPECT_EQ(sub.graph.node(sub.graph.nodes()[0]).captures.size(), 2u);
  EXPECT_EQ(runGraph(sub.graph, sub.inputs), sub.expected);
  EXPECT_EQ(coneOf(g, {0}).size(), 2u);
}

TEST(ReduceBodies, SettlingRetypesALoopBody) {
  // Shrinking the carried input's dim must retype the body and the scan output.
  SubCase c = caseOf(R"(graph {
  %0 = input f32[2]
  %1 = weight i64[] [2]
  %2 = weight bool[] [1]
  %3, %4 = Loop(%1, %2, %0) {body=graph {
    %5 = input i64[]
    %6 = input bool[]
    %7 = input f32[2]
    %8 = Identity(%6) : bool[]
    %9 = Add(%7, %0) : f32[2]
    return %8, %9, %9
  }} : f32[2], f32[2,2]
  return %3, %4
}
)",
                     {float32Tensor({0.5, -1})});
  setParam(c, c.graph.inputs()[0], float32Tensor({0.5}));
  const auto settled = settleVariant(c);
  ASSERT_TRUE(settled.has_value());
  EXPECT_EQ(toString(settled->sub.graph.value(settled->sub.graph.outputs()[1]).type), "f32[2,1]");
  EXPECT_EQ(settled->sub.expected[0].data, (std::vector<double>{1.5}));  // 0.5, then + 0.5 twice
  EXPECT_EQ(verifyGraph(settled->sub.graph), std::nullopt);
}

}  // namespace
}  // namespace nnfuzz
