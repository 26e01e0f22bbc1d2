// z3_encode.h - rule expressions and predicates as Z3 integer terms.
//
// Floor division and Python-style mod are encoded exactly as evaluate() computes them; a
// zero divisor leaves the term undefined, which `defined` collects, so a predicate over it
// is false. Shared by Algorithm 2 (implication.cpp) and the rule solver (rule_solver.cpp).
#pragma once

#include <vector>

#include <z3++.h>

#include "infer/synth.h"

namespace nnfuzz::infer {

struct Z3Encoder {
  z3::context& ctx;
  std::vector<z3::expr> symbols;  ///< one term per symbol slot

  /// The value of `e`; `defined` is conjoined with "divisor != 0" for every division.
  z3::expr encode(const Expr& e, z3::expr& defined);
  /// The predicate, false wherever it is undefined.
  z3::expr predicate(const Predicate& p);
};

}  // namespace nnfuzz::infer
