// cmd_fuzz.cpp - `nnfuzz fuzz`: the campaign loop. Each of -j pipelines repeats
// generate -> write the case to scratch -> every backend/mode -> oracle -> triage -> store,
// with its own workers. Test indices come from one counter, so a case is (config, seed,
// index) whatever -j is; the store makes every finding durable before the next test, and
// --resume continues from the store (re-running tests a kill interrupted).
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <unistd.h>

#include <fmt/core.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/finding_reducer.h"
#include "cli/sut_set.h"
#include "gen/generator.h"
#include "onnx/case_folder.h"
#include "store/bundle.h"
#include "store/campaign_store.h"
#include "store/findings.h"
#include "support/error.h"

namespace nnfuzz::cli {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// Set by SIGINT/SIGTERM: pipelines finish the test in hand and stop. A signal handler can
// only reach a global.
std::atomic<bool> gStop{false};
extern "C" void onStopSignal(int) { gStop = true; }

struct FuzzOptions {
  std::string backends = "onnxruntime";
  std::string backendsFile;
  std::string configPath;
  std::string out;
  std::string policy = "allclose";
  double minutes = 2;
  int64_t maxTests = -1;
  int jobs = 1;
  bool resume = false;
  bool reduce = true;
  uint64_t seed = 1;
  bool seedGiven = false;
  double prepareSeconds = 60, runSeconds = 30;
  double memoryGb = 4;
};

/// Live counters shared by the pipelines.
struct Tally {
  std::mutex mu;
  int64_t tests = 0;
  int64_t uniqueBugs = 0;
  std::map<std::string, SutCounts> perSut;  // "backend/mode"
};

void countJudgement(Tally& t, const JudgedRun& run) {
  const Judgement& j = run.judgement;
  SutCounts& c = t.perSut[j.backend + "/" + j.mode + (j.against == "reference" ? "" : " vs " + j.against)];
  if (j.verdict == Verdict::Pass) ++c.pass;
  else if (j.verdict == Verdict::Unsupported) ++c.unsupported;
  else if (j.verdict == Verdict::HarnessError) ++c.harnessErrors;
  else ++c.bugs;
  if (run.bug && run.bug->isNew) ++t.uniqueBugs;
}

std::string progressLine(Tally& t, double seconds) {
  std::lock_guard lock(t.mu);
  std::string line = fmt::format("{:6.0f}s  tests {}  ({:.1f}/s)  unique bugs {} |", seconds, t.tests,
                                 seconds > 0 ? static_cast<double>(t.tests) / seconds : 0.0, t.uniqueBugs);
  for (const auto& [sut, c] : t.perSut)
    if (sut.find(" vs ") == std::string::npos) line += fmt::format(" {} {}/{}/{}", sut, c.pass, c.unsupported, c.bugs);
  return line;
}

void pipeline(int id, const GenConfig& config, const std::vector<SutChoice>& suts, const WorkerLimits& limits,
              CampaignStore& store, const Oracle& oracle, const BundleContext& context, const fs::path& scratch,
              std::atomic<int64_t>& next, std::vector<int64_t>& redo, std::mutex& redoMu, int64_t lastIndex,
              Clock::time_point deadline, Tally& tally, Culprits& culprits, bool reduce) {
  auto workers = makeWorkers(suts, limits);
  const fs::path caseDir = scratch / fmt::format("p{}", id) / "case";
  ReducerSettings reducing;
  reducing.scratch = scratch / fmt::format("p{}", id);
  reducing.opset = config.opset;
  while (!gStop && Clock::now() < deadline) {
    int64_t index = -1;
    {
      std::lock_guard lock(redoMu);
      if (!redo.empty()) {
        index = redo.back();
        redo.pop_back();
      }
    }
    if (index < 0) index = next++;
    if (lastIndex >= 0 && index > lastIndex) break;
    const auto started = Clock::now();
    GeneratedCase c = generateCase(config, static_cast<uint64_t>(index));
    const double genSeconds = std::chrono::duration<double>(Clock::now() - started).count();
    fs::remove_all(caseDir);
    nlohmann::json meta = {{"generator", config.generator}, {"seed", config.seed}, {"case_index", index},
                           {"case_seed", caseSeed(config.seed, static_cast<uint64_t>(index))},
                           {"ops", c.opTypes()}, {"flags", {{"non_finite", c.nonFinite}}}};
    writeCase(caseDir, c.graph, c.inputs, c.outputs, meta, config.opset);
    std::vector<RunOutcome> outcomes;
    for (auto& worker : workers) outcomes.push_back(worker->runCase(caseDir));
    TestRecord test{index, caseSeed(config.seed, static_cast<uint64_t>(index)), config.generator, c.opTypes(),
                    genSeconds, 0.0};
    FindingReducer reducer;
    if (reduce) reducer = makeFindingReducer(workers, oracle, culprits, reducing, c.graph, c.inputs, !c.nonFinite, meta);
    auto judged = recordFindings(store, oracle, context, test, outcomes, c.nonFinite ? nullptr : &c.outputs,
                                 [&] { return bundleCase(c.graph, c.inputs, c.outputs, meta, config.opset); }, reducer);
    std::lock_guard lock(tally.mu);
    ++tally.tests;
    for (const JudgedRun& run : judged) countJudgement(tally, run);
  }
}

void printSummary(CampaignStore& store, Tally& tally, double seconds, const fs::path& out) {
  fmt::print("\n{:<34} {:>8} {:>12} {:>8} {:>8}\n", "backend/mode", "pass", "unsupported", "bugs", "harness");
  for (const auto& [sut, c] : tally.perSut)
    fmt::print("{:<34} {:>8} {:>12} {:>8} {:>8}\n", sut, c.pass, c.unsupported, c.bugs, c.harnessErrors);
  const auto bugs = store.bugs();
  fmt::print("\n{} tests in {:.0f} s ({:.2f} tests/s); {} unique bugs in the campaign (this session found {})\n",
             tally.tests, seconds, seconds > 0 ? static_cast<double>(tally.tests) / seconds : 0.0, bugs.size(),
             tally.uniqueBugs);
  for (const StoredBug& b : bugs) {
    // What the bug is about, at a glance: a wrong result's (reduced) operators, else the words.
    std::string gist;
    for (const std::string& op : b.signature.opTypes) gist += (gist.empty() ? "" : ",") + op;
    if (gist.empty()) gist = b.signature.symptom + (b.signature.message.empty() ? "" : ": " + b.signature.message);
    if (gist.size() > 70) gist = gist.substr(0, 67) + "...";
    fmt::print("  {:>5}x  {}  {}\n", b.count, b.bundle.empty() ? b.hash : b.bundle, gist);
  }
  fmt::print("campaign: {} (resume with --resume)\n", out.string());
}

void runFuzz(const FuzzOptions& o) {
  if (o.jobs < 1) throw Error("-j must be >= 1");
  if (!(o.minutes > 0) && o.maxTests < 0) throw Error("give --minutes > 0 or -n");
  const fs::path out = o.out;
  const fs::path db = out / "campaign.db";
  if (!o.resume && fs::exists(db)) throw Error("campaign " + out.string() + " exists (use --resume or a new folder)");
  if (o.resume && !fs::exists(db)) throw Error("nothing to resume: " + db.string() + " does not exist");
  std::error_code ec;
  fs::create_directories(out / "bugs", ec);
  if (ec) throw Error("cannot create campaign folder " + out.string() + ": " + ec.message());

  auto policy = Policy::named(o.policy);
  if (!policy) throw Error("unknown policy '" + o.policy + "' (allclose or luo)");
  WorkerLimits limits;
  limits.prepare = std::chrono::milliseconds(static_cast<int64_t>(o.prepareSeconds * 1000));
  limits.run = std::chrono::milliseconds(static_cast<int64_t>(o.runSeconds * 1000));
  limits.memoryBytes = static_cast<uint64_t>(o.memoryGb * (1ull << 30));
  const auto suts = chooseSuts(o.backends, o.backendsFile, limits);

  GenConfig config = o.configPath.empty() ? defaultConfig() : loadConfigFile(o.configPath);
  if (o.seedGiven) config.seed = o.seed;
  CampaignStore store(db, configToJson(config), sutVersions(suts));
  if (store.resumed()) config = applyConfigJson(defaultConfig(), store.config());  // the campaign's own policy
  validateConfig(config);
  removePartialBundles(out / "bugs");

  BundleContext context;
  context.bugsDir = out / "bugs";
  context.versions = sutVersions(suts);
  context.prepareLimitSeconds = o.prepareSeconds;
  context.runLimitSeconds = o.runSeconds;
  context.memoryLimitMb = o.memoryGb * 1024;
  const Oracle oracle(*policy);

  std::atomic<int64_t> next{store.nextTestIndex()};
  std::vector<int64_t> redo = store.missingTests();
  std::mutex redoMu;
  const int64_t first = next.load();
  const int64_t lastIndex = o.maxTests >= 0 ? first + o.maxTests - 1 : -1;
  const fs::path scratch = fs::temp_directory_path() / fmt::format("nnfuzz-{}", ::getpid());
  const auto start = Clock::now();
  const auto deadline = o.minutes > 0 ? start + std::chrono::milliseconds(static_cast<int64_t>(o.minutes * 60000))
                                      : Clock::time_point::max();
  fmt::print("fuzzing {} with {} pipeline(s){}; campaign {}\n", o.backends, o.jobs,
             store.resumed() ? fmt::format(", resuming at test {}", first) : "", out.string());
  std::fflush(stdout);

  gStop = false;
  auto previousInt = std::signal(SIGINT, onStopSignal);
  auto previousTerm = std::signal(SIGTERM, onStopSignal);
  Tally tally;
  Culprits culprits;
  for (const StoredBug& b : store.bugs()) {
    // A resumed campaign's one-operator wrong results are known culprits already.
    if (b.signature.verdict == "dcf" && b.signature.opTypes.size() == 1)
      culprits.add(b.signature.backend + "/" + b.signature.against, b.signature.opTypes[0]);
  }
  std::vector<std::thread> threads;
  for (int p = 0; p < o.jobs; ++p)
    threads.emplace_back(pipeline, p, std::cref(config), std::cref(suts), std::cref(limits), std::ref(store),
                         std::cref(oracle), std::cref(context), std::cref(scratch), std::ref(next), std::ref(redo),
                         std::ref(redoMu), lastIndex, deadline, std::ref(tally), std::ref(culprits), o.reduce);
  const bool tty = ::isatty(STDOUT_FILENO);
  std::atomic<bool> done{false};
  std::thread progress([&] {
    auto lastStats = Clock::now();
    auto lastPrint = Clock::now();
    while (!done) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (done) break;
      if (Clock::now() - lastPrint < std::chrono::milliseconds(tty ? 500 : 10000)) continue;
      lastPrint = Clock::now();
      const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      const std::string line = progressLine(tally, seconds);
      if (tty) fmt::print("\r{}\x1b[K", line);
      else fmt::print("{}\n", line);
      std::fflush(stdout);
      if (Clock::now() - lastStats >= std::chrono::seconds(10)) {
        std::lock_guard lock(tally.mu);
        store.recordStats({seconds, tally.tests, static_cast<double>(tally.tests) / seconds,
                           static_cast<int64_t>(store.bugs().size()), tally.perSut});
        lastStats = Clock::now();
      }
    }
  });
  for (auto& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  done = true;
  progress.join();
  std::signal(SIGINT, previousInt);
  std::signal(SIGTERM, previousTerm);
  fs::remove_all(scratch, ec);
  {
    std::lock_guard lock(tally.mu);
    store.recordStats({seconds, tally.tests, seconds > 0 ? static_cast<double>(tally.tests) / seconds : 0.0,
                       static_cast<int64_t>(store.bugs().size()), tally.perSut});
  }
  if (tty) fmt::print("\n");
  fmt::print("{}\n", progressLine(tally, seconds));
  printSummary(store, tally, seconds, out);
}

}  // namespace

