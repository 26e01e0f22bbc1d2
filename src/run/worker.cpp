// worker.cpp - Worker: start, hello, request/reply per case, classification of deaths.
#include "run/worker.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

#include "onnx/case_folder.h"
#include "onnx/tensor_proto.h"
#include "support/error.h"

namespace nnfuzz {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string lastLine(const std::string& text) {
  size_t end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

std::string formatSeconds(std::chrono::milliseconds d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", static_cast<double>(d.count()) / 1000.0);
  return buf;
}

// Where in prepare a worker that died or hung was: the last "nnfuzz-stage: NAME" line it wrote
// on stderr during this case (docs/worker-protocol.md), else "prepare" itself.
std::string stageFromStderr(const std::string& tail, const std::string& phase) {
  if (phase != "prepare") return phase;
  static const std::string kMarker = "nnfuzz-stage: ";
  size_t at = tail.rfind("\n" + kMarker);
  if (at != std::string::npos) ++at;
  else if (tail.compare(0, kMarker.size(), kMarker) == 0) at = 0;
  else return phase;
  const size_t begin = at + kMarker.size();
  const std::string stage = tail.substr(begin, tail.find_first_of("\r\n", begin) - begin);
  return validStage(stage) ? stage : phase;
}

// The glibc malloc debugging library: MALLOC_CHECK_ does nothing without it since 2.34.
std::string mallocDebugLibrary() {
  for (const char* dir : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                          "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}) {
    std::string path = std::string(dir) + "/libc_malloc_debug.so.0";
    if (access(path.c_str(), R_OK) == 0) return path;
  }
  return "";
}

std::string signalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

}  // namespace

bool looksLikeOutOfMemory(const std::string& text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* pattern : {"memoryerror", "bad_alloc", "cannot allocate memory", "out of memory",
                              "failed to allocate"})
    if (lower.find(pattern) != std::string::npos) return true;
  return false;
}

Worker::Worker(WorkerSpec spec) : spec_(std::move(spec)) {}

Worker::~Worker() {
  stop();
  if (ownScratch_) {
    std::error_code ec;
    fs::remove_all(scratch_, ec);
  }
}

SpawnOptions Worker::spawnOptions() const {
  SpawnOptions options;
  options.argv = spec_.command;
  options.argv.push_back("--mode");
  options.argv.push_back(spec_.mode);
  options.addressSpaceBytes = spec_.limits.memoryBytes;
  options.env = {{"OMP_NUM_THREADS", "1"}, {"OMP_WAIT_POLICY", "PASSIVE"}};
  if (spec_.forkServer) options.env.emplace_back("NNFUZZ_FORK_SERVER", "1");
  if (spec_.heapCheck) {
    options.env.emplace_back("MALLOC_CHECK_", "3");
    options.env.emplace_back("MALLOC_PERTURB_", "165");  // 0xA5: freed and fresh memory is junk, not zero
    // Keep 16 MiB at the heap's top instead of giving it back to the kernel after each case:
    // MALLOC_PERTURB_ fills every block, so an arena re-taken from the kernel costs a page fault
    // per 4 KiB (ONNX Runtime's 1 MiB arena: 257 faults, 0.65 ms of system time per session).
    options.env.emplace_back("MALLOC_TOP_PAD_", "16777216");
    // Blocks up to 64 MiB come from that heap too, and it is not trimmed below 64 MiB: glibc would
    // otherwise map each large block afresh and unmap it on free, a zero-filled page fault per
    // 4 KiB each time (0.65 ms of system time per ONNX Runtime test, two sessions).
    options.env.emplace_back("MALLOC_MMAP_THRESHOLD_", "67108864");
    options.env.emplace_back("MALLOC_TRIM_THRESHOLD_", "67108864");
    if (std::string lib = mallocDebugLibrary(); !lib.empty()) {
      const char* existing = std::getenv("LD_PRELOAD");
      options.env.emplace_back("LD_PRELOAD", existing && *existing ? lib + ":" + existing : lib);
    }
  }
  for (const auto& setting : spec_.env) {  // the backend's own settings win
    std::erase_if(options.env, [&](const auto& kv) { return kv.first == setting.first; });
    options.env.push_back(setting);
  }
  return options;
}

