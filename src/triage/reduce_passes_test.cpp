// reduce_passes_test.cpp - each reduction pass alone on a fixed graph (golden text), and the
// scheduler's invariants: progress, the cache of tried variants, refused variants, stuck passes.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "ops/infer_node.h"
#include "triage/reduce_schedule.h"
#include "triage/reduce_variant.h"

namespace nnfuzz {
namespace {

// A case from text; the inputs are 0.25, 0.5, ... in order (values every test operator takes).
SubCase caseWithQuarters(const char* text) {
  SubCase c;
  c.graph = parseGraph(text);
  for (ValueId v : c.graph.inputs()) {
    Tensor t(c.graph.value(v).type);
    for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = roundTo(t.type.dtype, 0.25 * static_cast<double>(i + 1));
    c.inputs.push_back(std::move(t));
  }
  return c;
}

// Runs one pass alone; every case the predicate sees must verify and carry the reference's outputs.
PassReduction runPass(std::function<std::unique_ptr<ReducePass>()> make, const SubCase& start,
                      const std::function<bool(const SubCase&)>& holds, size_t maxTries = 64) {
  return reduceWithPasses(start, [&](const SubCase& sub) {
    EXPECT_EQ(verifyGraph(sub.graph), std::nullopt) << printGraph(sub.graph);
    const auto settled = settleVariant(sub);
    EXPECT_TRUE(settled.has_value());
    if (settled) {
      EXPECT_EQ(settled->sub.expected, sub.expected);
    }
    return holds(sub);
  }, maxTries, {{0, std::move(make)}});
}

TEST(ReducePasses, RemoveOutputsKeepsTheOneTheBugNeeds) {
  const SubCase c = caseWithQuarters(R"(graph {
  %0 = input f32[3]
  %1 = Relu(%0) : f32[3]
  %2 = Sigmoid(%0) : f32[3]
  return %1, %2
}
)");
  const auto r = runPass(makeRemoveOutputsPass, c, [](const SubCase& s) { return containsOp(s.graph, "Sigmoid"); });
  EXPECT_EQ(printGraph(r.reduced.graph), R"(graph {
  %0 = input f32[3]
  %1 = Sigmoid(%0) : f32[3]
  return %1
}
)");
  EXPECT_EQ(r.reports[0].kept, 1u);
}

TEST(ReducePasses, ConstantOperandKeepsAProducerTheBugNeeds) {
  const SubCase c = caseWithQuarters(R"(graph {
  %0 = input f32[2]
  %1 = Exp(%0) : f32[2]
  %2 = Neg(%1) : f32[2]
  return %2
}
)");
  // The bug needs Neg's operand computed (like OpenVINO's PRelu with a computed slope).
  const auto r = runPass(makeConstantOperandPass, c, [](const SubCase& s) {
    for (NodeId n : s.graph.nodes())
      if (s.graph.node(n).op == "Neg") return s.graph.value(s.graph.node(n).inputs[0]).kind == ValueKind::Result;
    return false;
  });
  EXPECT_EQ(printGraph(r.reduced.graph), R"(graph {
  %0 = weight f32[2] [0.25, 0.5]
  %1 = Exp(%0) : f32[2]
  %2 = Neg(%1) : f32[2]
  return %2
}
)");
  EXPECT_TRUE(r.reduced.inputs.empty());
  // Without that need, the producer goes too.
  const auto all = runPass(makeConstantOperandPass, c, [](const SubCase& s) { return containsOp(s.graph, "Neg"); });
  EXPECT_EQ(all.reduced.graph.numNodes(), 1u);
}

TEST(ReducePasses, ShrinkDimsShrinksAgreeingDimsTogether) {
  const SubCase c = caseWithQuarters(R"(graph {
  %0 = input f32[2,3]
  %1 = weight f32[3,4] [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0]
  %2 = MatMul(%0, %1) : f32[2,4]
  return %2
}
)");
  const auto r = runPass(makeShrinkDimsPass, c, [](const SubCase& s) { return containsOp(s.graph, "MatMul"); });
  EXPECT_EQ(printGraph(r.reduced.graph), R"(graph {
  %0 = input f32[1,1]
  %1 = weight f32[1,1] [1.0]
  %2 = MatMul(%0, %1) : f32[1,1]
  return %2
}
)");
  // A bug that needs the inner dim above 1 keeps it, at the smallest size tried that shows it.
  const auto inner = runPass(makeShrinkDimsPass, c, [](const SubCase& s) {
    return s.graph.value(s.graph.inputs()[0]).type.shape[1] > 1;
  });
  EXPECT_EQ(printGraph(inner.reduced.graph), R"(graph {
  %0 = input f32[1,3]
  %1 = weight f32[3,1] [1.0, 5.0, 9.0]
  %2 = MatMul(%0, %1) : f32[1,1]
  return %2
}
)");
}

