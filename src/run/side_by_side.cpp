// side_by_side.cpp - SideBySide (see side_by_side.h).
#include "run/side_by_side.h"

#include <utility>

namespace nnfuzz {

SideBySide::SideBySide(std::vector<Worker*> workers) : workers_(std::move(workers)), outcomes_(workers_.size()) {
  for (size_t i = 1; i < workers_.size(); ++i) threads_.emplace_back([this, i] { serve(i); });
}

SideBySide::~SideBySide() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void SideBySide::serve(size_t index) {
  uint64_t seen = 0;
  for (;;) {
    std::filesystem::path caseDir;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return stopping_ || round_ != seen; });
      if (stopping_) break;
      seen = round_;
      caseDir = caseDir_;
    }
    RunOutcome outcome = workers_[index]->runCase(caseDir);
    {
      std::lock_guard lock(mu_);
      outcomes_[index] = std::move(outcome);
      --pending_;
    }
    done_.notify_one();
  }
  // A process this thread started would die with it (PR_SET_PDEATHSIG), a moment later: a case
  // sent meanwhile would see a SIGKILL. Stopped here, the Worker starts a fresh one when used.
  workers_[index]->stop();
}

std::vector<RunOutcome> SideBySide::runCase(const std::filesystem::path& caseDir) {
  if (workers_.empty()) return {};
  {
    std::lock_guard lock(mu_);
    caseDir_ = caseDir;
    pending_ = threads_.size();
    ++round_;
  }
  wake_.notify_all();
  RunOutcome first = workers_[0]->runCase(caseDir);
  std::unique_lock lock(mu_);
  done_.wait(lock, [&] { return pending_ == 0; });
  outcomes_[0] = std::move(first);
  return std::exchange(outcomes_, std::vector<RunOutcome>(workers_.size()));
}

}  // namespace nnfuzz
