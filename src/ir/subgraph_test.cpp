// subgraph_test.cpp - bodies in GraphIR: text round-trip, captures in the enclosing use
// lists, replaceAllUses/removal seeing body reads, and the verifier's body checks.
#include <gtest/gtest.h>

#include "ir/graph.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

// An If whose branches read outer %1 and %2, and a Loop whose body nests an If that reads
// the top-level %1 through the Loop body (a capture at each level).
const char* kNested = R"(graph {
  %0 = input bool[]
  %1 = input f32[2]
  %2 = weight f32[2] [1.0, 2.0]
  %3 = weight i64[] [3]
  %4 = If(%0) {else_branch=graph {
    %5 = Neg(%2) : f32[2]
    return %5
  }, then_branch=graph {
    %6 = Add(%1, %2) : f32[2]
    return %6
  }} : f32[2]
  %7, %8 = Loop(%3, %0, %4) {body=graph {
    %9 = input i64[]
    %10 = input bool[]
    %11 = input f32[2]
    %12 = If(%10) {else_branch=graph {
      return %1
    }, then_branch=graph {
      %13 = Mul(%11, %1) : f32[2]
      return %13
    }} : f32[2]
    return %10, %12, %11
  }} : f32[2], f32[3,2]
  return %7, %8
}
)";

TEST(IrSubgraph, NestedBodiesRoundTrip) {
  Graph g = parseGraph(kNested);
  EXPECT_EQ(verifyStructure(g), std::nullopt);
  EXPECT_EQ(printGraph(g), kNested);
  EXPECT_EQ(countNodesDeep(g), 6u);
}

TEST(IrSubgraph, CapturesAreUsesOfTheEnclosingGraph) {
  Graph g = parseGraph(kNested);
  const NodeId ifNode = g.nodes()[0], loop = g.nodes()[1];
  const ValueId x = g.inputs()[1], w = g.weights()[0];
  // else reads %2 first, then the then-branch reads %1: captures in text order.
  EXPECT_EQ(g.node(ifNode).captures, (std::vector<ValueId>{w, x}));
  EXPECT_EQ(g.node(loop).captures, (std::vector<ValueId>{x}));
  EXPECT_EQ(g.value(x).uses.size(), 2u);
  const Graph* thenBranch = g.node(ifNode).attrs.getGraph("then_branch");
  ASSERT_NE(thenBranch, nullptr);
  EXPECT_TRUE(thenBranch->isBody());
  const auto outers = outerParams(*thenBranch, 2);
  EXPECT_EQ(thenBranch->value(outers[1]).capture, 1u);
  EXPECT_EQ(thenBranch->value(outers[0]).capture, 0u);
}

TEST(IrSubgraph, ReplaceAllUsesReachesBodyReads) {
  Graph g = parseGraph(kNested);
  const ValueId x = g.inputs()[1], w = g.weights()[0];
  g.replaceAllUses(x, w);
  EXPECT_TRUE(g.value(x).uses.empty());
  EXPECT_EQ(g.node(g.nodes()[1]).captures[0], w);
  EXPECT_EQ(verifyStructure(g), std::nullopt);
  const std::string text = printGraph(g);
  EXPECT_NE(text.find("%13 = Mul(%11, %2)"), std::string::npos) << text;
  // The input is unused now; removeUnused drops it but keeps every body's formal inputs.
  EXPECT_EQ(g.removeUnused(), 1u);
  EXPECT_EQ(verifyStructure(g), std::nullopt);
  EXPECT_EQ(printGraph(parseGraph(printGraph(g))), printGraph(g));
}

TEST(IrSubgraph, RemovingTheOwnerReleasesItsCaptures) {
  Graph g = parseGraph(kNested);
  const ValueId x = g.inputs()[1];
  g.setOutputs({g.inputs()[0]});
  g.removeUnused();
  EXPECT_EQ(g.numNodes(), 0u);
  EXPECT_FALSE(g.value(x).alive);
  EXPECT_EQ(verifyStructure(g), std::nullopt);
}

TEST(IrSubgraph, BodyKeepsUnusedFormalInputs) {
  Graph g = parseGraph(kNested);
  Graph body = g.node(g.nodes()[1]).attrs.getGraph("body") ? *g.node(g.nodes()[1]).attrs.getGraph("body") : Graph();
  ASSERT_TRUE(body.isBody());
  EXPECT_EQ(body.removeUnused(), 0u);
  EXPECT_EQ(body.inputs().size(), 3u);
}

TEST(IrSubgraph, VerifierChecksOuterParameters) {
  Graph g = parseGraph(kNested);
  // Point the If's first capture at a value of another type: its body reads it as f32[2].
  g.setOperand(g.nodes()[0], kCaptureOperand | 0, g.weights()[1]);
  auto problem = verifyStructure(g);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("reads capture 0 as f32[2]"), std::string::npos) << *problem;
}

TEST(IrSubgraph, ParserRejectsOutOfScopeAndUndefined) {
  // %3 is defined inside the body; the outer graph cannot read it.
  EXPECT_THROW(parseGraph(R"(graph {
  %0 = input bool[]
  %1 = If(%0) {then_branch=graph {
    %2 = input f32[1]
    return %2
  }} : f32[1]
  %3 = Neg(%2) : f32[1]
  return %3
})"),
               Error);
  // A body cannot read its owner's results.
  EXPECT_THROW(parseGraph(R"(graph {
  %0 = input bool[]
  %1 = If(%0) {then_branch=graph {
    return %1
  }} : f32[1]
  return %1
})"),
               Error);
}

TEST(IrSubgraph, AttributesCompareBodiesByText) {
  Graph a = parseGraph(kNested), b = parseGraph(kNested);
  EXPECT_EQ(a.node(a.nodes()[0]).attrs, b.node(b.nodes()[0]).attrs);
  EXPECT_FALSE(a.node(a.nodes()[0]).attrs == a.node(a.nodes()[1]).attrs);
}

}  // namespace
}  // namespace nnfuzz
