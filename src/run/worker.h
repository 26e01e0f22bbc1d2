// worker.h - one backend worker process (a SUT in one mode), driven case by case.
//
// A Worker speaks the protocol of docs/worker-protocol.md: it starts
// `<command...> --mode MODE` lazily, reads the hello line, then for each case sends one
// request and reads a prepare reply and a run reply, each under its own deadline. Whatever
// the worker does - crash, abort, hang, exhaust memory, print garbage, exit - runCase returns
// a RunOutcome and never throws; a dead or killed worker is replaced by a fresh one at the
// next case (a fork server's dead or killed child, by the keeper's next fork). The worker
// runs in its own process group under RLIMIT_AS, with one OpenMP thread and glibc's heap
// checking on. One Worker is used by one thread at a time; the worker process dies with the
// thread that started it (PR_SET_PDEATHSIG), which is harmless because a worker found dead
// between cases is restarted, its death counted (idleDeaths) but blamed on no case.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "run/protocol.h"

#include "run/outcome.h"
#include "run/process.h"

namespace nnfuzz {

/// Per-phase time limits and the memory limit of a worker.
struct WorkerLimits {
  std::chrono::milliseconds start{60000};    ///< until the hello line (imports, JIT set-up)
  std::chrono::milliseconds prepare{60000};  ///< convert + compile one model
  std::chrono::milliseconds run{30000};      ///< one inference
  /// A fork server's hung child, once killed: until the keeper reports its death (else the
  /// whole worker is killed and restarted).
  std::chrono::milliseconds childDeath{5000};
  uint64_t memoryBytes = uint64_t{4} << 30;  ///< RLIMIT_AS (address space, not RSS); 0 = none
};

/// What to start.
struct WorkerSpec {
  std::string backend;               ///< e.g. "onnxruntime" (a label for outcomes)
  std::string mode;                  ///< passed as `--mode MODE`
  std::vector<std::string> command;  ///< argv before `--mode`
  std::vector<std::pair<std::string, std::string>> env;  ///< extra environment variables
  WorkerLimits limits;
  /// Asks the worker to serve from a fork server if it can (NNFUZZ_FORK_SERVER=1): a crash then
  /// costs a fork instead of a restart with the SUT's imports.
  bool forkServer = true;
  /// glibc heap checking: MALLOC_CHECK_=3 (with libc_malloc_debug.so preloaded, which
  /// glibc >= 2.34 needs for it to have any effect) and MALLOC_PERTURB_, so a heap
  /// corruption aborts the worker (a Crash finding) instead of passing silently.
  bool heapCheck = true;
  /// Where the worker writes outputs; empty = a fresh folder in /dev/shm (else $TMPDIR),
  /// removed at the end.
  std::filesystem::path scratchDir;
};

/// One worker process for one (backend, mode), restarted as needed; see the file comment.
class Worker {
 public:
  explicit Worker(WorkerSpec spec);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker();

  /// Runs one case folder (model.onnx + test_data_set_0/input_N.pb) through both phases.
  /// Never throws. stderrTail is filled for every outcome but Ok.
  RunOutcome runCase(const std::filesystem::path& caseDir);
  /// The same with the SUT's passes `disable` switched off (names from hello().passes).
  RunOutcome runCase(const std::filesystem::path& caseDir, const std::vector<std::string>& disable);

  /// Starts the worker now if it is not running (runCase does so lazily). Returns the
  /// reason it could not start (exec failure, exit before hello, bad hello, timeout,
  /// mode not offered), or an empty string.
  std::string start();
  /// Closes the worker's stdin, gives it a moment to exit, then kills its process group.
  void stop();

  bool running() const { return child_.has_value(); }
  /// The last hello read (empty before the first start).
  const Hello& hello() const { return hello_; }
  /// How many worker processes were started so far (1 + restarts after deaths).
  int starts() const { return starts_; }
  /// How many serving children a fork server replaced after they died (no restart needed).
  int forks() const { return forks_; }
  /// How many times the worker, or a fork server's child, died between cases. Such a death is
  /// no case's: the worker is replaced, the death counted, its stderr kept, and the first one
  /// is announced on nnfuzz's stderr.
  int idleDeaths() const { return idleDeaths_; }
  /// The stderr tail of the last death between cases.
  const std::string& idleDeathStderr() const { return idleDeathStderr_; }
  /// Wall-clock seconds the last start took, spawn to hello.
  double lastStartSeconds() const { return lastStartSeconds_; }
  const WorkerSpec& spec() const { return spec_; }

 private:
  RunOutcome runCaseOrThrow(const std::filesystem::path& caseDir, const std::vector<std::string>& disable);
  std::optional<Reply> awaitReply(RunOutcome& outcome, uint64_t id, const std::string& phase,
                                  std::chrono::milliseconds limit);
  void recordTimeout(RunOutcome& outcome, const std::string& phase, std::chrono::milliseconds limit,
                     Clock::time_point begin);
  bool killServingChild();
  void killWorker();
  void recordDeath(RunOutcome& outcome, const std::string& phase);
  void noteIdleDeath(const ExitInfo& info, std::string stderrTail);
  void classifyDeath(RunOutcome& outcome, const std::string& phase, const ExitInfo& info, bool killedByUs);
  void recordProtocolError(RunOutcome& outcome, const std::string& phase, const std::string& problem);
  void readOutputs(RunOutcome& outcome, const Reply& reply);
  SpawnOptions spawnOptions() const;
  std::filesystem::path outputDir(bool packed);

  WorkerSpec spec_;
  std::optional<Child> child_;
  /// A fork server's serving child, from its "forked" line; 0 when unknown or once its "died"
  /// line is read (reaped by then: the pid is no longer ours to signal).
  pid_t servingPid_ = 0;
  Hello hello_;
  std::filesystem::path scratch_;
  bool ownScratch_ = false;
  /// The output folder is there for packed requests, made by this Worker since the worker's last start.
  bool outReady_ = false;
  uint64_t nextId_ = 1;
  int starts_ = 0;
  int forks_ = 0;
  int idleDeaths_ = 0;
  std::string idleDeathStderr_;
  std::string stderrBeforeCase_;  ///< what the worker wrote before this case, since the last one began
  double lastStartSeconds_ = 0;
};

/// True when a worker's error text (exception type, message or stderr) says memory ran
/// out: MemoryError, std::bad_alloc, "Cannot allocate memory", "out of memory", "failed to
/// allocate" (case-insensitive). See docs/worker-protocol.md, "Out of memory".
bool looksLikeOutOfMemory(const std::string& text);

/// The file a protocol-2 worker packs a packed request's outputs into, in the request's `out`.
inline constexpr const char* kPackedOutputs = "outputs.pb";

/// Where scratch files go: /dev/shm when it is usable, else the temp folder. On a disk file
/// system, writing and deleting a case's dozen small files costs milliseconds, more than
/// an ONNX Runtime test.
std::filesystem::path scratchBase();

}  // namespace nnfuzz
