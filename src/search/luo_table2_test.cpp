// luo_table2_test.cpp - Luo et al.'s worked example (ICSE'21 §III-B, Tables I and II).
//
// Fig. 3's three networks are images we do not have, so this builds three NHWC networks
// over Table I's corpus (Conv2d, Relu, Add; n_maxspc = 10) that are consistent with every
// number of Table II, and checks each number, once through the GraphIR builder and once
// through ONNX export + the ONNX builder. As in TensorFlow, Conv2d's filter is a parameter
// (an attribute here), so Conv2d has in-degree 1 as Table I says.
//
//   NN1: x -> Conv2d(k3) -> Relu -> Add(., b[4])                 -> output
//   NN2: x -> Conv2d(k1) -> Relu, Relu -> Add                    -> output
//   NN3: x -> Conv2d(k3) -> Relu -> Add(., b[1,1,1,4]) -> Conv2d(k3) -> Relu -> Add(., b[4]) -> output
//
// Conv2d: out-degrees {1,2} of {0,1,2}, feeds Relu only, vectors (x, k3), (x, k1).
// Relu:   out-degree {1},                feeds Add only,  one vector.
// Add:    out-degrees {0,1},             feeds Conv2d only, vectors with b[4], Relu, b[1,1,1,4].
#include <gtest/gtest.h>

#include "onnx/export.h"
#include "search/coverage_tracker.h"

