// worker_test.cpp - isolation: every way a worker can fail becomes the right RunOutcome,
// and the same Worker object serves the next case with a fresh process.
//
// Drives nnfuzz_fake_worker (testdata/fake_worker.cpp) in mode "scripted": each case
// folder holds a `behaviour` file naming what the worker does with it.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "gen/generator.h"
#include "onnx/case_folder.h"
#include "run/side_by_side.h"
#include "run/worker.h"

namespace nnfuzz {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// A temporary folder holding one generated case per behaviour asked for.
class WorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("nnfuzz-worker-test-" + std::to_string(getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    GenConfig config = defaultConfig();
    config.seed = 5;
    config.minOps = 2;
    config.maxOps = 4;
    generated_ = generateCase(config, 0);
    writeCase(root_ / "base", generated_.graph, generated_.inputs, generated_.outputs, nlohmann::json::object(),
              config.opset);
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path caseWith(const std::string& behaviour) {
    fs::path dir = root_ / behaviour;
    if (!fs::exists(dir)) {
      fs::copy(root_ / "base", dir, fs::copy_options::recursive);
      std::ofstream(dir / "behaviour") << behaviour << "\n";
    }
    return dir;
  }

  static WorkerSpec spec(const std::string& mode = "scripted", bool forkServer = false) {
    WorkerSpec s;
    s.forkServer = forkServer;
    s.backend = "fake";
    s.mode = mode;
    s.command = {NNFUZZ_FAKE_WORKER};
    s.limits.start = milliseconds(5000);
    s.limits.prepare = milliseconds(700);
    s.limits.run = milliseconds(700);
    s.limits.memoryBytes = uint64_t{128} << 20;  // small: MALLOC_PERTURB_ touches what the OOM tests allocate
    return s;
  }

  void expectOk(const RunOutcome& o) {
    ASSERT_EQ(o.status, RunStatus::Ok) << o.message << "\n" << o.stderrTail;
    EXPECT_EQ(o.outputs, generated_.outputs);
    EXPECT_EQ(o.version, "0.1");
    EXPECT_EQ(o.phase, "");
  }

  fs::path root_;
  GeneratedCase generated_;
};

TEST_F(WorkerTest, OkCasesReuseOneProcess) {
  Worker w(spec());
  for (int i = 0; i < 3; ++i) expectOk(w.runCase(caseWith("ok")));
  EXPECT_EQ(w.starts(), 1);
  EXPECT_EQ(w.hello().name, "fake");
}

struct Expectation {
  std::string behaviour;
  RunStatus status;
  std::string phase;
  int signal = 0;
  std::string messagePart;
  /// Where a fork server makes it differ: a child that dies mid-line leaves its half line in
  /// front of the keeper's "died" line.
  std::string forkServerMessagePart = "";
};

void PrintTo(const Expectation& e, std::ostream* os) { *os << e.behaviour; }

class FailureTest : public WorkerTest, public ::testing::WithParamInterface<std::tuple<Expectation, bool>> {};

// Each failure is classified, and the very same Worker then passes an ordinary case; with and
// without a fork server.
TEST_P(FailureTest, IsClassifiedAndTheNextCaseStillWorks) {
  const auto& [e, forkServer] = GetParam();
  Worker w(spec("scripted", forkServer));
  expectOk(w.runCase(caseWith("ok")));
  EXPECT_EQ(w.hello().forkServer, forkServer);
  RunOutcome bad = w.runCase(caseWith(e.behaviour));
  EXPECT_EQ(runStatusName(bad.status), std::string(runStatusName(e.status))) << bad.message << "\n" << bad.stderrTail;
  EXPECT_EQ(bad.phase, e.phase);
  EXPECT_EQ(bad.signal, e.signal) << bad.message;
  const std::string& part = forkServer && !e.forkServerMessagePart.empty() ? e.forkServerMessagePart : e.messagePart;
  EXPECT_NE(bad.message.find(part), std::string::npos) << bad.message;
  EXPECT_TRUE(bad.outputs.empty());
  EXPECT_EQ(bad.backend, "fake");
  EXPECT_EQ(bad.mode, "scripted");
  expectOk(w.runCase(caseWith("ok")));
}

INSTANTIATE_TEST_SUITE_P(
    Isolation, FailureTest,
    ::testing::Combine(::testing::Values(
        Expectation{"segv-prepare", RunStatus::Crash, "prepare", SIGSEGV, "SIGSEGV during prepare"},
        Expectation{"segv-run", RunStatus::Crash, "run", SIGSEGV, "SIGSEGV during run"},
        Expectation{"abort-run", RunStatus::Crash, "run", SIGABRT, "SIGABRT"},
        Expectation{"heap-overflow", RunStatus::Crash, "run", SIGABRT, "SIGABRT"},
        Expectation{"hang-prepare", RunStatus::Timeout, "prepare", 0, "prepare took longer than 0.7 s"},
        Expectation{"hang-run", RunStatus::Timeout, "run", 0, "run took longer than 0.7 s"},
        Expectation{"oom-run", RunStatus::OutOfMemory, "run", SIGABRT, "bad_alloc"},
        Expectation{"oom-caught", RunStatus::OutOfMemory, "run", 0, "bad_alloc"},
        Expectation{"kill-self", RunStatus::OutOfMemory, "run", SIGKILL, "SIGKILL"},
        Expectation{"garbage", RunStatus::WorkerError, "run", 0, "protocol: not a JSON object: Loading model"},
        Expectation{"exit-run", RunStatus::WorkerError, "run", 0, "exited with status 1 during run"},
        Expectation{"worker-error", RunStatus::WorkerError, "prepare", 0, "no model.onnx"},
        Expectation{"error-prepare", RunStatus::PrepareError, "prepare", 0, "Could not find an implementation"},
        Expectation{"error-run", RunStatus::RunError, "run", 0, "bad shape"},
        Expectation{"f16-output", RunStatus::RunError, "run", 0, "FLOAT16"},
        Expectation{"stderr-flood", RunStatus::Crash, "run", SIGABRT, "last words"},
        // Steps of prepare a worker names: in the error reply, or on stderr before it died.
        Expectation{"error-convert", RunStatus::PrepareError, "convert", 0, "cannot convert Foo"},
        Expectation{"segv-convert", RunStatus::Crash, "convert", SIGSEGV, "SIGSEGV during convert"},
        Expectation{"hang-optimize", RunStatus::Timeout, "optimize", 0, "optimize took longer than 0.7 s"},
        Expectation{"stage-then-segv-prepare", RunStatus::Crash, "prepare", SIGSEGV, "SIGSEGV during prepare"},
        Expectation{"bad-stage", RunStatus::WorkerError, "prepare", 0, "bad stage 'Convert it'"},
        // Faults of the pipe itself.
        Expectation{"partial-reply", RunStatus::WorkerError, "run", 0, "exited with status 3 during run",
                    "protocol: not a JSON object"},
        Expectation{"stdout-flood", RunStatus::WorkerError, "run", 0, "reply line too long"},
        Expectation{"orphan-exit", RunStatus::WorkerError, "run", 0, "exited with status 4 during run"}),
    ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<Expectation, bool>>& info) {
      std::string name = std::get<0>(info.param).behaviour;
      for (char& c : name)
        if (c == '-') c = '_';
      return name + (std::get<1>(info.param) ? "_forked" : "");
    });

TEST_F(WorkerTest, ErrorRepliesKeepTheWorkerAlive) {
  Worker w(spec());
  EXPECT_EQ(w.runCase(caseWith("error-prepare")).errorType, "NotImplemented");
  EXPECT_EQ(w.runCase(caseWith("worker-error")).status, RunStatus::WorkerError);
  expectOk(w.runCase(caseWith("ok")));
  EXPECT_EQ(w.starts(), 1);
}

TEST_F(WorkerTest, DeathsRestartAFreshWorker) {
  Worker w(spec());
  EXPECT_EQ(w.runCase(caseWith("segv-run")).status, RunStatus::Crash);
  EXPECT_FALSE(w.running());
  EXPECT_EQ(w.runCase(caseWith("hang-run")).status, RunStatus::Timeout);
  expectOk(w.runCase(caseWith("ok")));
  EXPECT_EQ(w.starts(), 3);
}

// A fork server's child that dies, or hangs and is killed, costs a fork: the keeper (the process
// nnfuzz started) lives on and reports it.
TEST_F(WorkerTest, AForkServerReplacesItsDeadChildWithoutARestart) {
  Worker w(spec("scripted", true));
  expectOk(w.runCase(caseWith("ok")));
  for (const char* fatal : {"segv-run", "abort-run", "segv-prepare", "exit-run", "hang-prepare", "hang-run"}) {
    EXPECT_NE(w.runCase(caseWith(fatal)).status, RunStatus::Ok);
    EXPECT_TRUE(w.running());
    expectOk(w.runCase(caseWith("ok")));
  }
  EXPECT_EQ(w.starts(), 1);
  EXPECT_EQ(w.forks(), 6);
}

// The pid a fake worker's "grandchild N" line on stderr names, or 0.
pid_t grandchildIn(const std::string& stderrTail) {
  const size_t at = stderrTail.find("grandchild ");
  return at == std::string::npos ? 0 : std::atoi(stderrTail.c_str() + at + 11);
}

// True once `pid` is gone, or a zombie waiting for init to reap it: killed either way.
bool dies(pid_t pid) {
  for (int i = 0; i < 200 && ::kill(pid, 0) == 0; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string number, comm, state;
    if (stat >> number >> comm >> state && state == "Z") return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return ::kill(pid, 0) != 0;
}

// A hang under a fork server kills the child and what it started, nothing else: the outcome is the
// timeout a plain worker's is, and the next case needs no restart.
TEST_F(WorkerTest, ATimeoutKillsAForkServersChildAlone) {
  Worker w(spec("scripted", true));
  expectOk(w.runCase(caseWith("ok")));
  RunOutcome o = w.runCase(caseWith("hang-run"));
  EXPECT_EQ(o.status, RunStatus::Timeout);
  EXPECT_EQ(o.phase, "run");
  EXPECT_EQ(o.message, "run took longer than 0.7 s");
  const pid_t grandchild = grandchildIn(o.stderrTail);
  ASSERT_GT(grandchild, 0) << o.stderrTail;
  EXPECT_TRUE(dies(grandchild));
  expectOk(w.runCase(caseWith("ok")));
  EXPECT_EQ(w.starts(), 1);
  EXPECT_EQ(w.forks(), 1);
}

// A keeper that names no child (an older one), or does not report the death of the child nnfuzz
// killed, costs the whole worker, as before.
TEST_F(WorkerTest, ATimeoutKillsTheWholeForkServerWhenItMustAndTheNextCaseWorks) {
  for (const char* hang : {"hang-run", "hang-run-stop-keeper"}) {
    WorkerSpec s = spec("scripted", true);
    if (std::string(hang) == "hang-run") s.env.emplace_back("NNFUZZ_FAKE_FORKED", "0");
    s.limits.childDeath = milliseconds(300);
    Worker w(s);
    expectOk(w.runCase(caseWith("ok")));
    RunOutcome o = w.runCase(caseWith(hang));
    EXPECT_EQ(o.status, RunStatus::Timeout) << hang;
    EXPECT_EQ(o.message, "run took longer than 0.7 s");
    if (const pid_t grandchild = grandchildIn(o.stderrTail)) {
      EXPECT_TRUE(dies(grandchild));
    }
    expectOk(w.runCase(caseWith("ok")));
    EXPECT_EQ(w.starts(), 2) << hang;
  }
}

// Killing a fork server outright (here for a protocol error) kills what its child started too,
// though the child's own process group is not the worker's.
TEST_F(WorkerTest, NothingAForkServersChildStartedOutlivesTheWorker) {
  Worker w(spec("scripted", true));
  RunOutcome o = w.runCase(caseWith("garbage-with-grandchild"));
  EXPECT_EQ(o.status, RunStatus::WorkerError);
  const pid_t grandchild = grandchildIn(o.stderrTail);
  ASSERT_GT(grandchild, 0) << o.stderrTail;
  EXPECT_TRUE(dies(grandchild));
}

TEST(ProtocolLines, ForkServerDeathLines) {
  auto death = [](const std::string& line, uint64_t id) {
    auto parsed = parseReply(line, id, "run", 0);
    EXPECT_TRUE(std::holds_alternative<Reply>(parsed)) << line;
    return std::holds_alternative<Reply>(parsed) ? std::get<Reply>(parsed) : Reply{};
  };
  Reply r = death(R"({"died": {"signal": 11}, "id": 4})", 4);
  EXPECT_EQ(r.status, "died");
  EXPECT_TRUE(r.death.duringRequest);
  EXPECT_FALSE(r.death.exited);
  EXPECT_EQ(r.death.signal, 11);
  r = death(R"({"died": {"exit": 1}, "id": null})", 4);
  EXPECT_FALSE(r.death.duringRequest);
  EXPECT_TRUE(r.death.exited);
  EXPECT_EQ(r.death.code, 1);
  EXPECT_FALSE(death(R"({"died": {"exit": 0}, "id": 3})", 4).death.duringRequest);
  r = death(R"({"forked": 4321})", 4);
  EXPECT_EQ(r.status, "forked");
  EXPECT_EQ(r.forkedPid, 4321);
  for (const char* bad : {R"({"died": {}, "id": 4})", R"({"died": {"signal": 11, "exit": 1}, "id": 4})",
                          R"({"died": {"signal": 0}, "id": 4})", R"({"died": {"exit": 300}, "id": 4})",
                          R"({"died": 11, "id": 4})", R"({"died": {"signal": "SEGV"}, "id": 4})",
                          R"({"forked": 1})", R"({"forked": -7})", R"({"forked": "4321"})",
                          R"({"forked": 99999999999})"})
    EXPECT_TRUE(std::holds_alternative<std::string>(parseReply(bad, 4, "run", 0))) << bad;
  EXPECT_TRUE(std::get<Hello>(parseHello(R"({"hello": "x", "fork_server": true})")).forkServer);
  EXPECT_FALSE(std::get<Hello>(parseHello(R"({"hello": "x", "fork_server": 1})")).forkServer);
}

// A worker that dies after its last reply died during no case: the next one is not blamed, and
// the death is counted and its stderr kept rather than lost.
TEST_F(WorkerTest, ADeathBetweenCasesBlamesNoCaseButIsCounted) {
  for (const bool forkServer : {false, true}) {
    Worker w(spec("scripted", forkServer));
    expectOk(w.runCase(caseWith("segv-after-reply")));
    std::this_thread::sleep_for(milliseconds(200));  // a plain worker is then found dead before the next request
    expectOk(w.runCase(caseWith("ok")));
    expectOk(w.runCase(caseWith("ok")));
    EXPECT_EQ(w.idleDeaths(), 1);
    EXPECT_NE(w.idleDeathStderr().find("dying after my reply"), std::string::npos) << w.idleDeathStderr();
    EXPECT_EQ(w.starts(), forkServer ? 1 : 2);
  }
}

TEST_F(WorkerTest, StderrTailIsTheLast64KiB) {
  Worker w(spec());
  RunOutcome o = w.runCase(caseWith("stderr-flood"));
  EXPECT_EQ(o.stderrTail.size(), size_t{64 * 1024});
  EXPECT_TRUE(o.stderrTail.ends_with("eee\nlast words\n")) << o.stderrTail.substr(o.stderrTail.size() - 100);
}

TEST_F(WorkerTest, HeapCorruptionPassesSilentlyWithoutHeapChecking) {
  // The contrast that shows MALLOC_CHECK_ (with libc_malloc_debug) is what catches it.
  WorkerSpec s = spec();
  s.heapCheck = false;
  Worker w(s);
  expectOk(w.runCase(caseWith("heap-overflow")));
}

TEST_F(WorkerTest, TimeoutKillsTheWholeProcessGroup) {
  Worker w(spec());
  RunOutcome o = w.runCase(caseWith("hang-run"));
  ASSERT_EQ(o.status, RunStatus::Timeout);
  const pid_t grandchild = grandchildIn(o.stderrTail);
  ASSERT_GT(grandchild, 0) << o.stderrTail;
  EXPECT_TRUE(dies(grandchild));
}

TEST_F(WorkerTest, WorkerThatExitsAfterHelloIsAWorkerErrorEveryTime) {
  Worker w(spec("exit-after-hello"));
  for (int i = 0; i < 2; ++i) {
    RunOutcome o = w.runCase(caseWith("ok"));
    EXPECT_EQ(o.status, RunStatus::WorkerError) << o.message;
    EXPECT_EQ(o.exitCode, 0) << o.message;
  }
  EXPECT_EQ(w.starts(), 2);
}

TEST_F(WorkerTest, StartFailuresAreWorkerErrors) {
  WorkerSpec slow = spec("slow-start");
  slow.limits.start = milliseconds(300);
  RunOutcome o = Worker(slow).runCase(caseWith("ok"));
  EXPECT_EQ(o.status, RunStatus::WorkerError);
  EXPECT_EQ(o.phase, "start");
  EXPECT_NE(o.message.find("no hello within 0.3 s"), std::string::npos) << o.message;

  o = Worker(spec("no-hello")).runCase(caseWith("ok"));
  EXPECT_NE(o.message.find("exited with status 3 before its hello (stderr: fake worker: not installed)"),
            std::string::npos)
      << o.message;

  o = Worker(spec("no-such-mode")).runCase(caseWith("ok"));
  EXPECT_NE(o.message.find("unknown mode 'no-such-mode'"), std::string::npos) << o.message;

  WorkerSpec missing = spec();
  missing.command = {"/nonexistent/worker"};
  o = Worker(missing).runCase(caseWith("ok"));
  EXPECT_EQ(o.status, RunStatus::WorkerError);
  EXPECT_NE(o.message.find("cannot run '/nonexistent/worker': No such file"), std::string::npos) << o.message;
}

TEST_F(WorkerTest, MemoryLimitIsEnforced) {
  WorkerSpec s = spec();
  s.limits.memoryBytes = uint64_t{96} << 20;
  Worker w(s);
  auto begin = std::chrono::steady_clock::now();
  RunOutcome o = w.runCase(caseWith("oom-caught"));
  EXPECT_EQ(o.status, RunStatus::OutOfMemory) << o.message;
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(5));
}

// The protocol's own cost per case (request, two replies, output files read back), with a
// worker that does no work: it must stay far below an ONNX Runtime test (about 5 ms).
TEST_F(WorkerTest, ProtocolOverheadPerCaseIsSmall) {
  fs::path ok = caseWith("ok");  // packed: protocol 1 gets an unpacked copy of it each time
  for (const char* protocol : {"1", "2"}) {
    WorkerSpec s = spec();
    s.env.emplace_back("NNFUZZ_FAKE_PROTOCOL", protocol);
    Worker w(s);
    expectOk(w.runCase(ok));  // start-up is not per-case
    const int cases = 300;
    auto begin = std::chrono::steady_clock::now();
    for (int i = 0; i < cases; ++i) ASSERT_EQ(w.runCase(ok).status, RunStatus::Ok);
    double perCase = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() / cases;
    std::printf("protocol %s overhead: %.3f ms per case (fake worker, %d cases)\n", protocol, perCase * 1e3, cases);
    EXPECT_LT(perCase, 0.005);
    EXPECT_EQ(w.starts(), 1);
  }
}

// Protocol 2: the packed case goes as it is (no unpacked copy in the scratch folder) and the
// outputs come back in one file; protocol 1 gets the copy in ONNX's layout.
TEST_F(WorkerTest, PackedRequestsGoToProtocol2WorkersOnly) {
  for (const bool v2 : {false, true}) {
    WorkerSpec s = spec("ok");
    if (v2) s.env.emplace_back("NNFUZZ_FAKE_PROTOCOL", "2");
    s.scratchDir = root_ / (v2 ? "scratch2" : "scratch1");
    Worker w(s);
    for (int i = 0; i < 2; ++i) expectOk(w.runCase(root_ / "base"));
    EXPECT_EQ(w.hello().protocol, v2 ? 2 : 1);
    EXPECT_EQ(fs::exists(s.scratchDir / "case"), !v2);
    EXPECT_EQ(fs::exists(s.scratchDir / "out" / kPackedOutputs), v2);
    EXPECT_EQ(fs::exists(s.scratchDir / "out" / "output_0.pb"), !v2);
  }
}

TEST(ProtocolLines, Protocol2HelloAndPackedReply) {
  auto hello = parseHello(R"({"hello": "x", "modes": ["m"], "protocol": 2})");
  ASSERT_TRUE(std::holds_alternative<Hello>(hello));
  EXPECT_EQ(std::get<Hello>(hello).protocol, 2);
  EXPECT_EQ(std::get<Hello>(parseHello(R"({"hello": "x"})")).protocol, 1);
  EXPECT_EQ(std::get<Hello>(parseHello(R"({"hello": "x", "protocol": "2"})")).protocol, 1);
  auto reply = parseReply(R"({"id": 3, "phase": "run", "status": "ok", "outputs_file": "/o/outputs.pb"})", 3, "run", 0);
  ASSERT_TRUE(std::holds_alternative<Reply>(reply));
  EXPECT_EQ(std::get<Reply>(reply).outputsFile, "/o/outputs.pb");
  EXPECT_TRUE(std::get<Reply>(reply).outputs.empty());
  EXPECT_TRUE(std::holds_alternative<std::string>(
      parseReply(R"({"id": 3, "phase": "run", "status": "ok", "outputs_file": 7})", 3, "run", 0)));
  EXPECT_TRUE(std::holds_alternative<std::string>(parseReply(R"({"id": 3, "phase": "run", "status": "ok"})", 3, "run", 0)));
}

// A test's workers all at once: outcomes in the workers' order, a death in one touches none
// of the others, and the workers go on serving after the SideBySide is gone.
TEST_F(WorkerTest, SideBySideRunsEveryWorkerOnTheCase) {
  Worker a(spec()), b(spec()), c(spec());
  fs::path ok = caseWith("ok"), segv = caseWith("segv-run");
  {
    SideBySide all({&a, &b, &c});
    for (int i = 0; i < 3; ++i) {
      std::vector<RunOutcome> outcomes = all.runCase(ok);
      ASSERT_EQ(outcomes.size(), 3u);
      for (const RunOutcome& o : outcomes) expectOk(o);
    }
    std::vector<RunOutcome> outcomes = all.runCase(segv);
    for (const RunOutcome& o : outcomes) EXPECT_EQ(o.status, RunStatus::Crash) << o.message;
    for (const RunOutcome& o : all.runCase(ok)) expectOk(o);
  }
  for (Worker* w : {&a, &b, &c}) expectOk(w->runCase(ok));
  EXPECT_TRUE(SideBySide({}).runCase(ok).empty());
}

TEST(OutOfMemoryHeuristic, RecognisesTheUsualWordings) {
  EXPECT_TRUE(looksLikeOutOfMemory("MemoryError"));
  EXPECT_TRUE(looksLikeOutOfMemory("terminate called after throwing an instance of 'std::bad_alloc'"));
  EXPECT_TRUE(looksLikeOutOfMemory("mmap failed: Cannot allocate memory"));
  EXPECT_TRUE(looksLikeOutOfMemory("[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Failed to allocate memory"));
  EXPECT_FALSE(looksLikeOutOfMemory("Segmentation fault in Conv"));
  EXPECT_FALSE(looksLikeOutOfMemory("Could not find an implementation for Memory(1)"));
}

TEST(RunStatusNames, AreStable) {
  EXPECT_STREQ(runStatusName(RunStatus::Ok), "ok");
  EXPECT_STREQ(runStatusName(RunStatus::OutOfMemory), "out-of-memory");
  EXPECT_STREQ(runStatusName(RunStatus::WorkerError), "worker-error");
}

}  // namespace
}  // namespace nnfuzz
