// reduce_schedule.h - the pass scheduler: runs the reduction passes of reduce_pass.h from a
// priority table until none makes progress, keeping a variant only while the caller's
// predicate ("the same root cause still shows") holds.
//
// The core, not the passes, enforces the invariants: a variant must settle (valid, finite,
// stable reference), must be smaller than the current case (caseCost), and is tried once
// (a cache of case hashes); a pass whose transform claims a change but leaves the case as it
// was is counted in its report, as is every predicate call it cost.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "triage/reduce_pass.h"

namespace nnfuzz {

/// A row of the priority table: lower priorities run first in every round.
struct PassEntry {
  int priority;
  std::function<std::unique_ptr<ReducePass>()> make;
};

/// The passes in their default order: outputs, operands, dims, ranks, attributes, dtypes, values.
std::vector<PassEntry> defaultPassTable();

/// What one pass did over a whole reduction.
struct PassReport {
  std::string name;
  size_t tries = 0;     ///< predicate calls
  size_t kept = 0;      ///< variants kept
  size_t invalid = 0;   ///< variants that did not settle (invalid, non-finite, unstable)
  size_t noChange = 0;  ///< transforms that left the case as it was (a pass bug)
};

struct PassReduction {
  SubCase reduced;                  ///< the case after the passes (the start when none helped)
  std::vector<PassReport> reports;  ///< one per pass, in table order
  size_t tries = 0;                 ///< predicate calls in all
  bool changed = false;             ///< some variant was kept
  bool finished = false;            ///< a whole round kept nothing (not stopped by the budget)
};

/// Runs `table`'s passes on `start` (assumed to fail; not re-run) while `stillFails` holds,
/// calling it at most `maxTries` times.
PassReduction reduceWithPasses(const SubCase& start, const std::function<bool(const SubCase&)>& stillFails,
                               size_t maxTries, const std::vector<PassEntry>& table = defaultPassTable());

}  // namespace nnfuzz
