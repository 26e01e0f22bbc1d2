// blame_test.cpp - first-divergence blame with stand-in SUTs made from the reference: each
// computes one operator wrongly (by swapping in another operator), so the culprit is known.
#include "triage/blame.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "interp/interpreter.h"

namespace nnfuzz {
namespace {

// A SUT that runs `op` as `as` whenever `buggy` says so, and fails on any operator in `rejects`.
SutRun fakeSut(std::string op, std::string as, std::function<bool(const Graph&, const Node&)> buggy = {},
               std::string rejects = "") {
  return [=](const SubCase& c) -> std::optional<std::vector<Tensor>> {
    Graph g = c.graph;
    for (NodeId id : g.nodes()) {
      if (g.node(id).op == rejects) return std::nullopt;
      if (g.node(id).op == op && (!buggy || buggy(g, g.node(id)))) g.node(id).op = as;
    }
    return runGraph(g, c.inputs);
  };
}

bool same(const Tensor& a, const Tensor& b) { return a == b; }

SubCase caseWithExpected(const char* text, std::vector<Tensor> inputs) {
  SubCase c;
  c.graph = parseGraph(text);
  c.inputs = std::move(inputs);
  c.expected = runGraph(c.graph, c.inputs);
  return c;
}

const char* kAbsNegExp = R"(graph {
  %0 = input f32[3]
  %1 = Abs(%0) : f32[3]
  %2 = Neg(%1) : f32[3]
  %3 = Exp(%2) : f32[3]
  return %3
}
)";

std::vector<Tensor> absNegExpInputs() { return {Tensor({DType::Float32, {3}}, {-1, 0.5, 2})}; }

TEST(Blame, TheFirstWrongOperatorWithRightInputsIsTheCulprit) {
  const Blame b = blameFirstDivergence(caseWithExpected(kAbsNegExp, absNegExpInputs()), fakeSut("Neg", "Abs"), same);
  ASSERT_TRUE(b.culprit);
  EXPECT_EQ(b.how, "exposed");
  EXPECT_TRUE(b.culprit->isolated);
  EXPECT_EQ(b.culprit->text(), "Neg");  // no attributes; f32 already, so no dtype experiment
  EXPECT_EQ(b.runs, 2u);                // the exposed case, then Neg alone
}

// openvino-any-dcf-3daf463e: one Scan signature held ReduceL1-in-a-body (2026-11-24) and a
// Selu body whose scan axis OpenVINO ignores (2026-11-29). Blame stops at the body's owner.
TEST(Blame, AControlFlowCulpritIsNamedWithTheOperatorsOfItsBodies) {
  const Culprit reduceBody{"Scan", {}, {"num_scan_inputs"}, true, false, {"ReduceL1"}};
  const Culprit seluBody{"Scan", {}, {}, true, false, {"Selu"}};
  EXPECT_EQ(reduceBody.text(), "Scan[ReduceL1]{num_scan_inputs}");
  EXPECT_EQ(reduceBody.identity(), "Scan[ReduceL1]");
  EXPECT_NE(reduceBody.identity(), seluBody.identity());
}

TEST(Blame, OnlyTheAttributesAndDtypesThatMatterNameTheCulprit) {
  // Wrong only while alpha is set: LeakyRelu{alpha}, whatever the dtype.
  const SubCase leaky = caseWithExpected(R"(graph {
  %0 = input f64[2]
  %1 = LeakyRelu(%0) {alpha=0.5} : f64[2]
  %2 = Softmax(%1) {axis=0} : f64[2]
  return %2
}
)", {Tensor({DType::Float64, {2}}, {-1, 2})});
  const auto withAlpha = [](const Graph&, const Node& n) { return n.attrs.has("alpha"); };
  const Blame a = blameFirstDivergence(leaky, fakeSut("LeakyRelu", "Relu", withAlpha), same);
  ASSERT_TRUE(a.culprit);
  EXPECT_EQ(a.culprit->text(), "LeakyRelu{alpha}");
  // Wrong only on integers: the dtypes stay in the name.
  const SubCase div = caseWithExpected(R"(graph {
  %0 = input i32[2]
  %1 = weight i32[2] [2, 3]
  %2 = Div(%0, %1) : i32[2]
  return %2
}
)", {Tensor({DType::Int32, {2}}, {7, -7})});
  const auto onInts = [](const Graph& g, const Node& n) { return isInteger(g.value(n.inputs[0]).type.dtype); };
  const Blame d = blameFirstDivergence(div, fakeSut("Div", "Sub", onInts), same);
  ASSERT_TRUE(d.culprit);
  EXPECT_EQ(d.culprit->text(), "Div(i32,i32)");
}

