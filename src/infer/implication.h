// implication.h - Algorithm 2 of seed 002: drop predicates the others imply (Z3).
//
// Symbols are unbounded integers except input dims ("i<k>_<d>"), which are >= 0. Linear
// terms, floor division and Python-style mod by constants are encoded exactly; products
// of symbols and division by a symbol are opaque (z3_encode.h), so an implication that
// needs their arithmetic is not proved and the predicate is kept. A predicate whose
// divisor is 0 is false, as evaluate() says. A query that exceeds Z3's resource limit
// (deterministic) or the deadline counts as "not implied" (keep); past the deadline no
// query is asked and every predicate not yet dropped is kept: keeping a redundant
// predicate never changes what the conjunction accepts.
#pragma once

#include <chrono>
#include <span>
#include <string>
#include <vector>

#include "infer/synth.h"

namespace nnfuzz::infer {

/// Removes redundant predicates: first a forward pass (keep c only if the kept ones do
/// not imply it), then Algorithm 2's fixpoint (drop c if the rest imply it).
/// `anchors` (the passing records' symbol values, which satisfy every predicate) seed the
/// search for cheap witnesses of non-implication near them. `deadline` (none:
/// time_point::max()) bounds the Z3 queries; `cut` is set when it stopped them.
std::vector<Predicate> deduplicate(const std::vector<Predicate>& preds, std::span<const std::string> symbols,
                                   std::span<const std::vector<int64_t>> anchors,
                                   std::chrono::steady_clock::time_point deadline, bool* cut = nullptr);

}  // namespace nnfuzz::infer
