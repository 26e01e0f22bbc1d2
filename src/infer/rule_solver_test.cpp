// rule_solver_test.cpp - solving rules for the symbols a model leaves free, and the rule
// bank's filters over the committed rules/.
#include <gtest/gtest.h>

#include <set>

#include "infer/rule_bank.h"
#include "infer/rule_solver.h"

namespace nnfuzz::infer {
namespace {

// A pooling-like partial operator: o = (i - k) / s + 1, with k <= i and s >= 1.
PartialRule poolRule() {
  PartialRule p;
  p.signature = "Pool in=1 kernel strides out=1";
  p.symbols = {"i0_0", "a.kernel", "a.strides"};
  p.outputs = {"o0_0"};
  p.outputRanks = {1};
  p.rule.outputs = {parseExpr("(i0_0 - a.kernel) / a.strides + 1", p.symbols)};
  p.rule.constraints = {parsePredicate("0 < a.strides", p.symbols), parsePredicate("0 < a.kernel", p.symbols)};
  Record r;
  r.op = "Pool";
  r.opset = 17;
  r.inputs = {{1, {8}}};
  r.outputs = {{1, {3}}};
  r.attrs["kernel"] = {AttrValue::Int, {3}, {}, {}};
  r.attrs["strides"] = {AttrValue::Int, {2}, {}, {}};
  p.records = {r};
  return p;
}

TEST(RuleSolver, SolutionsMeetTheRuleAndKeepFixedDims) {
  const PartialRule p = poolRule();
  Rng rng(1);
  std::set<std::pair<int64_t, int64_t>> seen;
  for (int i = 0; i < 40; ++i) {
    const std::vector<std::optional<std::vector<int64_t>>> fixed = {std::vector<int64_t>{7}};
    const auto call = solveRule(p, p.records[0], fixed, {1, 5, 20}, rng);
    ASSERT_TRUE(call);
    EXPECT_EQ(call->inputs[0].shape, std::vector<int64_t>{7});
    const int64_t k = call->attrs.at("kernel").ints[0], s = call->attrs.at("strides").ints[0];
    EXPECT_GE(k, 1);
    EXPECT_GE(s, 1);
    EXPECT_LE(k, 7);
    EXPECT_LE(s, 4);  // the records' range, widened by 2
    EXPECT_EQ(call->outputs[0].shape[0], (7 - k) / s + 1);
    seen.insert({k, s});
  }
  EXPECT_GT(seen.size(), 3u);  // the random hints spread the solutions
}

TEST(RuleSolver, FreeInputsStayWithinBoundsAndUnsatisfiableGivesNothing) {
  const PartialRule p = poolRule();
  Rng rng(2);
  const std::vector<std::optional<std::vector<int64_t>>> free = {std::nullopt};
  const auto call = solveRule(p, p.records[0], free, {2, 4, 20}, rng);
  ASSERT_TRUE(call);
  EXPECT_GE(call->inputs[0].shape[0], 2);
  EXPECT_LE(call->inputs[0].shape[0], 4);
  // Kernels start at 1, so an input of 0 leaves no output dim >= 1.
  const std::vector<std::optional<std::vector<int64_t>>> empty = {std::vector<int64_t>{0}};
  EXPECT_FALSE(solveRule(p, p.records[0], empty, {1, 5, 20}, rng));
}

TEST(RuleBank, CommittedRulesGiveSymbolicAndConcreteOperators) {
  const std::vector<DType> f32 = {DType::Float32};
  const RuleBank bank = RuleBank::load(std::string(NNFUZZ_SOURCE_DIR) + "/rules", 17, f32);
  const auto summary = bank.summary();
  EXPECT_GT(summary.at("operators").get<int>(), 0);
  EXPECT_GT(summary.at("symbolic_partial_operators").get<int>(), 0);
  for (const RecordOperand& ro : bank.allOperands()) {
    EXPECT_TRUE(ro.record->domain.empty());
    for (const TensorSig& s : ro.record->inputs) {
      if (!s.present()) continue;
      EXPECT_EQ(s.elemType, 1) << ro.record->source;  // float32 only
    }
  }
  // The type index finds what the records take.
  const RecordOperand& first = bank.allOperands().front();
  const auto same = bank.operandsOfType(tensorTypeOf(first.record->inputs[static_cast<size_t>(first.input)]));
  EXPECT_FALSE(same.empty());
  const std::vector<DType> bools = {DType::Bool};
  const RuleBank boolBank = RuleBank::load(std::string(NNFUZZ_SOURCE_DIR) + "/rules", 17, bools);
  EXPECT_LT(boolBank.allOperands().size(), bank.allOperands().size());
  for (const RecordOperand& ro : boolBank.allOperands())
    EXPECT_EQ(ro.record->inputs[static_cast<size_t>(ro.input)].elemType, 9) << ro.record->source;  // bool only
}

}  // namespace
}  // namespace nnfuzz::infer
