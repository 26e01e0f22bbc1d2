// keep_if_new.cpp - the turn-ordered coverage filter.
#include "search/keep_if_new.h"

namespace nnfuzz::search {

KeepIfNew::KeepIfNew(CoverageTracker tracker, int64_t quota, int64_t patience)
    : tracker_(std::move(tracker)), quota_(quota), patience_(patience) {}

bool KeepIfNew::judge(int64_t seq, const Graph& graph) {
  std::unique_lock lock(mu_);
  auto done = [&] { return kept_ >= quota_ || saturated_; };
  turnCv_.wait(lock, [&] { return turn_ == seq || done(); });
  if (done()) return false;
  const bool keep = tracker_.addIfNew(graph);
  kept_ += keep;
  dry_ = keep ? 0 : dry_ + 1;
  if (dry_ >= patience_) saturated_ = true;
  ++turn_;
  lock.unlock();
  turnCv_.notify_all();
  return keep;
}

bool KeepIfNew::finished() const {
  std::lock_guard lock(mu_);
  return kept_ >= quota_ || saturated_;
}

int64_t KeepIfNew::kept() const {
  std::lock_guard lock(mu_);
  return kept_;
}

int64_t KeepIfNew::judged() const {
  std::lock_guard lock(mu_);
  return turn_;
}

bool KeepIfNew::saturated() const {
  std::lock_guard lock(mu_);
  return saturated_;
}

}  // namespace nnfuzz::search