TEST(Blame, AnErrorDownstreamOfAWrongValueIsBlamedOnThatValue) {
  // The whole model fails to compile (the SUT rejects Exp), but its prefix computes Neg wrong.
  const Blame b = blameFirstDivergence(caseWithExpected(kAbsNegExp, absNegExpInputs()), fakeSut("Neg", "Abs", {}, "Exp"), same,
                                       /*wholeFails=*/true);
  ASSERT_TRUE(b.culprit);
  EXPECT_EQ(b.how, "prefixes");
  EXPECT_EQ(b.culprit->op, "Neg");
}

TEST(Blame, WhenExposingValuesHidesTheBugTheReducerResultStands) {
  // Neg is wrong only when fused into Exp, i.e. when its result is not a graph output.
  const SutRun fused = [](const SubCase& c) -> std::optional<std::vector<Tensor>> {
    Graph g = c.graph;
    for (NodeId id : g.nodes()) {
      if (g.node(id).op != "Neg") continue;
      const ValueId out = g.node(id).outputs[0];
      const bool exposed = std::find(g.outputs().begin(), g.outputs().end(), out) != g.outputs().end();
      if (!exposed) g.node(id).op = "Abs";
    }
    return runGraph(g, c.inputs);
  };
  const SubCase c = caseWithExpected(kAbsNegExp, absNegExpInputs());
  ASSERT_NE(fused(c)->front(), c.expected.front());  // the case does fail
  const Blame b = blameFirstDivergence(c, fused, same);
  EXPECT_FALSE(b.culprit);
  EXPECT_EQ(b.how, "no intermediate value is wrong");
}

TEST(Blame, ASutThatDropsOutputsIsBlamedByPrefixes) {
  // MNN hands back fewer outputs than the exposed model asks for: blame falls back to prefixes
  // instead of reading past the end of what came back.
  const SutRun wrongNeg = fakeSut("Neg", "Abs");
  const SutRun dropping = [&](const SubCase& c) -> std::optional<std::vector<Tensor>> {
    auto got = wrongNeg(c);
    if (got && got->size() > 1) got->resize(0);
    return got;
  };
  const Blame b = blameFirstDivergence(caseWithExpected(kAbsNegExp, absNegExpInputs()), dropping, same);
  ASSERT_TRUE(b.culprit);
  EXPECT_EQ(b.how, "prefixes");
  EXPECT_EQ(b.culprit->op, "Neg");
}

// A SUT whose Pow is wrong (every element +1) whenever its exponent is an integer tensor.
std::optional<std::vector<Tensor>> powWrongOnIntegerExponents(const SubCase& c) {
  std::vector<Tensor> out = runGraph(c.graph, c.inputs);
  for (NodeId id : c.graph.nodes()) {
    const Node& n = c.graph.node(id);
    if (n.op == "Pow" && isInteger(c.graph.value(n.inputs[1]).type.dtype))
      for (Tensor& t : out)
        for (double& x : t.data) x += 1;
  }
  return out;
}