std::string Worker::start() {
  if (child_) return "";
  Clock::time_point begin = Clock::now();
  hello_ = Hello{};
  ++starts_;
  servingPid_ = 0;
  outReady_ = false;
  try {
    child_ = Child::spawn(spawnOptions());
  } catch (const Error& e) {
    return e.what();
  }
  std::string line, problem;
  switch (child_->readLine(line, begin + spec_.limits.start)) {
    case Child::Read::Line: break;
    case Child::Read::Timeout:
      problem = "no hello within " + formatSeconds(spec_.limits.start);
      break;
    case Child::Read::TooLong: problem = "hello line too long"; break;
    case Child::Read::Closed: {
      std::optional<ExitInfo> info = child_->wait(Clock::now() + std::chrono::seconds(2));
      problem = !info ? "closed stdout before its hello"
                : info->exited ? "exited with status " + std::to_string(info->code) + " before its hello"
                               : "died by " + signalName(info->signal) + " before its hello";
      break;
    }
  }
  if (problem.empty()) {
    auto parsed = parseHello(line);
    if (auto* bad = std::get_if<std::string>(&parsed)) {
      problem = *bad;
    } else {
      hello_ = std::get<Hello>(std::move(parsed));
      if (std::find(hello_.modes.begin(), hello_.modes.end(), spec_.mode) == hello_.modes.end())
        problem = "does not offer mode '" + spec_.mode + "'";
    }
  }
  lastStartSeconds_ = secondsSince(begin);
  if (problem.empty()) return "";
  std::string tail = lastLine(child_->stderrTail());
  child_.reset();  // kills and reaps
  return problem + (tail.empty() ? "" : " (stderr: " + clip(tail, 300) + ")");
}

void Worker::stop() {
  if (!child_) return;
  child_->closeStdin();
  // A fork server that exited has reaped its child; else the child goes with the worker.
  if (child_->wait(Clock::now() + std::chrono::seconds(1))) servingPid_ = 0;
  killWorker();  // what is left of it
  child_.reset();
}

fs::path scratchBase() {
  return access("/dev/shm", W_OK | X_OK) == 0 ? fs::path("/dev/shm") : fs::temp_directory_path();
}

fs::path Worker::outputDir(bool packed) {
  if (scratch_.empty()) {
    if (!spec_.scratchDir.empty()) {
      scratch_ = spec_.scratchDir;
      fs::create_directories(scratch_);
    } else {
      const fs::path base = scratchBase();
      std::string pattern = (base / ("nnfuzz-" + spec_.backend + "-" + spec_.mode + "-XXXXXX")).string();
      if (!mkdtemp(pattern.data())) throw Error("cannot create a scratch folder in " + base.string());
      scratch_ = pattern;
      ownScratch_ = true;
    }
  }
  fs::path out = scratch_ / "out";
  if (packed && outReady_) {
    // The one file read back, never a previous case's. The folder is made once per worker
    // process: asking each case whether it is there costs a stat (common.py makes it anew, should
    // a worker remove it).
    const std::string file = (out / kPackedOutputs).string();
    if (::unlink(file.c_str()) == 0 || errno == ENOENT) return out;
    throw Error("cannot remove " + file + ": " + std::strerror(errno));
  }
  std::error_code ec;
  fs::remove_all(out, ec);  // a previous case's outputs must never be mistaken for this one's
  fs::create_directories(out);
  outReady_ = packed;
  return out;
}

RunOutcome Worker::runCase(const fs::path& caseDir) { return runCase(caseDir, {}); }

RunOutcome Worker::runCase(const fs::path& caseDir, const std::vector<std::string>& disable) {
  try {
    return runCaseOrThrow(caseDir, disable);
  } catch (const std::exception& e) {  // nnfuzz's side failed (file system, encoding): not a finding
    if (child_) killWorker();
    child_.reset();
    RunOutcome outcome;
    outcome.backend = spec_.backend;
    outcome.mode = spec_.mode;
    outcome.status = RunStatus::WorkerError;
    outcome.message = std::string("nnfuzz could not run the case: ") + e.what();
    return outcome;
  }
}

