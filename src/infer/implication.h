// implication.h - Algorithm 2 of seed 002: drop predicates the others imply (Z3).
//
// Symbols are unbounded integers except input dims ("i<k>_<d>"), which are >= 0. Floor
// division and Python-style mod are encoded exactly; a predicate whose divisor is 0 is
// false, as evaluate() says. A query that exceeds Z3's resource limit (deterministic, unlike a timeout) counts
// as "not implied" (keep).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "infer/synth.h"

namespace nnfuzz::infer {

/// Removes redundant predicates: first a forward pass (keep c only if the kept ones do
/// not imply it), then Algorithm 2's fixpoint (drop c if the rest imply it).
std::vector<Predicate> deduplicate(const std::vector<Predicate>& preds, std::span<const std::string> symbols);

}  // namespace nnfuzz::infer
