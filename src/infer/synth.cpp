// synth.cpp - bottom-up search for output dims and Algorithm 1 for input constraints.
#include "infer/synth.h"

#include <chrono>

#include "infer/implication.h"
#include "support/error.h"

namespace nnfuzz::infer {

bool holds(const Predicate& p, std::span<const int64_t> values) {
  auto v = evaluate(p.expr, values);
  return v && (p.equality ? *v == 0 : *v > 0);
}

std::string toText(const Predicate& p, std::span<const std::string> names) {
  return std::string(p.equality ? "0 = " : "0 < ") + toText(p.expr, names);
}

Predicate parsePredicate(const std::string& text, std::span<const std::string> names) {
  if (text.rfind("0 = ", 0) == 0) return {true, parseExpr(text.substr(4), names)};
  if (text.rfind("0 < ", 0) == 0) return {false, parseExpr(text.substr(4), names)};
  throw Error("rule predicate \"" + text + "\": expected \"0 = e\" or \"0 < e\"");
}

const char* statusName(ConstraintStatus s) {
  switch (s) {
    case ConstraintStatus::Inferred: return "inferred";
    case ConstraintStatus::PassingOnly: return "passing-only";
    case ConstraintStatus::Failed: return "failed";
  }
  return "?";
}

bool Rule::shapeInferred() const {
  for (const auto& o : outputs)
    if (!o) return false;
  return true;
}

namespace {

using Clock = std::chrono::steady_clock;

// The instantiation of one hole expression: every ascending choice of h of n symbols.
template <typename F>
bool forEachCombination(int n, int h, F&& f) {
  if (h > n) return true;
  std::vector<uint16_t> pick(h);
  for (int i = 0; i < h; ++i) pick[i] = static_cast<uint16_t>(i);
  for (;;) {
    if (!f(std::span<const uint16_t>(pick))) return false;
    int i = h - 1;
    while (i >= 0 && pick[i] == n - h + i) --i;
    if (i < 0) return true;
    ++pick[i];
    for (int j = i + 1; j < h; ++j) pick[j] = static_cast<uint16_t>(pick[j - 1] + 1);
  }
}

// Candidates counted per phase; the deadline is shared by all phases of a partial operator.
struct Budget {
  const SynthLimits& limits;
  Clock::time_point deadline;
  bool* cut;
  uint64_t used = 0;
  bool spent() {
    ++used;
    if (limits.maxCandidates && used > limits.maxCandidates) return true;
    if ((used & 1023) == 0 && Clock::now() > deadline) {
      *cut = true;
      return true;
    }
    return false;
  }
};

bool matchesAll(const Expr& e, std::span<const uint16_t> map, const std::vector<std::vector<int64_t>>& rows,
                const std::vector<int64_t>& targets) {
  for (size_t r = 0; r < rows.size(); ++r) {
    auto v = evaluate(e, rows[r], map);
    if (!v || *v != targets[r]) return false;
  }
  return true;
}

std::optional<Expr> searchDim(const HoleBank& bank, int nSymbols, const std::vector<std::vector<int64_t>>& rows,
                              const std::vector<int64_t>& targets, Budget& budget) {
  std::optional<Expr> found;
  for (int ops = 0; ops <= bank.maxOps() && !found; ++ops) {
    for (const HoleExpr& he : bank.withOps(ops)) {
      bool more = forEachCombination(nSymbols, he.holes, [&](std::span<const uint16_t> map) {
        if (budget.spent()) return false;
        if (!matchesAll(he.expr, map, rows, targets)) return true;
        found = substitute(he.expr, map);
        return false;
      });
      if (found || !more) break;
    }
    if (!found && (budget.limits.maxCandidates && budget.used > budget.limits.maxCandidates)) break;
  }
  return found;
}

}  // namespace

Rule synthesize(const PartialOp& p, const HoleBank& bank, const SynthLimits& limits, ReuseCache* reuse) {
  Rule rule;
  std::vector<std::vector<int64_t>> rows, outs, counter;
  for (const Record* r : p.passing) {
    rows.push_back(symbolValues(*r));
    outs.push_back(outputValues(*r));
  }
  for (const Record* r : p.counterExamples) counter.push_back(symbolValues(*r));
  const int n = static_cast<int>(p.symbols.size());

  const Clock::time_point deadline =
      limits.seconds > 0 ? Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double>(limits.seconds))
                         : Clock::time_point::max();
  // Shape propagation, one output dim at a time.
  Budget budget{limits, deadline, &rule.cutByClock};
  for (size_t d = 0; d < p.outputs.size(); ++d) {
    std::vector<int64_t> targets;
    for (const auto& o : outs) targets.push_back(o[d]);
    std::optional<Expr> found;
    if (reuse) {
      for (const auto& [form, e] : reuse->found)
        if (form == p.symbols && matchesAll(e, {}, rows, targets)) {
          found = e;
          break;
        }
    }
    if (!found) {
      found = searchDim(bank, n, rows, targets, budget);
      if (found && reuse) reuse->found.push_back({p.symbols, *found});
    }
    rule.outputs.push_back(found);
  }

  if (counter.empty() && limits.augmented) {
    rule.constraintStatus = ConstraintStatus::Inferred;
    return rule;
  }

  // Algorithm 1: predicates every passing record satisfies.
  std::vector<Predicate> kept;
  Budget predBudget{limits, deadline, &rule.cutByClock};
  bool spent = false;
  for (int ops = 0; ops <= std::min(limits.predicateOps, bank.maxOps()) && !spent; ++ops) {
    for (const HoleExpr& he : bank.withOps(ops)) {
      if (he.holes == 0) continue;  // 0 = 1, 0 < 2: no symbol, no constraint
      bool more = forEachCombination(n, he.holes, [&](std::span<const uint16_t> map) {
        if (predBudget.spent()) return false;
        Expr e = substitute(he.expr, map);
        for (bool equality : {true, false}) {
          Predicate c{equality, e};
          bool all = true;
          for (const auto& row : rows)
            if (!holds(c, row)) {
              all = false;
              break;
            }
          if (all) kept.push_back(std::move(c));
        }
        return true;
      });
      if (!more) {
        spent = true;
        break;
      }
    }
  }
  // The conjunction must reject every counter-example (checked before deduplication,
  // which keeps the conjunction's meaning).
  rule.constraintStatus = counter.empty() ? ConstraintStatus::PassingOnly : ConstraintStatus::Inferred;
  for (const auto& row : counter) {
    bool accepted = true;
    for (const Predicate& c : kept)
      if (!holds(c, row)) {
        accepted = false;
        break;
      }
    if (accepted) {
      rule.constraintStatus = ConstraintStatus::Failed;
      break;
    }
  }
  if (rule.constraintStatus != ConstraintStatus::Failed) rule.constraints = deduplicate(kept, p.symbols, rows, deadline, &rule.cutByClock);
  return rule;
}

}  // namespace nnfuzz::infer
