// isra_metrics_test.cpp - Isra's metrics on tiny graphs, expectations computed by hand
// from criterion.py's rules (see isra_coverage.h).
#include <gtest/gtest.h>

#include "onnx/export.h"
#include "search/coverage_tracker.h"
#include "search/test_util.h"

namespace nnfuzz::search {
namespace {

using testing::OnnxBuilder;

// n_C = 8.
BlockCorpus tinyCorpus() {
  return BlockCorpus({{"Relu", {1}, {1}, {}, {}},
                      {"Add", {2}, {1}, {}, {}},
                      {"Sigmoid", {1}, {1}, {}, {}},
                      {"Sum", {1, 2, 3, 4, 5}, {1}, {}, {}},
                      {"Split", {1, 2}, {1}, {}, {}},
                      {"Flatten", {1}, {1}, {}, {}},
                      {"Concat", {2, 3}, {1}, {}, {}},
                      {"Clip", {1, 2, 3}, {1}, {}, {}}});
}
constexpr double kNc = 8;

TrackerOptions israOnly() {
  TrackerOptions o;
  o.metrics = MetricSets::Isra;
  return o;
}

const IsraOpRow& row(const IsraReport& r, const std::string& op) {
  for (const auto& o : r.ops)
    if (o.op == op) return o;
  throw std::runtime_error("no row " + op);
}

// G1: r = Relu(x); a = Add(r, r); s = Sigmoid(a); u = Foo(a); outputs s, u.
// Foo is outside the corpus.
Graph graphOne() {
  Graph g;
  const TensorType t{DType::Float32, {2, 3}};
  const ValueId x = g.addInput(t);
  const ValueId r = g.node(g.addNode("Relu", {x}, {}, {t})).outputs[0];
  const ValueId a = g.node(g.addNode("Add", {r, r}, {}, {t})).outputs[0];
  g.addOutput(g.node(g.addNode("Sigmoid", {a}, {}, {t})).outputs[0]);
  g.addOutput(g.node(g.addNode("Foo", {a}, {}, {t})).outputs[0]);
  return g;
}

TEST(IsraMetrics, GraphOneByHand) {
  CoverageTracker t(tinyCorpus(), israOnly());
  EXPECT_TRUE(t.add(graphOne()));
  const IsraReport r = t.isra()->report();
  // Relu: in 1; out: r used twice by Add -> 2; feeds Add; Add feeds Sigmoid (Foo is not counted).
  EXPECT_EQ(row(r, "Relu").inDegrees, (std::vector<int>{1}));
  EXPECT_EQ(row(r, "Relu").outDegrees, (std::vector<int>{2}));
  EXPECT_EQ(row(r, "Relu").successors, 1);
  EXPECT_EQ(row(r, "Relu").pairs, 1);
  // Add: out = 2 uses - 1 use by Foo = 1; its successor Sigmoid feeds only a graph output.
  EXPECT_EQ(row(r, "Add").inDegrees, (std::vector<int>{2}));
  EXPECT_EQ(row(r, "Add").outDegrees, (std::vector<int>{1}));
  EXPECT_EQ(row(r, "Add").successors, 1);
  EXPECT_EQ(row(r, "Add").pairs, 0);
  // Sigmoid: a graph output counts as one out-degree.
  EXPECT_EQ(row(r, "Sigmoid").outDegrees, (std::vector<int>{1}));
  EXPECT_EQ(row(r, "Sigmoid").successors, 0);
  for (const char* op : {"Relu", "Add", "Sigmoid"}) {
    EXPECT_EQ(row(r, op).attributes, 0) << op;
    EXPECT_EQ(row(r, op).shapes, 1) << op;
  }
  EXPECT_DOUBLE_EQ(r.otc, 3 / kNc);
  EXPECT_DOUBLE_EQ(r.idc, 3 / kNc);
  EXPECT_DOUBLE_EQ(r.odc, 3 / kNc);
  EXPECT_DOUBLE_EQ(r.sec, (1 / kNc + 1 / kNc) / kNc);
  EXPECT_DOUBLE_EQ(r.dec, (1 / (kNc * kNc)) / kNc);
  EXPECT_DOUBLE_EQ(r.sac, 3 / kNc);
  EXPECT_DOUBLE_EQ(r.noo, 3);  // Foo is not a corpus node
  EXPECT_DOUBLE_EQ(r.notypes, 3);
  EXPECT_DOUBLE_EQ(r.nop, 2);  // (Relu,Add) (Add,Sigmoid)
  EXPECT_DOUBLE_EQ(r.ntr, 1);  // (Relu,Add,Sigmoid)
  EXPECT_DOUBLE_EQ(r.nsa, 1);  // every operand is [2,3]; no attributes
  EXPECT_EQ(t.unknownOps().at("Foo"), 1);
}

// G2, as an ONNX file: Isra's output tail, a consumed graph output, an empty operand, a
// variadic op over the in-degree cap and an op below its corpus minimum.
//   c = Sum(x, w, x, w, x, w)            [1,4]
//   p, q = Split(c) {axis=1}             [1,2] each; p is a graph output
//   k = Concat(p) {axis=0}               consumes the graph output p
//   y = Clip(k, "", m)                   m: scalar initializer
//   f = Flatten(q) named flatten_node_0  Isra's tail: skipped
//   outputs p, y, f
OnnxBuilder graphTwo(bool declareIntermediates) {
  OnnxBuilder b;
  b.input("x", {1, 4}).initializer("w", {1, 4}).initializer("m", {});
  b.node("Sum", {"x", "w", "x", "w", "x", "w"}, {"c"}, "sum0");
  OnnxBuilder::intAttr(b.node("Split", {"c"}, {"p", "q"}, "split0"), "axis", 1);
  OnnxBuilder::intAttr(b.node("Concat", {"p"}, {"k"}, "concat0"), "axis", 0);
  b.node("Clip", {"k", "", "m"}, {"y"}, "clip0");
  OnnxBuilder::intAttr(b.node("Flatten", {"q"}, {"f"}, "flatten_node_0"), "axis", 0);
  if (declareIntermediates) b.valueInfo("c", {1, 4}).valueInfo("q", {1, 2}).valueInfo("k", {1, 2});
  b.output("p", {1, 2}).output("y", {1, 2}).output("f", {1, 2});
  return b;
}

TEST(IsraMetrics, GraphTwoByHand) {
  CoverageTracker t(tinyCorpus(), israOnly());
  ModelFacts facts;
  factsFromOnnx(graphTwo(true).model(), t.corpus(), facts);
  t.add(facts);
  const IsraReport r = t.isra()->report();
  EXPECT_EQ(row(r, "Sum").inDegrees, (std::vector<int>{5}));     // 6 operands, capped
  EXPECT_EQ(row(r, "Concat").inDegrees, (std::vector<int>{2}));  // 1 operand, raised to the corpus minimum
  EXPECT_EQ(row(r, "Clip").inDegrees, (std::vector<int>{2}));    // the empty operand is dropped
  EXPECT_EQ(row(r, "Split").outDegrees, (std::vector<int>{2}));  // p (graph output) 1 + q 1
  EXPECT_EQ(row(r, "Split").successors, 0);  // p's consumer is invisible, q's is the tail
  EXPECT_EQ(row(r, "Sum").successors, 1);
  EXPECT_EQ(row(r, "Sum").pairs, 0);
  EXPECT_EQ(row(r, "Concat").successors, 1);
  EXPECT_EQ(row(r, "Flatten").nodes, 0);
  EXPECT_EQ(row(r, "Split").attributes, 1);
  EXPECT_EQ(row(r, "Concat").shapes, 1);  // p read as []
  EXPECT_EQ(row(r, "Clip").shapes, 2);    // [1,2] and []
  EXPECT_DOUBLE_EQ(r.otc, 4 / kNc);
  EXPECT_DOUBLE_EQ(r.idc, (1.0 / 5 + 1.0 / 2 + 1.0 / 2 + 1.0 / 3) / kNc);
  EXPECT_DOUBLE_EQ(r.odc, 4 / kNc);
  EXPECT_DOUBLE_EQ(r.sec, (2 / kNc) / kNc);
  EXPECT_DOUBLE_EQ(r.dec, 0);
  EXPECT_DOUBLE_EQ(r.sac, (1 + 2 + 2 + 2) / kNc);
  EXPECT_DOUBLE_EQ(r.noo, 4);
  EXPECT_DOUBLE_EQ(r.notypes, 4);
  EXPECT_DOUBLE_EQ(r.nop, 2);  // (Sum,Split) (Concat,Clip); Split->Concat goes through p
  EXPECT_DOUBLE_EQ(r.ntr, 0);
  EXPECT_DOUBLE_EQ(r.nsa, 3 + 2);  // shapes [1,4] [] [1,2]; attribute lists of Split and Concat
}

TEST(IsraMetrics, ShapesComeFromInferenceAsIsraSeesThem) {
  // Without value_info, ONNX inference supplies the shapes. Luo's shape of k is the true
  // one; Isra's script infers on a copy whose graph output p is renamed, so it cannot
  // infer Concat and reads k as [].
  const BlockCorpus corpus = tinyCorpus();
  ModelFacts facts;
  factsFromOnnx(graphTwo(false).model(), corpus, facts);
  const auto& clip = facts.nodes[3];
  ASSERT_EQ(clip.op, corpus.opIndex("Clip"));
  const auto& k = facts.values[facts.operands[clip.operandBegin]];
  EXPECT_EQ(k.shape, shapeDigest(std::vector<int64_t>{1, 2}));
  EXPECT_EQ(k.israShape, shapeDigest({}));
  const auto& sum = facts.nodes[0];
  EXPECT_EQ(facts.values[facts.results[sum.resultBegin]].israShape, shapeDigest(std::vector<int64_t>{1, 4}));

  CoverageTracker t(corpus, israOnly());
  t.add(facts);
  const IsraReport r = t.isra()->report();
  EXPECT_EQ(row(r, "Clip").shapes, 1);       // k and m both read as []
  EXPECT_DOUBLE_EQ(r.nsa, 2 + 2);            // [1,4] and []
}

TEST(IsraMetrics, OutDegreeIsCappedAtTwelve) {
  Graph g;
  const TensorType t{DType::Float32, {3}};
  const ValueId r = g.node(g.addNode("Relu", {g.addInput(t)}, {}, {t})).outputs[0];
  for (int i = 0; i < 13; ++i) g.addOutput(g.node(g.addNode("Sigmoid", {r}, {}, {t})).outputs[0]);
  CoverageTracker tracker(tinyCorpus(), israOnly());
  tracker.add(g);
  EXPECT_EQ(row(tracker.isra()->report(), "Relu").outDegrees, (std::vector<int>{12}));
}

TEST(IsraMetrics, AttributeListsAreComparedInWrittenOrder) {
  // Isra compares attribute lists as written; Luo's parameters are a set.
  auto model = [](bool swapped) {
    OnnxBuilder b;
    b.input("x", {2, 4});
    auto& n = b.node("Split", {"x"}, {"p", "q"});
    OnnxBuilder::intAttr(n, swapped ? "num_outputs" : "axis", swapped ? 2 : 1);
    OnnxBuilder::intAttr(n, swapped ? "axis" : "num_outputs", swapped ? 1 : 2);
    b.output("p", {2, 2}).output("q", {2, 2});
    return b.model();
  };
  CoverageTracker t(tinyCorpus());
  ModelFacts facts;
  factsFromOnnx(model(false), t.corpus(), facts);
  EXPECT_TRUE(t.add(facts));
  factsFromOnnx(model(true), t.corpus(), facts);
  EXPECT_TRUE(t.add(facts));  // a new attribute list for Isra
  EXPECT_EQ(row(t.isra()->report(), "Split").attributes, 2);
  for (const auto& o : t.luo()->report().ops) {
    if (o.op == "Split") {
      EXPECT_EQ(o.spcVectors, 1);
    }
  }
}

TEST(IsraMetrics, IncrementalAndOrderDependentNsa) {
  CoverageTracker t(tinyCorpus(), israOnly());
  ModelFacts facts;
  factsFromOnnx(graphTwo(true).model(), t.corpus(), facts);
  EXPECT_TRUE(t.grows(facts));
  EXPECT_TRUE(t.add(facts));
  EXPECT_FALSE(t.grows(facts));
  EXPECT_FALSE(t.add(facts));  // the same model again adds nothing...
  const IsraReport r = t.isra()->report();
  EXPECT_EQ(r.models, 2);
  EXPECT_DOUBLE_EQ(r.noo, 4);
  EXPECT_DOUBLE_EQ(r.nsa, (5 + 3) / 2.0);  // ...and its attribute lists are no longer new
  EXPECT_DOUBLE_EQ(r.sac, (1 + 2 + 2 + 2) / kNc);
  EXPECT_FALSE(t.addIfNew(facts));
  EXPECT_EQ(t.models(), 2);
}

}  // namespace
}  // namespace nnfuzz::search
