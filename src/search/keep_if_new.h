// keep_if_new.h - Luo's Algorithm 1 for a parallel generator: keep a candidate model only
// if it adds coverage.
//
// Candidates are numbered 0, 1, 2, ... (a generator's case indices). Workers may make them
// in any order and on any thread; each is judged in number order (judge() waits for its
// turn), so which candidates are kept does not depend on the number of threads. Judging
// stops once `quota` candidates are kept, or when `patience` candidates in a row added
// nothing (coverage has saturated: Luo's SPC stops at n_maxspc vectors per operator).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "search/coverage_tracker.h"

namespace nnfuzz::search {

class KeepIfNew {
 public:
  KeepIfNew(CoverageTracker tracker, int64_t quota, int64_t patience);

  /// Waits until candidates 0..seq-1 are judged, then keeps candidate `seq` (adding it to
  /// the coverage) if it grows coverage. False at once when finished(). Every seq must be
  /// judged by exactly one caller, or later callers wait (until finished()).
  bool judge(int64_t seq, const Graph& graph);
  /// No later candidate will be kept.
  bool finished() const;
  int64_t kept() const;
  int64_t judged() const;
  /// Stopped because `patience` candidates in a row added nothing.
  bool saturated() const;
  const CoverageTracker& tracker() const { return tracker_; }

 private:
  CoverageTracker tracker_;
  const int64_t quota_, patience_;
  mutable std::mutex mu_;
  std::condition_variable turnCv_;
  int64_t turn_ = 0, kept_ = 0, dry_ = 0;
  bool saturated_ = false;
};

}  // namespace nnfuzz::search