RunOutcome Worker::runCaseOrThrow(const fs::path& caseDir, const std::vector<std::string>& disable) {
  RunOutcome outcome;
  outcome.backend = spec_.backend;
  outcome.mode = spec_.mode;
  Clock::time_point begin = Clock::now();
  // A worker that died while idle (between cases) says nothing about this case: restart it.
  if (std::optional<ExitInfo> idle = child_ ? child_->wait(Clock::now()) : std::nullopt) {
    child_->drainStderr();
    noteIdleDeath(*idle, child_->stderrTail());
    killWorker();  // a fork server's child, if the keeper died
    child_.reset();
  }
  const bool starting = !child_;
  if (std::string problem = start(); !problem.empty()) {
    outcome.status = RunStatus::WorkerError;
    outcome.phase = "start";
    outcome.message = "cannot start the worker: " + problem;
    return outcome;
  }
  outcome.version = hello_.version;
  if (starting) outcome.startSeconds = lastStartSeconds_;
  child_->drainStderr();
  stderrBeforeCase_ = child_->takeStderr();  // the tail of a finding is what this case made the worker write

  // Protocol 2 takes our packed cases as they are and packs the outputs into one file.
  const bool packed = hello_.protocol >= 2;
  fs::path out = outputDir(packed);
  const fs::path sent = packed ? caseDir : onnxLayoutCase(caseDir, scratch_ / "case");  // the protocol's layout
  uint64_t id = nextId_++;
  json request = {{"id", id}, {"case", fs::absolute(sent).lexically_normal().string()}, {"out", out.string()}};
  if (packed) request["packed"] = true;
  if (!disable.empty()) request["disable"] = disable;
  if (!child_->write(request.dump() + "\n")) {
    recordDeath(outcome, "prepare");
    return outcome;
  }
  std::optional<Reply> prepared = awaitReply(outcome, id, "prepare", spec_.limits.prepare);
  if (prepared) {
    outcome.prepareSeconds = prepared->seconds;
    std::optional<Reply> ran = awaitReply(outcome, id, "run", spec_.limits.run);
    if (ran) {
      outcome.runSeconds = ran->seconds;
      readOutputs(outcome, *ran);
    }
  }
  outcome.wallSeconds = secondsSince(begin);
  return outcome;
}

// Reads the reply for `phase`; on anything but status "ok" fills `outcome` and returns nullopt.
std::optional<Reply> Worker::awaitReply(RunOutcome& outcome, uint64_t id, const std::string& phase,
                                                std::chrono::milliseconds limit) {
  Clock::time_point begin = Clock::now();
  Reply reply;
  for (;;) {
    std::string line;
    switch (child_->readLine(line, begin + limit)) {
      case Child::Read::Line: break;
      case Child::Read::TooLong: recordProtocolError(outcome, phase, "reply line too long"); return std::nullopt;
      case Child::Read::Closed: recordDeath(outcome, phase); return std::nullopt;
      case Child::Read::Timeout: recordTimeout(outcome, phase, limit, begin); return std::nullopt;
    }
    auto parsed = parseReply(line, id, phase, secondsSince(begin));
    if (auto* bad = std::get_if<std::string>(&parsed)) {
      recordProtocolError(outcome, phase, *bad);
      return std::nullopt;
    }
    reply = std::get<Reply>(std::move(parsed));
    if (reply.status != "died" && reply.status != "forked") break;
    if (!hello_.forkServer) {
      recordProtocolError(outcome, phase, "a '" + reply.status + "' line from a worker that is no fork server");
      return std::nullopt;
    }
    if (reply.status == "forked") {
      servingPid_ = reply.forkedPid;
      continue;
    }
    servingPid_ = 0;
    ++forks_;
    child_->drainStderr();  // the child wrote its last words before the keeper reaped it
    ExitInfo info{reply.death.exited, reply.death.code, reply.death.signal};
    // A child that died between cases says nothing about this one: its replacement reads the request.
    if (!reply.death.duringRequest) {
      noteIdleDeath(info, stderrBeforeCase_ + child_->stderrTail());  // it may have died before the case began
      continue;
    }
    classifyDeath(outcome, phase, info, false);  // nnfuzz signals a child alone only after a timeout
    (phase == "prepare" ? outcome.prepareSeconds : outcome.runSeconds) = secondsSince(begin);
    return std::nullopt;
  }
  if (reply.status == "ok") return reply;
  (phase == "prepare" ? outcome.prepareSeconds : outcome.runSeconds) = reply.seconds;
  outcome.phase = reply.stage.empty() ? phase : reply.stage;
  outcome.errorType = reply.type;
  outcome.message = reply.message;
  child_->drainStderr();
  outcome.stderrTail = child_->stderrTail();
  if (reply.status == "error") {
    bool oom = looksLikeOutOfMemory(reply.type + "\n" + reply.message);
    outcome.status = oom ? RunStatus::OutOfMemory : phase == "prepare" ? RunStatus::PrepareError : RunStatus::RunError;
  } else if (reply.status == "worker_error") {
    outcome.status = RunStatus::WorkerError;  // the case was unusable; the worker lives on
  } else {
    recordProtocolError(outcome, phase, "unknown status '" + reply.status + "'");
  }
  return std::nullopt;
}

