// implication.cpp - predicate deduplication with Z3's integer arithmetic.
#include "infer/implication.h"

#include <z3++.h>

#include "support/rng.h"

namespace nnfuzz::infer {

namespace {

struct Encoder {
  z3::context& ctx;
  std::vector<z3::expr> symbols;

  // Returns the value and, through `defined`, the conjunction of "divisor != 0".
  z3::expr encode(const Expr& e, z3::expr& defined) {
    std::vector<z3::expr> stack;
    for (Token t : e.postfix()) {
      if (t.kind == Token::Slot) {
        stack.push_back(symbols[t.value]);
      } else if (t.kind == Token::Const) {
        stack.push_back(ctx.int_val(t.value));
      } else {
        z3::expr b = stack.back();
        stack.pop_back();
        z3::expr a = stack.back();
        stack.pop_back();
        switch (static_cast<BinOp>(t.value)) {
          case BinOp::Add: stack.push_back(a + b); break;
          case BinOp::Sub: stack.push_back(a - b); break;
          case BinOp::Mul: stack.push_back(a * b); break;
          case BinOp::Min: stack.push_back(z3::ite(a < b, a, b)); break;
          case BinOp::Max: stack.push_back(z3::ite(a > b, a, b)); break;
          case BinOp::Div:
          case BinOp::Mod: {
            defined = defined && b != 0;
            // Z3's div is Euclidean; floor(a / b) is a div b for b > 0 and (-a) div (-b) else.
            z3::expr q = z3::ite(b > 0, a / b, (-a) / (-b));
            stack.push_back(static_cast<BinOp>(t.value) == BinOp::Div ? q : a - b * q);
            break;
          }
        }
      }
    }
    return stack.back();
  }

  z3::expr predicate(const Predicate& p) {
    z3::expr defined = ctx.bool_val(true);
    z3::expr v = encode(p.expr, defined);
    return defined && (p.equality ? v == 0 : v > 0);
  }
};

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
  Encoder enc{ctx, {}};
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
