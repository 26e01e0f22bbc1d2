// implication.cpp - predicate deduplication with Z3's integer arithmetic.
#include "infer/implication.h"

#include <algorithm>

#include <z3++.h>

#include "infer/z3_encode.h"
#include "support/rng.h"

namespace nnfuzz::infer {

namespace {

using Clock = std::chrono::steady_clock;

// Z3's own timeout per query, a second line behind the opaque encoding: whatever a query
// does, it cannot take much more than this or the time left.
constexpr double kQuerySeconds = 2.0;
// Queries per deduplication: the deterministic bound (with the rlimit) that keeps a
// partial operator with hundreds of one-record predicates (TfIdfVectorizer) within the
// clock on an ordinary machine. Past it, the predicates not yet dropped are kept.
constexpr int kMaxQueries = 300;

// True when `premises` (with the background) imply `goal`; rlimit, timeout or a passed
// deadline say false.
bool implies(z3::solver& s, const std::vector<z3::expr>& premises, const z3::expr& goal, Clock::time_point deadline,
             int& queries, bool* cut) {
  if (++queries > kMaxQueries) return false;
  double left = deadline == Clock::time_point::max()
                    ? kQuerySeconds
                    : std::chrono::duration<double>(deadline - Clock::now()).count();
  if (left <= 0) {
    if (cut) *cut = true;
    return false;
  }
  const double seconds = std::min(left, kQuerySeconds);
  z3::params params(s.ctx());
  params.set("timeout", static_cast<unsigned>(1000 * seconds) + 1);
  s.set(params);
  s.push();
  for (const auto& p : premises) s.add(p);
  s.add(!goal);
  const Clock::time_point asked = Clock::now();
  z3::check_result verdict = s.check();
  s.pop();
  // Z3 4.8.12 says "canceled" for both limits: a query that ran to its timeout was cut by
  // the clock, one that stopped earlier by the (deterministic) resource limit.
  if (verdict == z3::unknown && cut && std::chrono::duration<double>(Clock::now() - asked).count() >= 0.9 * seconds)
    *cut = true;
  return verdict == z3::unsat;
}

}  // namespace

std::vector<Predicate> deduplicate(const std::vector<Predicate>& preds, std::span<const std::string> symbols,
                                   std::span<const std::vector<int64_t>> anchors, Clock::time_point deadline, bool* cut) {
  if (preds.empty()) return {};
  z3::context ctx;
  Z3Encoder enc{ctx, {}};
  enc.opaqueNonlinear = true;
  z3::solver s(ctx);
  z3::params params(ctx);
  // The resource limit decides (the verdicts, and so the rule files, must not depend on
  // the machine's load); the timeout only guards against Z3 not counting its work.
  params.set("rlimit", 20000u);
  s.set(params);
  for (const auto& name : symbols) {
    enc.symbols.push_back(ctx.int_const(name.c_str()));
    if (name[0] == 'i') s.add(enc.symbols.back() >= 0);  // input dims
  }
  std::vector<z3::expr> encoded;
  for (const auto& p : preds) encoded.push_back(enc.predicate(p));
  for (const auto& lemma : enc.lemmas) s.add(lemma);  // true of every value: background

  // Cheap witnesses first: random small assignments. A point that satisfies the premises
  // and violates the goal proves "not implied" without asking Z3.
  Rng rng(0x616c6732);
  std::vector<std::vector<int64_t>> points(2048, std::vector<int64_t>(symbols.size()));
  for (auto& point : points)
    for (size_t i = 0; i < symbols.size(); ++i) point[i] = rng.uniformInt(symbols[i][0] == 'i' ? 0 : -3, 16);
  // Points next to a record satisfy most predicates (the record satisfies all), so they
  // witness far more often than uniform ones when there are many predicates.
  for (const auto& anchor : anchors)
    for (size_t i = 0; i < anchor.size() && anchor.size() == symbols.size(); ++i)
      for (int64_t delta : {-2, -1, 1, 2, 3, 7}) {
        auto point = anchor;
        point[i] += delta;
        if (symbols[i][0] == 'i' && point[i] < 0) continue;
        points.push_back(std::move(point));
      }
  std::vector<int> violated(points.size(), 0);  // kept predicates each point violates

  // Forward pass: keep a predicate only if the ones kept so far do not imply it. The
  // solver accumulates the kept ones, so each check is one query.
  std::vector<size_t> kept;
  int queries = 0;
  s.push();
  for (size_t i = 0; i < preds.size(); ++i) {
    bool witness = false;
    for (size_t q = 0; q < points.size() && !witness; ++q) witness = violated[q] == 0 && !holds(preds[i], points[q]);
    if (!witness && implies(s, {}, encoded[i], deadline, queries, cut)) continue;
    kept.push_back(i);
    s.add(encoded[i]);
    for (size_t q = 0; q < points.size(); ++q)
      if (!holds(preds[i], points[q])) {
        ++violated[q];
      }
  }
  s.pop();

  // Algorithm 2: drop c while the others imply it, until nothing changes. A point that
  // violates c alone witnesses that the others do not imply it.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = 0; k < kept.size();) {
      bool witness = false;
      for (size_t q = 0; q < points.size() && !witness; ++q) {
        if (violated[q] != 1) continue;
        witness = !holds(preds[kept[k]], points[q]);
      }
      std::vector<z3::expr> rest;
      for (size_t j = 0; j < kept.size(); ++j)
        if (j != k) rest.push_back(encoded[kept[j]]);
      if (!witness && implies(s, rest, encoded[kept[k]], deadline, queries, cut)) {
        for (size_t q = 0; q < points.size(); ++q)
          if (!holds(preds[kept[k]], points[q])) --violated[q];
        kept.erase(kept.begin() + static_cast<long>(k));
        changed = true;
      } else {
        ++k;
      }
    }
  }
  std::vector<Predicate> out;
  for (size_t i : kept) out.push_back(preds[i]);
  return out;
}

}  // namespace nnfuzz::infer
