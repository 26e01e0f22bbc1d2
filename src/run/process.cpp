// process.cpp - Child: fork/exec with pipes, process group, RLIMIT_AS, deadlines.
//
// Everything the child does between fork and exec is async-signal-safe (nnfuzz runs many
// threads): argv, envp and the resolved path are built in the parent before fork.
#include "run/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "support/error.h"

extern char** environ;

namespace nnfuzz {

namespace {

// argv[0] as execve wants it: unchanged if it has a '/', else the first match in PATH.
std::string resolveProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return name;  // execve fails with ENOENT and the error names it
}

std::vector<std::string> mergedEnvironment(const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string entry = *e;
    std::string key = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const auto& [k, v] : overrides) overridden = overridden || k == key;
    if (!overridden) env.push_back(std::move(entry));
  }
  for (const auto& [k, v] : overrides) env.push_back(k + "=" + v);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void setNonBlocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

int millisUntil(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1000 * 1000));
}

// The child side of spawn: only async-signal-safe calls until execve.
[[noreturn]] void becomeChild(const char* path, char* const* argv, char* const* envp, int in, int out, int err,
                              int errorPipe, pid_t parent, uint64_t addressSpace) {
  setpgid(0, 0);
  // Dies with nnfuzz (even under kill -9); the getppid check closes the race with a parent
  // that died before prctl ran.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  dup2(in, 0);
  dup2(out, 1);
  dup2(err, 2);
  // Other threads may have opened descriptors without O_CLOEXEC: a worker holding another
  // worker's pipe would keep it from ever seeing end of file.
  syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */);
  // Signal state survives exec: undo the parent's blocked or ignored signals.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGCHLD}) signal(sig, SIG_DFL);
  if (addressSpace > 0) {
    rlimit limit{addressSpace, addressSpace};
    setrlimit(RLIMIT_AS, &limit);
  }
  execve(path, argv, envp);
  int code = errno;
  [[maybe_unused]] ssize_t n = ::write(errorPipe, &code, sizeof code);
  _exit(127);
}

}  // namespace

Child Child::spawn(const SpawnOptions& options) {
  if (options.argv.empty()) throw Error("worker command is empty");
  std::string path = resolveProgram(options.argv[0]);
  std::vector<std::string> argvStrings = options.argv;
  std::vector<std::string> envStrings = mergedEnvironment(options.env);
  std::vector<char*> argv = pointers(argvStrings), envp = pointers(envStrings);

  int fds[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  int *in = fds, *out = fds + 2, *err = fds + 4, *errorPipe = fds + 6;
  auto fail = [&](const char* what) {
    int code = errno;
    for (int& fd : fds) closeFd(fd);
    throw Error(std::string(what) + ": " + std::strerror(code));
  };
  if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(errorPipe, O_CLOEXEC))
    fail("cannot create pipes");
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) fail("fork failed");
  if (pid == 0)
    becomeChild(path.c_str(), argv.data(), envp.data(), in[0], out[1], err[1], errorPipe[1], parent,
                options.addressSpaceBytes);
  setpgid(pid, pid);  // also done by the child: whoever runs first, kill(-pid) works afterwards
  for (int fd : {in[0], out[1], err[1], errorPipe[1]}) ::close(fd);

  Child child;
  child.pid_ = pid;
  child.stdin_ = in[1];
  child.stdout_ = out[0];
  child.stderr_ = err[0];
  setNonBlocking(child.stdout_);
  setNonBlocking(child.stderr_);

  int code = 0;
  ssize_t n;
  do n = ::read(errorPipe[0], &code, sizeof code);
  while (n < 0 && errno == EINTR);
  ::close(errorPipe[0]);
  if (n == static_cast<ssize_t>(sizeof code)) {
    child.killAndWait();
    throw Error("cannot run '" + options.argv[0] + "': " + std::strerror(code));
  }
  return child;
}

Child::Child(Child&& other) noexcept { *this = std::move(other); }

Child& Child::operator=(Child&& other) noexcept {
  if (this == &other) return *this;
  if (pid_ > 0) killAndWait();
  closeAll();
  pid_ = std::exchange(other.pid_, -1);
  stdin_ = std::exchange(other.stdin_, -1);
  stdout_ = std::exchange(other.stdout_, -1);
  stderr_ = std::exchange(other.stderr_, -1);
  killed_ = other.killed_;
  reaped_ = other.reaped_;
  exit_ = other.exit_;
  stdoutBuffer_ = std::move(other.stdoutBuffer_);
  scannedUpTo_ = other.scannedUpTo_;
  stderrTail_ = std::move(other.stderrTail_);
  return *this;
}

Child::~Child() {
  if (pid_ > 0) killAndWait();
  closeAll();
}

void Child::closeAll() {
  closeFd(stdin_);
  closeFd(stdout_);
  closeFd(stderr_);
}