// No reply within the phase's limit. A fork server's child is killed alone, with its process group
// (what it started), and the keeper forks the next: a hang costs a fork, not a restart. Without
// the child's pid (a keeper that sends no "forked" lines), or if the keeper does not report the
// death, the whole worker goes.
void Worker::recordTimeout(RunOutcome& outcome, const std::string& phase, std::chrono::milliseconds limit,
                           Clock::time_point begin) {
  const bool keeperServesOn = killServingChild();
  if (!keeperServesOn) killWorker();
  child_->drainStderr();
  outcome.status = RunStatus::Timeout;
  outcome.stderrTail = child_->stderrTail();
  outcome.phase = stageFromStderr(outcome.stderrTail, phase);
  outcome.message = outcome.phase + " took longer than " + formatSeconds(limit);
  (phase == "prepare" ? outcome.prepareSeconds : outcome.runSeconds) = secondsSince(begin);
  if (!keeperServesOn) child_.reset();
}

// Kills the fork server's serving child and its group, and reads on until the keeper reports the
// death. False when there is no child known to kill or the report does not come in time.
bool Worker::killServingChild() {
  if (servingPid_ <= 0) return false;
  // Its "died" line is unread: the keeper has not reaped it, or has just done so and is writing
  // the line (for the pid to be someone else's meanwhile, the pid counter would have to wrap).
  const pid_t child = std::exchange(servingPid_, 0);
  ::kill(-child, SIGKILL);
  ::kill(child, SIGKILL);  // in case it skipped setpgid: the group kill then missed it
  const Clock::time_point deadline = Clock::now() + spec_.limits.childDeath;
  std::string line;
  while (child_->readLine(line, deadline) == Child::Read::Line) {
    // A reply the child wrote after the deadline is too late: only the keeper's line matters. It
    // may say the child died of something else just before the kill: a timeout all the same.
    auto parsed = parseReply(line, 0, "", 0);
    if (const Reply* reply = std::get_if<Reply>(&parsed); reply && reply->status == "died") {
      ++forks_;
      return true;
    }
  }
  return false;
}

// Kills the worker and reaps it. A fork server's child would die with the keeper, but not what
// it started, in its own process group: that group goes first.
void Worker::killWorker() {
  if (servingPid_ > 0) ::kill(-std::exchange(servingPid_, 0), SIGKILL);
  child_->killAndWait();
}