TEST(Blame, ADtypeThatCanChangeWithoutLosingTheBugReadsAny) {
  // The base's dtype does not matter (f64 or f32 alike), the exponent's does, but not its width: Pow(*,int).
  const SubCase pow = caseWithExpected(R"(graph {
  %0 = input f64[2]
  %1 = weight i64[2] [2, 3]
  %2 = Pow(%0, %1) : f64[2]
  %3 = Neg(%2) : f64[2]
  return %3
}
)", {Tensor({DType::Float64, {2}}, {1.5, -2})});
  const Blame b = blameFirstDivergence(pow, powWrongOnIntegerExponents, same);
  ASSERT_TRUE(b.culprit);
  EXPECT_TRUE(b.culprit->isolated);
  EXPECT_EQ(b.culprit->identity(), "Pow(*,int)");
  // The same bug on an f32 base is the same culprit.
  const SubCase f32Base = caseWithExpected(R"(graph {
  %0 = input f32[2]
  %1 = weight i64[2] [2, 3]
  %2 = Pow(%0, %1) : f32[2]
  return %2
}
)", {Tensor({DType::Float32, {2}}, {1.5, -2})});
  const Blame f = blameFirstDivergence(f32Base, powWrongOnIntegerExponents, same);
  ASSERT_TRUE(f.culprit);
  EXPECT_EQ(f.culprit->identity(), b.culprit->identity());
}

// OpenVINO 2025.2's GatherElements (measured on old-c1's bundles): a negative index reads 0, for
// any data dtype and i32 or i64 indices alike.
std::optional<std::vector<Tensor>> gatherZeroOnNegativeIndices(const SubCase& c) {
  std::vector<Tensor> out = runGraph(c.graph, c.inputs);
  const std::vector<Tensor> values = runGraphAll(c.graph, c.inputs);
  for (NodeId id : c.graph.nodes()) {
    const Node& n = c.graph.node(id);
    const auto& indices = values[n.inputs[1]].data;
    if (n.op == "GatherElements" && std::any_of(indices.begin(), indices.end(), [](double i) { return i < 0; }))
      for (Tensor& t : out) std::fill(t.data.begin(), t.data.end(), 0.0);
  }
  return out;
}

TEST(Blame, NeitherBoolDataNorTheIndexWidthSplitsOneIndexBug) {
  // old-c1's openvino-any-dcf-4a700dd8 (bool data, i32 indices) and -bb54cde6 (f32 data, i64
  // indices): one negative-index bug, one name.
  const SubCase boolData = caseWithExpected(R"(graph {
  %0 = weight i32[1,3] [1, -2, 1]
  %1 = input bool[2,3]
  %2 = GatherElements(%1, %0) : bool[1,3]
  return %2
}
)", {Tensor({DType::Bool, {2, 3}}, {1, 1, 1, 1, 1, 1})});
  const SubCase f32Data = caseWithExpected(R"(graph {
  %0 = weight i64[2,1] [-3, -5]
  %1 = input f32[5,1]
  %2 = GatherElements(%1, %0) : f32[2,1]
  return %2
}
)", {Tensor({DType::Float32, {5, 1}}, {1, 2, 3, 4, 5})});
  const Blame a = blameFirstDivergence(boolData, gatherZeroOnNegativeIndices, same);
  const Blame b = blameFirstDivergence(f32Data, gatherZeroOnNegativeIndices, same);
  ASSERT_TRUE(a.culprit && b.culprit);
  EXPECT_EQ(a.culprit->identity(), "GatherElements(*,int)");
  EXPECT_EQ(b.culprit->identity(), a.culprit->identity());
  // An index bug of i64 alone keeps its width.
  const SutRun onlyI64 = [](const SubCase& c) -> std::optional<std::vector<Tensor>> {
    auto out = gatherZeroOnNegativeIndices(c);
    for (NodeId id : c.graph.nodes())
      if (c.graph.value(c.graph.node(id).inputs[1]).type.dtype != DType::Int64) return runGraph(c.graph, c.inputs);
    return out;
  };
  const Blame i64 = blameFirstDivergence(f32Data, onlyI64, same);
  ASSERT_TRUE(i64.culprit);
  EXPECT_EQ(i64.culprit->identity(), "GatherElements(*,i64)");
}

