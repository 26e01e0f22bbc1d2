// z3_encode.h - rule expressions and predicates as Z3 integer terms.
//
// Floor division and Python-style mod are encoded exactly as evaluate() computes them; a
// zero divisor leaves the term undefined, which `defined` collects, so a predicate over it
// is false. Shared by Algorithm 2 (implication.cpp) and the rule solver (rule_solver.cpp).
//
// With `opaqueNonlinear`, a product of two non-constant terms and a division or mod by a
// non-constant term become uninterpreted functions of their operands (linear arithmetic
// with congruence, which Z3 decides within its limits). Z3 4.8.12's nonlinear integer
// arithmetic ignores both rlimit and timeout on some of Algorithm 2's queries (one query
// of NegativeLogLikelihoodLoss ran for minutes). Each opaque term comes with linear facts
// of the exact operation (`lemmas`: signs, floor division's zero and one thresholds, mod's
// range), so implications like 0 < i / k => 0 < k still follow; anything proved with
// opaque terms and true lemmas holds exactly too.
#pragma once

#include <vector>

#include <z3++.h>

#include "infer/synth.h"

namespace nnfuzz::infer {

struct Z3Encoder {
  z3::context& ctx;
  std::vector<z3::expr> symbols;  ///< one term per symbol slot
  bool opaqueNonlinear = false;
  std::vector<z3::expr> lemmas{};  ///< facts about the opaque terms made so far

  /// The value of `e`; `defined` is conjoined with "divisor != 0" for every division.
  z3::expr encode(const Expr& e, z3::expr& defined);
  /// The predicate, false wherever it is undefined.
  z3::expr predicate(const Predicate& p);

 private:
  z3::expr opaque(const char* name, const z3::expr& a, const z3::expr& b);
};

}  // namespace nnfuzz::infer