TEST(ReducePasses, ShrinkRanksDropsUnitAxes) {
  const SubCase c = caseWithQuarters(R"(graph {
  %0 = input f32[1,3]
  %1 = weight f32[1,3] [1.0, 2.0, 3.0]
  %2 = Add(%0, %1) : f32[1,3]
  return %2
}
)");
  const auto r = runPass(makeShrinkRanksPass, c, [](const SubCase& s) { return containsOp(s.graph, "Add"); });
  EXPECT_EQ(printGraph(r.reduced.graph), R"(graph {
  %0 = input f32[3]
  %1 = weight f32[3] [1.0, 2.0, 3.0]
  %2 = Add(%0, %1) : f32[3]
  return %2
}
)");
}

TEST(ReducePasses, ResetAttributesKeepsOnlyWhatMattersAndWhatIsRequired) {
  const SubCase c = caseWithQuarters(R"(graph {
  %0 = input f32[2,3]
  %1 = Softmax(%0) {axis=0} : f32[2,3]
  %2 = LeakyRelu(%1) {alpha=0.5} : f32[2,3]
  %3 = Cast(%2) {to=11} : f64[2,3]
  return %3
}
)");
  // The bug needs LeakyRelu's alpha; Softmax's axis may go; Cast's `to` is required.
  const auto r = runPass(makeResetAttributesPass, c, [](const SubCase& s) {
    for (NodeId n : s.graph.nodes())
      if (s.graph.node(n).op == "LeakyRelu") return s.graph.node(n).attrs.has("alpha");
    return false;
  });
  EXPECT_EQ(printGraph(r.reduced.graph), R"(graph {
  %0 = input f32[2,3]
  %1 = Softmax(%0) : f32[2,3]
  %2 = LeakyRelu(%1) {alpha=0.5} : f32[2,3]
  %3 = Cast(%2) {to=11} : f64[2,3]
  return %3
}
)");
  EXPECT_EQ(r.reports[0].invalid, 1u);  // Cast without `to`: refused before the predicate
}

TEST(ReducePasses, NarrowDtypesNarrowsOperandsThatMustAgreeTogether) {
  const SubCase c = caseWithQuarters(R"(graph {
  %0 = input f64[2]
  %1 = weight f64[2] [1.5, 2.5]
  %2 = Add(%0, %1) : f64[2]
  %3 = weight i64[2] [3, 4]
  %4 = Neg(%3) : i64[2]
  return %2, %4
}
)");
  const auto r = runPass(makeNarrowDtypesPass, c, [](const SubCase& s) { return containsOp(s.graph, "Add"); });
  EXPECT_EQ(printGraph(r.reduced.graph), R"(graph {
  %0 = input f32[2]
  %1 = weight f32[2] [1.5, 2.5]
  %2 = weight i32[2] [3, 4]
  %3 = Add(%0, %1) : f32[2]
  %4 = Neg(%2) : i32[2]
  return %3, %4
}
)");
}

TEST(ReducePasses, SimplifyValuesPrefersZerosThenOnesThenSmallIntegers) {
  const SubCase c = caseWithQuarters(R"(graph {
  %0 = input f32[3]
  %1 = weight f32[3] [0.6, -1.7, 2.2]
  %2 = weight f32[3] [0.3, 0.9, 3.6]
  %3 = Mul(%0, %1) : f32[3]
  %4 = Add(%3, %2) : f32[3]
  return %4
}
)");
  // The bug needs Mul's weight non-zero; anything goes for the rest.
  const auto r = runPass(makeSimplifyValuesPass, c, [](const SubCase& s) {
    const ValueId w = s.graph.weights()[0];
    for (double x : s.graph.value(w).data->data)
      if (x == 0) return false;
    return true;
  });
  EXPECT_EQ(printGraph(r.reduced.graph), R"(graph {
  %0 = input f32[3]
  %1 = weight f32[3] [1.0, 1.0, 1.0]
  %2 = weight f32[3] [0.0, 0.0, 0.0]
  %3 = Mul(%0, %1) : f32[3]
  %4 = Add(%3, %2) : f32[3]
  return %4
}
)");
  EXPECT_EQ(r.reduced.inputs[0].data, (std::vector<double>{0, 0, 0}));
}