void Child::appendStderr(const char* data, size_t size) {
  stderrTail_.append(data, size);
  // Trim in large steps so appending stays amortised O(1).
  if (stderrTail_.size() > 2 * kStderrLimit) stderrTail_.erase(0, stderrTail_.size() - kStderrLimit);
}

void Child::drainStderr() {
  char buf[16384];
  while (stderr_ >= 0) {
    ssize_t n = ::read(stderr_, buf, sizeof buf);
    if (n > 0) {
      appendStderr(buf, static_cast<size_t>(n));
    } else if (n == 0) {
      closeFd(stderr_);
    } else if (errno != EINTR) {
      break;  // EAGAIN: nothing more for now
    }
  }
  if (stderrTail_.size() > kStderrLimit) stderrTail_.erase(0, stderrTail_.size() - kStderrLimit);
}

Child::Read Child::readLine(std::string& line, Clock::time_point deadline) {
  char buf[65536];
  for (;;) {
    size_t newline = stdoutBuffer_.find('\n', scannedUpTo_);
    scannedUpTo_ = newline == std::string::npos ? stdoutBuffer_.size() : 0;
    if (newline != std::string::npos) {
      line = stdoutBuffer_.substr(0, newline);
      stdoutBuffer_.erase(0, newline + 1);
      drainStderr();
      return Read::Line;
    }
    if (stdoutBuffer_.size() > kLineLimit) return Read::TooLong;
    if (stdout_ < 0) {
      drainStderr();
      return Read::Closed;
    }
    pollfd fds[2] = {{stdout_, POLLIN, 0}, {stderr_, POLLIN, 0}};
    // In slices: a child that died while a process it forked keeps the pipe open never
    // closes stdout, so its exit is looked for between slices.
    const auto slice = std::min(deadline, Clock::now() + std::chrono::milliseconds(50));
    int ready = ::poll(fds, stderr_ >= 0 ? 2 : 1, millisUntil(slice));
    if (ready < 0 && errno != EINTR) return Read::Closed;
    if (ready == 0) {
      if (Clock::now() >= deadline) {
        drainStderr();
        return Read::Timeout;
      }
      if (wait(Clock::now())) {  // exited; what it wrote before is in the pipe already
        ssize_t n;
        while ((n = ::read(stdout_, buf, sizeof buf)) > 0) stdoutBuffer_.append(buf, static_cast<size_t>(n));
        if (stdoutBuffer_.find('\n', scannedUpTo_) == std::string::npos) closeFd(stdout_);
      }
      continue;
    }
    if (stderr_ >= 0 && fds[1].revents) drainStderr();
    if (fds[0].revents) {
      ssize_t n = ::read(stdout_, buf, sizeof buf);
      if (n > 0) stdoutBuffer_.append(buf, static_cast<size_t>(n));
      else if (n == 0) closeFd(stdout_);  // loop once more: a last line without '\n' is dropped
      else if (errno != EAGAIN && errno != EINTR) closeFd(stdout_);
    }
  }
}

bool Child::write(const std::string& text) {
  if (stdin_ < 0) return false;
  // SIGPIPE is thread-directed for a failed write: block it here, and consume the pending
  // signal afterwards, so nnfuzz needs no process-wide SIG_IGN.
  sigset_t pipeSet, old;
  sigemptyset(&pipeSet);
  sigaddset(&pipeSet, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipeSet, &old);
  size_t done = 0;
  bool ok = true;
  while (done < text.size()) {
    ssize_t n = ::write(stdin_, text.data() + done, text.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      ok = false;
      break;
    }
  }
  if (!ok) {
    timespec zero{0, 0};
    while (sigtimedwait(&pipeSet, nullptr, &zero) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return ok;
}

void Child::closeStdin() { closeFd(stdin_); }

void Child::kill() {
  if (pid_ <= 0) return;
  // The group outlives a reaped leader while grandchildren remain, and its id cannot be
  // reused meanwhile, so this is safe after reaping too.
  ::kill(-pid_, SIGKILL);
  if (!reaped_) {
    ::kill(pid_, SIGKILL);
    killed_ = true;  // an exit status the child already had stays what it was
  }
}

std::optional<ExitInfo> Child::wait(Clock::time_point deadline) {
  if (reaped_) return exit_;
  if (pid_ <= 0) return std::nullopt;
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      exit_.exited = WIFEXITED(status);
      exit_.code = exit_.exited ? WEXITSTATUS(status) : 0;
      exit_.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
      drainStderr();
      return exit_;
    }
    if (r < 0 && errno != EINTR) {  // not our child any more (should not happen)
      reaped_ = true;
      return exit_;
    }
    if (Clock::now() >= deadline) return std::nullopt;
    drainStderr();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

ExitInfo Child::killAndWait() {
  kill();
  // SIGKILL cannot be caught; only a process stuck in the kernel (D state) delays this.
  std::optional<ExitInfo> info;
  while (!(info = wait(Clock::now() + std::chrono::seconds(10)))) ::kill(pid_, SIGKILL);
  return *info;
}

}  // namespace nnfuzz
