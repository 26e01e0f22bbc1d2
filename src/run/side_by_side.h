// side_by_side.h - one case through several workers at once.
//
// A campaign runs every test through each (backend, mode) worker. One after the other, a
// test's wall time is the sum of its round trips while a second core may sit idle; side by
// side it is the longest one. SideBySide keeps one thread per worker beyond the first (the
// caller's thread drives the first), alive as long as it is: a worker process dies with the
// thread that started it (PR_SET_PDEATHSIG), so the threads must outlive the cases, and each
// stops its worker when it ends (the Worker starts a fresh process if used again). Each Worker
// is still driven by one thread at a time: the caller may use the workers directly (say to
// reduce a finding) between two runCase calls.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "run/worker.h"

namespace nnfuzz {

class SideBySide {
 public:
  /// The workers stay owned by the caller and must outlive this object.
  explicit SideBySide(std::vector<Worker*> workers);
  SideBySide(const SideBySide&) = delete;
  SideBySide& operator=(const SideBySide&) = delete;
  ~SideBySide();

  /// Worker::runCase on every worker at once; the outcomes in the workers' order. Each
  /// outcome's wallSeconds is its own worker's round trip. Never throws (as runCase).
  std::vector<RunOutcome> runCase(const std::filesystem::path& caseDir);

 private:
  void serve(size_t index);

  std::vector<Worker*> workers_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  std::filesystem::path caseDir_;
  std::vector<RunOutcome> outcomes_;
  uint64_t round_ = 0;   ///< bumped for each case; a helper runs its worker once per round
  size_t pending_ = 0;   ///< helpers still running this round
  bool stopping_ = false;
};

}  // namespace nnfuzz