namespace nnfuzz::search {
namespace {

constexpr double kHalfDigit = 0.0005;  // Table II rounds to 0.1%

BlockCorpus tableOne() {
  return BlockCorpus({{"Conv2d", {1}, {0, 1, 2}, {}, {}}, {"Relu", {1}, {0, 1, 2}, {}, {}}, {"Add", {2}, {0, 1, 2}, {}, {}}});
}

TensorType nhwc(Shape s) { return {DType::Float32, std::move(s)}; }

ValueId conv(Graph& g, ValueId x, int64_t k) {
  Attributes a;
  a.setInts("kernel_shape", {k, k});
  a.setInts("strides", {1, 1});
  a.setString("padding", "SAME");
  a.setInt("filters", 4);
  return g.node(g.addNode("Conv2d", {x}, a, {nhwc({1, 8, 8, 4})})).outputs[0];
}

ValueId relu(Graph& g, ValueId x) { return g.node(g.addNode("Relu", {x}, {}, {nhwc({1, 8, 8, 4})})).outputs[0]; }

ValueId add(Graph& g, ValueId a, ValueId b) {
  return g.node(g.addNode("Add", {a, b}, {}, {nhwc({1, 8, 8, 4})})).outputs[0];
}

ValueId bias(Graph& g, Shape s) { return g.addWeight(Tensor(nhwc(std::move(s)))); }

std::vector<Graph> figureThree() {
  std::vector<Graph> nets(3);
  {
    Graph& g = nets[0];
    const ValueId x = g.addInput(nhwc({1, 8, 8, 4}));
    g.addOutput(add(g, relu(g, conv(g, x, 3)), bias(g, {4})));
  }
  {
    Graph& g = nets[1];
    const ValueId x = g.addInput(nhwc({1, 8, 8, 4}));
    const ValueId c = conv(g, x, 1);
    g.addOutput(add(g, relu(g, c), relu(g, c)));
  }
  {
    Graph& g = nets[2];
    const ValueId x = g.addInput(nhwc({1, 8, 8, 4}));
    const ValueId a = add(g, relu(g, conv(g, x, 3)), bias(g, {1, 1, 1, 4}));
    g.addOutput(add(g, relu(g, conv(g, a, 3)), bias(g, {4})));
  }
  for (const Graph& g : nets) EXPECT_EQ(verifyStructure(g), std::nullopt);
  return nets;
}

struct Row {
  const char* op;
  double otc, idc, odc, sec, spc, olc;
};

// Table II, verbatim.
const Row kTable2[] = {{"Conv2d", 1.0, 1.0, 0.667, 0.333, 0.20, 0.64},
                       {"Relu", 1.0, 1.0, 0.333, 0.333, 0.10, 0.553},
                       {"Add", 1.0, 1.0, 0.667, 0.333, 0.30, 0.66}};
const Row kTable2Set = {"I", 1.0, 1.0, 0.556, 0.333, 0.20, 0.618};

void expectRow(const Row& want, double otc, double idc, double odc, double sec, double spc, double olc) {
  SCOPED_TRACE(want.op);
  EXPECT_NEAR(otc, want.otc, kHalfDigit);
  EXPECT_NEAR(idc, want.idc, kHalfDigit);
  EXPECT_NEAR(odc, want.odc, kHalfDigit);
  EXPECT_NEAR(sec, want.sec, kHalfDigit);
  EXPECT_NEAR(spc, want.spc, kHalfDigit);
  EXPECT_NEAR(olc, want.olc, kHalfDigit);
}

void expectTableTwo(const LuoReport& r) {
  ASSERT_EQ(r.ops.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const LuoOpRow& o = r.ops[i];
    ASSERT_EQ(o.op, kTable2[i].op);
    expectRow(kTable2[i], o.otc, o.idc, o.odc, o.sec, o.spc, o.olc);
  }
  expectRow(kTable2Set, r.otc, r.idc, r.odc, r.sec, r.spc, r.olc);
}

TrackerOptions tableOptions() {
  TrackerOptions o;
  o.metrics = MetricSets::Luo;
  o.luo.nMaxSpc = 10;
  return o;
}

TEST(LuoTableTwo, FromGraphIR) {
  CoverageTracker t(tableOne(), tableOptions());
  for (const Graph& g : figureThree()) EXPECT_TRUE(t.add(g));
  const LuoReport r = t.luo()->report();
  expectTableTwo(r);
  // The raw sets behind the ratios.
  EXPECT_EQ(r.ops[0].outDegrees, (std::vector<int>{1, 2}));
  EXPECT_EQ(r.ops[1].outDegrees, (std::vector<int>{1}));
  EXPECT_EQ(r.ops[2].outDegrees, (std::vector<int>{0, 1}));
  EXPECT_EQ(r.ops[0].spcVectors, 2);
  EXPECT_EQ(r.ops[1].spcVectors, 1);
  EXPECT_EQ(r.ops[2].spcVectors, 3);
  EXPECT_EQ(r.ops[0].nodes, 4);
  EXPECT_EQ(r.ops[1].nodes, 5);
  EXPECT_EQ(r.ops[2].nodes, 4);
}

TEST(LuoTableTwo, FromOnnx) {
  CoverageTracker t(tableOne(), tableOptions());
  ModelFacts facts;
  for (const Graph& g : figureThree()) {
    factsFromOnnx(exportModel(g), t.corpus(), facts);
    EXPECT_TRUE(t.add(facts));
  }
  expectTableTwo(t.luo()->report());
}

TEST(LuoTableTwo, AlgorithmOneKeepsOnlyModelsThatAddCoverage) {
  CoverageTracker t(tableOne(), tableOptions());
  const auto nets = figureThree();
  EXPECT_TRUE(t.addIfNew(nets[0]));
  EXPECT_FALSE(t.addIfNew(nets[0]));  // nothing new the second time
  EXPECT_TRUE(t.addIfNew(nets[1]));
  EXPECT_TRUE(t.addIfNew(nets[2]));
  EXPECT_EQ(t.models(), 3);
  expectTableTwo(t.luo()->report());
}

TEST(LuoTableTwo, ZeroWeightMetricsDoNotCountAsGrowth) {
  TrackerOptions o = tableOptions();
  o.luo.opWeights = {1, 1, 1, 1, 0};  // SPC ignored
  o.luo.setWeights = o.luo.opWeights;
  CoverageTracker t(tableOne(), o);
  const auto nets = figureThree();
  EXPECT_TRUE(t.add(nets[0]));
  // NN1 again with another Conv2d kernel adds only an SPC vector.
  Graph g = nets[0];
  for (NodeId n : g.nodes())
    if (g.node(n).op == "Conv2d") g.node(n).attrs.setInts("kernel_shape", {5, 5});
  EXPECT_FALSE(t.addIfNew(g));
  o.luo.opWeights = {1, 1, 1, 1, 1};
  o.luo.setWeights = o.luo.opWeights;
  CoverageTracker weighted(tableOne(), o);
  weighted.add(nets[0]);
  EXPECT_TRUE(weighted.addIfNew(g));
}

TEST(LuoTableTwo, SpcSaturatesAtNMaxSpc) {
  TrackerOptions o = tableOptions();
  o.luo.nMaxSpc = 2;
  CoverageTracker t(tableOne(), o);
  for (const Graph& g : figureThree()) t.add(g);
  const LuoReport r = t.luo()->report();
  EXPECT_DOUBLE_EQ(r.ops[2].spc, 1.0);  // 3 vectors, capped at 2 of 2
  EXPECT_EQ(r.ops[2].spcVectors, 3);
}

}  // namespace
}  // namespace nnfuzz::search