TEST(ReducePasses, NonFiniteVariantsNeverReachThePredicate) {
  const SubCase c = caseWithQuarters(R"(graph {
  %0 = weight f32[2] [0.5, 2.0]
  %1 = Log(%0) : f32[2]
  return %1
}
)");
  size_t calls = 0;
  const auto r = runPass(makeSimplifyValuesPass, c, [&](const SubCase& s) {
    ++calls;
    for (double x : s.expected[0].data) EXPECT_TRUE(std::isfinite(x));
    return true;
  });
  EXPECT_EQ(printGraph(r.reduced.graph), R"(graph {
  %0 = weight f32[2] [1.0, 1.0]
  %1 = Log(%0) : f32[2]
  return %1
}
)");
  EXPECT_EQ(r.reports[0].invalid, 1u);  // zeros: log(0) = -inf
  EXPECT_EQ(calls, 1u);
}

// A pass that claims a change and makes none, and one that only makes cases bigger.
class Idle final : public ReducePass {
 public:
  std::string_view name() const override { return "idle"; }
  size_t instances(const SubCase&) const override { return 2; }
  bool transform(SubCase&, const std::vector<Tensor>&, size_t) const override { return true; }
};
class Grow final : public ReducePass {
 public:
  std::string_view name() const override { return "grow"; }
  size_t instances(const SubCase&) const override { return 1; }
  bool transform(SubCase& c, const std::vector<Tensor>&, size_t) const override {
    const ValueId out = c.graph.outputs()[0];
    const NodeId n = c.graph.addNode("Relu", {out}, {}, {c.graph.value(out).type});
    c.graph.setOutputs({c.graph.node(n).outputs[0]});
    return true;
  }
};

TEST(ReduceSchedule, StuckAndGrowingPassesCostNoTries) {
  const SubCase c = caseWithQuarters(R"(graph {
  %0 = input f32[2]
  %1 = Relu(%0) : f32[2]
  return %1
}
)");
  size_t calls = 0;
  const auto r = reduceWithPasses(c, [&](const SubCase&) { return ++calls, true; }, 10,
                                  {{1, [] { return std::make_unique<Idle>(); }},
                                   {2, [] { return std::make_unique<Grow>(); }}});
  EXPECT_EQ(calls, 0u);
  EXPECT_FALSE(r.changed);
  EXPECT_TRUE(r.finished);
  EXPECT_EQ(r.reports[0].name, "idle");
  EXPECT_EQ(r.reports[0].noChange, 2u);
  EXPECT_EQ(r.reports[1].tries, 0u);
}

TEST(ReduceSchedule, EachVariantIsTriedOnceAndPrioritiesOrderThePasses) {
  const SubCase c = caseWithQuarters(R"(graph {
  %0 = input f32[4,4]
  %1 = Relu(%0) : f32[4,4]
  return %1
}
)");
  std::set<uint64_t> seen;
  size_t calls = 0;
  const auto r = reduceWithPasses(c, [&](const SubCase& s) {
    ++calls;
    EXPECT_TRUE(seen.insert(caseHash(s)).second) << printGraph(s.graph);
    return false;  // nothing smaller shows the bug: every edit is tried once, then the rounds end
  }, 100, {{20, makeShrinkDimsPass}, {10, makeConstantOperandPass}});
  EXPECT_EQ(r.reports[0].name, "constant-operand");
  EXPECT_TRUE(r.finished);
  EXPECT_EQ(calls, r.tries);
  // input -> weight; both dims 4 -> 1 or -> 2; each axis alone -> 1 or -> 2
  EXPECT_EQ(calls, 1u + 2u + 4u);
}

}  // namespace
}  // namespace nnfuzz
