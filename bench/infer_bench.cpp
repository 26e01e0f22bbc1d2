// infer_bench.cpp - the rule synthesiser's enumerator: building the hole bank once
// (argument: operator bound) and searching one output dim of a pooling-like record set
// ((i - k + p) / s + 1 over 5 symbols, 40 records) with a 4-operator bank.
#include <benchmark/benchmark.h>

#include "infer/enumerator.h"
#include "infer/partial_op.h"
#include "infer/rule_bank.h"
#include "infer/rule_solver.h"
#include "infer/synth.h"
#include "support/rng.h"

namespace nnfuzz::infer {
namespace {

void BM_BuildHoleBank(benchmark::State& state) {
  const int ops = static_cast<int>(state.range(0));
  size_t size = 0;
  for (auto _ : state) {
    HoleBank bank({.maxOps = ops, .maxHoles = 6});
    size = bank.size();
    benchmark::DoNotOptimize(size);
  }
  state.counters["expressions"] = static_cast<double>(size);
}
BENCHMARK(BM_BuildHoleBank)->Arg(2)->Arg(3)->Arg(4)->Unit(benchmark::kMillisecond);

std::vector<Record> poolRecords(int count) {
  Rng rng(1);
  std::vector<Record> out;
  for (int n = 0; n < count; ++n) {
    int64_t i = rng.uniformInt(4, 30), k = rng.uniformInt(1, 4), p = rng.uniformInt(0, 3), s = rng.uniformInt(1, 3);
    Record r;
    r.op = "Pool";
    r.inputs = {{1, {2, i}}};
    r.attrs["kernel"] = {AttrValue::Int, {k}, {}, {}};
    r.attrs["pads"] = {AttrValue::Int, {p}, {}, {}};
    r.attrs["stride"] = {AttrValue::Int, {s}, {}, {}};
    r.outputs = {{1, {2, (i - k + p) / s + 1}}};
    out.push_back(r);
  }
  return out;
}

void BM_SynthesizePoolRule(benchmark::State& state) {
  const HoleBank bank({.maxOps = 4, .maxHoles = 4});
  const auto records = poolRecords(40);
  const auto partials = groupPartialOps(records);
  for (auto _ : state) {
    Rule rule = synthesize(partials[0], bank, {.predicateOps = 0});
    benchmark::DoNotOptimize(rule);
  }
}
BENCHMARK(BM_SynthesizePoolRule)->Unit(benchmark::kMillisecond);

/// One concolic insertion's solving step: the committed MaxPool rule of rank 4 (the
/// symbolic partial operator with the most symbols), its input fixed, Z3 finding the
/// attributes with random hints.
void BM_SolveCommittedRule(benchmark::State& state) {
  const std::vector<DType> f32 = {DType::Float32};
  const RuleBank bank = RuleBank::load(std::string(NNFUZZ_SOURCE_DIR) + "/rules", 17, f32);
  const BankPartial* widest = nullptr;
  for (const BankPartial& p : bank.partials())
    if (p.symbolic && p.op->op == "MaxPool" && (!widest || p.rule->symbols.size() > widest->rule->symbols.size()))
      widest = &p;
  if (!widest) return state.SkipWithError("no symbolic MaxPool rule in rules/");
  const Record& pattern = *widest->records.front();
  const std::vector<std::optional<std::vector<int64_t>>> fixed = {pattern.inputs[0].shape};
  Rng rng(1);
  size_t solved = 0, tries = 0;
  for (auto _ : state) {
    auto call = solveRule(*widest->rule, pattern, fixed, {1, 5, 64}, rng);
    solved += call.has_value();
    ++tries;
    benchmark::DoNotOptimize(call);
  }
  state.counters["symbols"] = static_cast<double>(widest->rule->symbols.size());
  state.counters["solved"] = static_cast<double>(solved) / static_cast<double>(tries);
}
BENCHMARK(BM_SolveCommittedRule)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace nnfuzz::infer