void addFuzzCommand(CLI::App& app) {
  auto o = std::make_shared<FuzzOptions>();
  auto* cmd = app.add_subcommand("fuzz", "Run a campaign: generate, run every backend/mode, judge, triage, store");
  cmd->add_option("--backends", o->backends, "comma-separated SUTs (see nnfuzz backends)")->capture_default_str();
  cmd->add_option("--backends-file", o->backendsFile, "extra backend definitions (your own engine's worker)");
  cmd->add_option("--minutes", o->minutes, "stop after this many minutes (0: only -n)")->capture_default_str();
  cmd->add_option("-n,--tests", o->maxTests, "stop after this many tests");
  cmd->add_option("-j,--jobs", o->jobs, "parallel pipelines (each with its own workers)")->capture_default_str();
  cmd->add_option("-o,--out", o->out, "campaign folder (campaign.db, bugs/)")->required();
  cmd->add_option("--config", o->configPath, "generation config (JSON)")->check(CLI::ExistingFile);
  cmd->add_option("--seed", o->seed, "campaign seed")->each([o](const std::string&) { o->seedGiven = true; });
  cmd->add_option("--policy", o->policy, "comparison policy: allclose | luo")->capture_default_str();
  cmd->add_option("--prepare-timeout", o->prepareSeconds, "seconds per prepare phase")->capture_default_str();
  cmd->add_option("--run-timeout", o->runSeconds, "seconds per run phase")->capture_default_str();
  cmd->add_option("--memory-gb", o->memoryGb, "address-space limit per worker")->capture_default_str();
  cmd->add_flag("--resume", o->resume, "continue the campaign in --out");
  cmd->add_flag("!--no-reduce", o->reduce,
                "keep findings whole (by default a bug is shown on its smallest failing sub-model, and a wrong "
                "result is named by that sub-model's operators)");
  cmd->callback([o] { runFuzz(*o); });
}

}  // namespace nnfuzz::cli
