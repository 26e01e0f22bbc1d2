// process.h - a child process with line-oriented pipes, limits and a kill switch.
//
// Child spawns a program in its own process group with stdin/stdout/stderr on pipes, an
// address-space limit (RLIMIT_AS) and a chosen environment, and lets the parent read
// stdout a line at a time with a deadline while it drains stderr into a bounded tail (so
// a chatty child never blocks on a full pipe). It knows nothing of the worker protocol:
// worker.h builds that on top. Linux only (prctl, close_range).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nnfuzz {

using Clock = std::chrono::steady_clock;

/// What to start and under which limits.
struct SpawnOptions {
  std::vector<std::string> argv;  ///< argv[0] is a path or a name looked up in PATH
  /// Variables set (or overridden) on top of the parent's environment.
  std::vector<std::pair<std::string, std::string>> env;
  uint64_t addressSpaceBytes = 0;  ///< RLIMIT_AS; 0 leaves it unlimited
};

/// How a child ended, from waitpid.
struct ExitInfo {
  bool exited = false;  ///< exited normally; code holds its status
  int code = 0;
  int signal = 0;  ///< killed by this signal (0 when exited)
};

/// A running child. Destroying it kills the whole process group and reaps the child, so a
/// worker never outlives its Child object (nor, through PR_SET_PDEATHSIG, nnfuzz itself).
class Child {
 public:
  /// Starts the program. Throws Error naming argv[0] if it cannot be executed (not found,
  /// not executable): the exec error travels back through a close-on-exec pipe.
  static Child spawn(const SpawnOptions& options);

  Child(Child&& other) noexcept;
  Child& operator=(Child&& other) noexcept;
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child();

  /// How readLine ended: a line, the deadline passed, stdout closed, or a line over kLineLimit.
  enum class Read { Line, Timeout, Closed, TooLong };
  /// Reads one stdout line (without '\n') before `deadline`, draining stderr meanwhile.
  /// Closed: stdout reached end of file (the child exited or closed it).
  Read readLine(std::string& line, Clock::time_point deadline);
  /// Writes `text` to the child's stdin; false if the child closed it (no SIGPIPE reaches
  /// nnfuzz: the signal is blocked for the write and consumed).
  bool write(const std::string& text);
  /// Closes the child's stdin (a polite "no more requests").
  void closeStdin();
  /// Moves whatever stderr the child has written so far into the tail, without waiting.
  void drainStderr();

  /// SIGKILL to the whole process group (grandchildren too). Idempotent.
  void kill();
  /// Waits for the child to end, at most until `deadline`; nullopt if it is still running.
  std::optional<ExitInfo> wait(Clock::time_point deadline);
  /// Kills the group if needed and reaps the child.
  ExitInfo killAndWait();
  /// True if kill() reached the child while it was still unreaped (a SIGKILL it then died
  /// of was ours, not the kernel's OOM killer's).
  bool killedByUs() const { return killed_; }

  /// The child's pid, which is also its process group id.
  pid_t pid() const { return pid_; }
  /// The last kStderrLimit bytes the child wrote to stderr since the last clearStderr().
  const std::string& stderrTail() const { return stderrTail_; }
  /// Hands over the stderr read so far and forgets it (the next finding's tail starts here).
  std::string takeStderr() { return std::exchange(stderrTail_, {}); }

  /// How much stderr is kept.
  static constexpr size_t kStderrLimit = 64 * 1024;
  /// The longest stdout line accepted (a reply listing outputs is far shorter).
  static constexpr size_t kLineLimit = 64 * 1024 * 1024;

 private:
  Child() = default;
  void appendStderr(const char* data, size_t size);
  void closeAll();

  pid_t pid_ = -1;
  int stdin_ = -1, stdout_ = -1, stderr_ = -1;
  bool killed_ = false, reaped_ = false;
  ExitInfo exit_;
  std::string stdoutBuffer_;
  size_t scannedUpTo_ = 0;  ///< stdoutBuffer_ holds no '\n' before this: a long line is scanned once
  std::string stderrTail_;
};

}  // namespace nnfuzz
