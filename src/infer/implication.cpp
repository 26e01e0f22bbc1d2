// implication.cpp - predicate deduplication with Z3's integer arithmetic.
#include "infer/implication.h"

#include <z3++.h>

#include "infer/z3_encode.h"
#include "support/rng.h"

namespace nnfuzz::infer {

namespace {

// True when `premises` (with the background) imply `goal`; a timeout says false.
bool implies(z3::solver& s, const std::vector<z3::expr>& premises, const z3::expr& goal) {
  s.push();
  for (const auto& p : premises) s.add(p);
  s.add(!goal);
  bool proved = s.check() == z3::unsat;
  s.pop();
  return proved;
}

}  // namespace

std::vector<Predicate> deduplicate(const std::vector<Predicate>& preds, std::span<const std::string> symbols) {
  if (preds.empty()) return {};
  z3::context ctx;
  Z3Encoder enc{ctx, {}};
  z3::solver s(ctx);
  z3::params params(ctx);
  // A resource limit, not a timeout: the verdicts (and so the rule files) must not depend
  // on the machine's load.
  params.set("rlimit", 20000u);
  s.set(params);
  for (const auto& name : symbols) {
    enc.symbols.push_back(ctx.int_const(name.c_str()));
    if (name[0] == 'i') s.add(enc.symbols.back() >= 0);  // input dims
  }
  std::vector<z3::expr> encoded;
  for (const auto& p : preds) encoded.push_back(enc.predicate(p));

  // Cheap witnesses first: random small assignments. A point that satisfies the premises
  // and violates the goal proves "not implied" without asking Z3.
  Rng rng(0x616c6732);
  std::vector<std::vector<int64_t>> points(2048, std::vector<int64_t>(symbols.size()));
  for (auto& point : points)
    for (size_t i = 0; i < symbols.size(); ++i) point[i] = rng.uniformInt(symbols[i][0] == 'i' ? 0 : -3, 16);
  std::vector<int> violated(points.size(), 0);  // kept predicates each point violates

  // Forward pass: keep a predicate only if the ones kept so far do not imply it. The
  // solver accumulates the kept ones, so each check is one query.
  std::vector<size_t> kept;
  s.push();
  for (size_t i = 0; i < preds.size(); ++i) {
    bool witness = false;
    for (size_t q = 0; q < points.size() && !witness; ++q) witness = violated[q] == 0 && !holds(preds[i], points[q]);
    if (!witness && implies(s, {}, encoded[i])) continue;
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
      if (!witness && implies(s, rest, encoded[kept[k]])) {
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
