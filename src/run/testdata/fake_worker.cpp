// fake_worker.cpp - a test-only worker that misbehaves on purpose (run_test drives it).
//
// `nnfuzz_fake_worker --mode BEHAVIOUR` speaks the worker protocol; the mode picks what goes
// wrong. `ok` is a perfect SUT: it copies the case's expected outputs, which also makes it
// the yardstick for the protocol's own per-case overhead. Native C++ on purpose: its crashes
// are real null dereferences, aborts and heap corruptions, not simulated ones.
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "onnx/onnx_pb.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::vector<std::string> kModes = {
    "ok",          "error-prepare", "error-run",    "segv-prepare", "segv-run",    "abort-run",
    "hang-prepare", "hang-run",     "oom-run",      "oom-caught",   "garbage",     "exit-after-hello",
    "exit-run",    "heap-overflow", "stderr-flood", "kill-self",    "f16-output",  "slow-start",
    "no-hello",    "worker-error", "error-convert", "segv-convert", "hang-optimize", "stage-then-segv-prepare",
    "bad-stage",   "partial-reply", "stdout-flood", "orphan-exit", "segv-after-reply", "garbage-with-grandchild",
    "hang-run-stop-keeper", "scripted"};

void send(const json& j) {
  std::cout << j.dump() << "\n" << std::flush;
}

void hang() {
  for (;;) pause();
}

[[noreturn]] void segfault() {
  volatile int* volatile p = nullptr;
  *p = 42;  // a real invalid write, as a buggy SUT would make
  std::abort();
}

// Never returns normally: RLIMIT_AS limits address space, so untouched blocks count too
// and the bad_alloc comes fast.
void allocateForever(std::vector<char*>& hoard) {
  for (;;) {
    char* block = new char[64 << 20];
    asm volatile("" : : "r"(block) : "memory");
    hoard.push_back(block);
  }
}

// One byte past a heap block, inside the chunk's padding (20 bytes asked, 24 usable): glibc's
// default checks cannot see it; MALLOC_CHECK_=3 keeps a guard byte right after the 20 and aborts in free.
// Its guard byte depends on the block's address, so one fill value matches it in 1 run of 256
// (a flaky test): a second block, filled with another value, cannot match too.
void overflowHeap() {
  for (const char fill : {'x', 'y'}) {
    volatile size_t size = 20;  // opaque to GCC, which would reject a constant overflow
    char* block = static_cast<char*>(std::malloc(size));
    asm volatile("" : : "r"(block) : "memory");  // keeps GCC from eliding the malloc/free pair
    std::memset(block, fill, size + 1);
    asm volatile("" : : "r"(block) : "memory");
    std::free(block);
  }
}

std::vector<std::string> copyExpected(const fs::path& caseDir, const fs::path& out) {
  std::vector<std::string> paths;
  for (int n = 0;; ++n) {
    fs::path from = caseDir / "test_data_set_0" / ("output_" + std::to_string(n) + ".pb");
    if (!fs::exists(from)) break;
    fs::path to = out / from.filename();
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    paths.push_back(to.string());
  }
  return paths;
}

std::string halfTensor(const fs::path& out) {
  onnx::TensorProto t;
  t.set_name("y");
  t.set_data_type(onnx::TensorProto::FLOAT16);
  t.add_dims(1);
  t.set_raw_data(std::string("\x00\x3c", 2));  // 1.0 in float16
  fs::path path = out / "output_0.pb";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  std::string bytes = t.SerializeAsString();
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  return path.string();
}

// Fork-server mode: the id of the request the serving child is on, 0 between requests, in a
// page the keeper shares with it.
int64_t* servingId = nullptr;

int serve(const std::string& fixedMode);

