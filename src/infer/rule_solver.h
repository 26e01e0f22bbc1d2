// rule_solver.h - concolic use of an inferred rule (seed 002, §3.3): the inputs a model
// already has fix some symbols, Z3 finds the others.
//
// A call of a partial operator is its `pattern` record (a passing record: dtypes,
// attribute kinds and list lengths, float and string attributes) with new integer
// symbols: the dims of inputs the caller fixes are given, the dims of fresh inputs lie in
// [minDim, maxDim], and each integer attribute in the range its records span (widened to 0
// and by 2 above), where the records show it to work. The rule's constraints must hold and
// every output dim must lie in [1, maxOutputDim]. Random hints (each free symbol pinned to
// a random value of its range while that stays satisfiable) spread the solutions, and the
// hints come from `rng`, so a seed replays.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "infer/rule_file.h"
#include "support/rng.h"

namespace nnfuzz::infer {

struct SolveBounds {
  int64_t minDim = 1, maxDim = 5;  ///< dims of fresh inputs
  int64_t maxOutputDim = 64;
};

/// The call, as a record with input and output shapes and attributes filled in, or nullopt
/// when no call meets the constraints within the bounds. `fixed[k]` holds input k's dims
/// when the caller has chosen that input (nullopt: a fresh input, or an absent one).
std::optional<Record> solveRule(const PartialRule& partial, const Record& pattern,
                                std::span<const std::optional<std::vector<int64_t>>> fixed, const SolveBounds& bounds,
                                Rng& rng);

}  // namespace nnfuzz::infer