// The worker closed stdout or stdin mid-case: it is dying or dead. Classifies by how it ended.
void Worker::recordDeath(RunOutcome& outcome, const std::string& phase) {
  std::optional<ExitInfo> info = child_->wait(Clock::now() + std::chrono::seconds(2));
  bool lingered = !info;
  if (lingered) info = child_->killAndWait();  // closed stdout yet kept running
  if (lingered) {
    outcome.stderrTail = child_->stderrTail();
    outcome.phase = stageFromStderr(outcome.stderrTail, phase);
    outcome.status = RunStatus::WorkerError;
    outcome.message = "the worker closed its stdout during " + phase + " but did not exit";
    if (std::string tail = lastLine(outcome.stderrTail); !tail.empty()) outcome.message += ": " + clip(tail, 300);
  } else {
    classifyDeath(outcome, phase, *info, child_->killedByUs());
  }
  killWorker();  // a fork server's child and what it started
  child_.reset();
}

// A worker (or a fork server's child) that died between cases: no case's doing, so no outcome;
// counted and kept, so that it is not lost either.
void Worker::noteIdleDeath(const ExitInfo& info, std::string stderrTail) {
  idleDeathStderr_ = std::move(stderrTail);
  if (idleDeathStderr_.size() > Child::kStderrLimit) idleDeathStderr_.erase(0, idleDeathStderr_.size() - Child::kStderrLimit);
  if (idleDeaths_++ > 0) return;
  const std::string how = info.signal ? "by " + signalName(info.signal) : "with status " + std::to_string(info.code);
  const std::string tail = lastLine(idleDeathStderr_);
  std::fprintf(stderr, "nnfuzz: warning: the %s/%s worker%s died %s between cases; no case is blamed, later ones are only counted%s\n",
               spec_.backend.c_str(), spec_.mode.c_str(), hello_.forkServer ? "'s serving child" : "", how.c_str(),
               tail.empty() ? "" : (": " + clip(tail, 200)).c_str());
}

// A worker (or a fork server's child) that ended mid-case: a crash, out of memory, or an exit.
void Worker::classifyDeath(RunOutcome& outcome, const std::string& phase, const ExitInfo& info, bool killedByUs) {
  outcome.stderrTail = child_->stderrTail();
  outcome.phase = stageFromStderr(outcome.stderrTail, phase);
  std::string recent = outcome.stderrTail.substr(outcome.stderrTail.size() - std::min<size_t>(4096, outcome.stderrTail.size()));
  if (info.signal != 0) {
    outcome.signal = info.signal;
    // SIGKILL that nnfuzz did not send comes from the kernel's OOM killer (or a person).
    bool oom = (info.signal == SIGKILL && !killedByUs) || looksLikeOutOfMemory(recent);
    outcome.status = oom ? RunStatus::OutOfMemory : RunStatus::Crash;
    outcome.message = "worker died by " + signalName(info.signal) + " during " + outcome.phase;
  } else {
    outcome.exitCode = info.code;
    outcome.status = looksLikeOutOfMemory(recent) ? RunStatus::OutOfMemory : RunStatus::WorkerError;
    outcome.message = "worker exited with status " + std::to_string(info.code) + " during " + phase;
  }
  if (std::string tail = lastLine(recent); !tail.empty()) outcome.message += ": " + clip(tail, 300);
}

void Worker::recordProtocolError(RunOutcome& outcome, const std::string& phase, const std::string& problem) {
  killWorker();
  outcome.status = RunStatus::WorkerError;
  outcome.phase = phase;
  outcome.message = "protocol: " + problem;
  outcome.stderrTail = child_->stderrTail();
  child_.reset();
}

void Worker::readOutputs(RunOutcome& outcome, const Reply& reply) {
  try {
    if (!reply.outputsFile.empty()) {
      const onnx::SequenceProto seq = readSequenceFile(reply.outputsFile);
      for (const onnx::TensorProto& tensor : seq.tensor_values()) outcome.outputs.push_back(fromTensorProto(tensor));
    }
    for (const std::string& path : reply.outputs) outcome.outputs.push_back(readTensorFile(path));
    outcome.status = RunStatus::Ok;
  } catch (const std::exception& e) {
    // A result nnfuzz cannot hold (say float16 for a float32 output) is the SUT's doing.
    outcome.outputs.clear();
    outcome.status = RunStatus::RunError;
    outcome.phase = "run";
    outcome.errorType = "BadOutput";
    outcome.message = e.what();
  }
}

}  // namespace nnfuzz