// OpenVINO 2025.2's CPU plugin without snippets (measured on old-c1's bundles): Softsign whose
// operand a node computes returns that node's input; Softsign of a model input is right, and so
// is one whose producer's result is a model output too (then nothing is fused). `onlyAfter` limits
// the fault to one producer (a fusion of two particular operators).
SutRun softsignWrongBehindProducers(std::string onlyAfter = "") {
  return [=](const SubCase& c) -> std::optional<std::vector<Tensor>> {
    Graph g = c.graph;
    for (NodeId id : g.nodes()) {
      const Node& n = g.node(id);
      if (n.op != "Softsign" || g.value(n.inputs[0]).kind != ValueKind::Result) continue;
      for (NodeId p : g.nodes())
        if (g.node(p).outputs[0] == n.inputs[0] && (onlyAfter.empty() || g.node(p).op == onlyAfter) &&
            std::find(g.outputs().begin(), g.outputs().end(), n.inputs[0]) == g.outputs().end())
          g.setOperand(id, 0, g.node(p).inputs[0]), g.node(id).op = "Identity";
    }
    return runGraph(g, c.inputs);
  };
}

TEST(Blame, AnOperatorWrongBehindAnyProducerIsTheCulpritWhateverFeedsIt) {
  // old-c1's openvino-any-dcf-d97b77f5 (LeakyRelu -> Softsign) and -389d21be (Pow -> Softsign).
  const SubCase leaky = caseWithExpected(R"(graph {
  %0 = input f32[1]
  %1 = LeakyRelu(%0) : f32[1]
  %2 = Softsign(%1) : f32[1]
  return %2
}
)", {Tensor({DType::Float32, {1}}, {1})});
  const SubCase pow = caseWithExpected(R"(graph {
  %0 = weight f32[] [0.0]
  %1 = input f32[]
  %2 = Pow(%0, %1) : f32[]
  %3 = Softsign(%2) : f32[]
  return %3
}
)", {Tensor({DType::Float32, {}}, {0})});
  const Blame a = blameFirstDivergence(leaky, softsignWrongBehindProducers(), same);
  const Blame b = blameFirstDivergence(pow, softsignWrongBehindProducers(), same);
  ASSERT_TRUE(a.culprit && b.culprit);
  EXPECT_EQ(a.how, "last operator behind any producer");
  EXPECT_EQ(a.culprit->identity(), "Softsign(f32) behind any producer");
  EXPECT_EQ(b.culprit->identity(), a.culprit->identity());
  // Wrong only behind LeakyRelu: a fusion of two operators, no single culprit.
  EXPECT_FALSE(blameFirstDivergence(leaky, softsignWrongBehindProducers("LeakyRelu"), same).culprit);
}

TEST(Blame, WhenOnlyTheWholeIsWrongTheLastOperatorWrongAloneIsTheCulprit) {
  // Exposing Abs's result makes the SUT drop every output (as MNN can), and Exp is wrong
  // whatever feeds it: the prefixes are right, Exp alone is wrong.
  const SutRun wrongExp = fakeSut("Exp", "Neg");
  const SutRun dropping = [&](const SubCase& c) -> std::optional<std::vector<Tensor>> {
    auto got = wrongExp(c);
    if (got && got->size() > 1) got->resize(0);
    return got;
  };
  const SubCase c = caseWithExpected(R"(graph {
  %0 = input f32[3]
  %1 = Abs(%0) : f32[3]
  %2 = Exp(%1) : f32[3]
  return %2
}
)", absNegExpInputs());
  const Blame b = blameFirstDivergence(c, dropping, same);
  ASSERT_TRUE(b.culprit);
  EXPECT_EQ(b.how, "last operator alone");
  EXPECT_EQ(b.culprit->op, "Exp");
  EXPECT_TRUE(b.culprit->isolated);
}

}  // namespace
}  // namespace nnfuzz