// NNFUZZ_FORK_SERVER=1 (docs/worker-protocol.md, "Fork server"): this process keeps forking a
// child that serves requests, and reports each child's death on a "died" line. Each child gets a
// process group of its own and says so on a "forked" line, unless NNFUZZ_FAKE_FORKED=0 asks for
// a keeper of the first version, which did neither.
int keepForking(const std::string& fixedMode) {
  void* page = mmap(nullptr, sizeof(int64_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return serve(fixedMode);
  servingId = static_cast<int64_t*>(page);
  const char* forked = std::getenv("NNFUZZ_FAKE_FORKED");
  const bool ownGroups = !forked || std::string(forked) != "0";
  const pid_t keeper = getpid();
  for (;;) {
    *servingId = 0;
    const pid_t child = fork();
    if (child < 0) return serve(fixedMode);
    if (child == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != keeper) std::_Exit(1);
      if (ownGroups) {
        setpgid(0, 0);
        send({{"forked", getpid()}});
      }
      std::_Exit(serve(fixedMode));
    }
    siginfo_t info;
    while (waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
    }
    if (ownGroups) kill(-child, SIGKILL);  // what it left behind; unreaped, its pid is still its own
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    const int64_t served = *servingId;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && served == 0) return 0;  // end of input
    const json died = WIFSIGNALED(status) ? json{{"signal", WTERMSIG(status)}} : json{{"exit", WEXITSTATUS(status)}};
    send({{"died", died}, {"id", served ? json(served) : json(nullptr)}});
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string fixedMode = argc == 3 && std::string(argv[1]) == "--mode" ? argv[2] : "";
  if (std::find(kModes.begin(), kModes.end(), fixedMode) == kModes.end()) {
    std::fprintf(stderr, "fake worker: unknown mode '%s'\n", fixedMode.c_str());
    return 2;
  }
  if (fixedMode == "no-hello") {
    std::fputs("fake worker: not installed\n", stderr);
    return 3;
  }
  if (fixedMode == "slow-start") hang();
  // NNFUZZ_FAKE_PROTOCOL=2: takes packed requests (docs/worker-protocol.md, "Protocol 2").
  const char* protocol = std::getenv("NNFUZZ_FAKE_PROTOCOL");
  const char* forkServer = std::getenv("NNFUZZ_FORK_SERVER");
  const bool forking = forkServer && std::string(forkServer) == "1";
  send({{"hello", "fake"}, {"version", "0.1"}, {"modes", kModes},
        {"protocol", protocol && std::string(protocol) == "2" ? 2 : 1}, {"fork_server", forking}});
  if (fixedMode == "exit-after-hello") return 0;
  return forking ? keepForking(fixedMode) : serve(fixedMode);
}

namespace {

int serve(const std::string& fixedMode) {
  std::vector<char*> hoard;
  std::string line;
  for (;;) {
    if (servingId) *servingId = 0;
    if (!std::getline(std::cin, line)) break;
    json req = json::parse(line);
    auto id = req["id"];
    if (servingId) *servingId = id.get<int64_t>();
    fs::path caseDir = req["case"].get<std::string>(), out = req["out"].get<std::string>();
    // Mode "scripted" takes each case's behaviour from CASE/behaviour, so one worker can
    // crash on one case and serve the next.
    std::string mode = fixedMode;
    if (mode == "scripted") {
      std::ifstream in(caseDir / "behaviour");
      if (!(in >> mode)) mode = "ok";
    }
    // A worker names the step of prepare it is in on stderr, so a death there is placed in it.
    auto enterStage = [](const char* stage) { std::fprintf(stderr, "chatter\nnnfuzz-stage: %s\n", stage); };
    if (mode == "segv-convert") enterStage("convert"), segfault();
    if (mode == "hang-optimize") enterStage("optimize"), hang();
    if (mode == "stage-then-segv-prepare") enterStage("convert"), enterStage("prepare"), segfault();
    if (mode == "segv-prepare") segfault();
    if (mode == "hang-prepare") hang();
    if (mode == "error-convert" || mode == "bad-stage") {
      send({{"id", id}, {"phase", "prepare"}, {"status", "error"}, {"type", "ConversionError"},
            {"message", "cannot convert Foo"}, {"stage", mode == "bad-stage" ? "Convert it" : "convert"}});
      continue;
    }
    if (mode == "worker-error") {
      send({{"id", id}, {"phase", "prepare"}, {"status", "worker_error"}, {"message", "no model.onnx"}});
      continue;
    }
    if (mode == "error-prepare") {
      send({{"id", id}, {"phase", "prepare"}, {"status", "error"}, {"type", "NotImplemented"},
            {"message", "Could not find an implementation for Foo(17)"}, {"seconds", 0.001}});
      continue;
    }
    send({{"id", id}, {"phase", "prepare"}, {"status", "ok"}, {"seconds", 0.001}});
    if (mode == "segv-run") segfault();
    if (mode == "abort-run") std::abort();
    if (mode == "kill-self") raise(SIGKILL);
    if (mode == "exit-run") std::exit(1);
    if (mode == "heap-overflow") overflowHeap();
    if (mode == "oom-run") allocateForever(hoard);  // uncaught bad_alloc: terminate, SIGABRT
    if (mode == "oom-caught") {
      try {
        allocateForever(hoard);
      } catch (const std::bad_alloc& e) {
        for (char* block : hoard) delete[] block;
        hoard.clear();
        send({{"id", id}, {"phase", "run"}, {"status", "error"}, {"type", "std::bad_alloc"}, {"message", e.what()}});
        continue;
      }
    }
    if (mode == "hang-run") {
      pid_t grandchild = fork();  // the whole process group must die on timeout, not only us
      if (grandchild == 0) hang();
      std::fprintf(stderr, "grandchild %d\n", static_cast<int>(grandchild));
      hang();
    }
    if (mode == "hang-run-stop-keeper") {  // a keeper that cannot report the death nnfuzz causes
      if (servingId) kill(getppid(), SIGSTOP);  // plain, the parent is nnfuzz: left alone
      hang();
    }
    if (mode == "garbage-with-grandchild") {  // the grandchild must not outlive the worker nnfuzz kills
      pid_t grandchild = fork();
      if (grandchild == 0) hang();
      std::fprintf(stderr, "grandchild %d\n", static_cast<int>(grandchild));
      std::cout << "not JSON\n" << std::flush;
      continue;
    }
    if (mode == "partial-reply") {  // dies in the middle of its JSON line
      std::cout << R"({"id": )" << id << R"(, "phase": "run", "status": "ok", "outp)" << std::flush;
      std::_Exit(3);
    }
    if (mode == "stdout-flood") {  // 65 MiB on one line, never a newline
      std::string chunk(1 << 20, 'o');
      for (int i = 0; i < 65; ++i) std::cout.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      std::cout << std::flush;
      hang();
    }
    if (mode == "orphan-exit") {  // a child that keeps stdout and stderr open outlives the worker
      if (fork() == 0) hang();
      std::_Exit(4);
    }
    if (mode == "garbage") {
      std::cout << "Loading model... done (this line is not JSON)\n" << std::flush;
      continue;
    }
    if (mode == "error-run") {
      send({{"id", id}, {"phase", "run"}, {"status", "error"}, {"type", "RuntimeError"}, {"message", "bad shape"}});
      continue;
    }
    if (mode == "stderr-flood") {  // 1 MiB: blocks forever unless nnfuzz drains stderr
      std::string chunk(1024, 'e');
      chunk.back() = '\n';
      for (int i = 0; i < 1024; ++i) std::fwrite(chunk.data(), 1, chunk.size(), stderr);
      std::fputs("last words\n", stderr);
      std::abort();
    }
    const fs::path packed = caseDir / "test_data_set_0" / "outputs.pb";
    if (req.value("packed", false) && mode == "ok" && fs::exists(packed)) {
      fs::copy_file(packed, out / "outputs.pb", fs::copy_options::overwrite_existing);
      send({{"id", id}, {"phase", "run"}, {"status", "ok"}, {"outputs_file", (out / "outputs.pb").string()},
            {"seconds", 0.001}});
      continue;
    }
    std::vector<std::string> outputs = mode == "f16-output" ? std::vector<std::string>{halfTensor(out)}
                                                            : copyExpected(caseDir, out);
    send({{"id", id}, {"phase", "run"}, {"status", "ok"}, {"outputs", outputs}, {"seconds", 0.001}});
    if (mode == "segv-after-reply") std::fputs("dying after my reply\n", stderr), segfault();
  }
  return 0;
}

}  // namespace
