// campaign.cpp - the campaign engine (see campaign.h).
#include "campaign/campaign.h"

#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <unistd.h>

#include <fmt/core.h>

#include "caffe/export.h"
#include "campaign/campaign_config.h"
#include "campaign/campaign_coverage.h"
#include "campaign/finding_reducer.h"
#include "campaign/sut_set.h"
#include "campaign/test_source.h"
#include "gen/graph_gen.h"
#include "onnx/case_folder.h"
#include "run/side_by_side.h"
#include "store/bundle.h"
#include "store/campaign_store.h"
#include "store/findings.h"
#include "support/error.h"

namespace nnfuzz::campaign {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

/// Where a test's wall time goes, summed over the tests (seconds). The SUT's own share is
/// what its workers report for prepare and run; "protocol" is the rest of each round trip
/// (writing the request, the worker reading the case and writing outputs, our reading them).
/// When the workers run side by side, the round trip's wall time is split between SUT and
/// protocol in the proportion of their sums over the workers, so the parts still add up to
/// the test's wall time; `workers` keeps the unsplit sum of the workers' round trips.
struct PhaseTimes {
  double generate = 0;  ///< drawing the model, reference evaluation included
  double write = 0;     ///< the case folder the workers read
  double prepare = 0, run = 0, protocol = 0;
  double start = 0;     ///< starting workers (the SUT's imports), first or after a death
  double reduce = 0;    ///< shrinking new bugs
  double record = 0;    ///< coverage, judging, storing, bundles (reduction excluded)
  double workers = 0;   ///< the workers' round trips, summed (more than the wall side by side)

  void operator+=(const PhaseTimes& o) {
    generate += o.generate, write += o.write, prepare += o.prepare, run += o.run, protocol += o.protocol;
    start += o.start, reduce += o.reduce, record += o.record, workers += o.workers;
  }
  double total() const { return generate + write + prepare + run + protocol + start + reduce + record; }

  /// Adds one test's round trip: its outcomes and the wall time from request to last reply.
  void addRoundTrip(const std::vector<RunOutcome>& outcomes, double wallSeconds) {
    double sutPrepare = 0, sutRun = 0, starting = 0, rest = 0;
    for (const RunOutcome& o : outcomes) {
      sutPrepare += o.prepareSeconds;
      sutRun += o.runSeconds;
      starting += o.startSeconds;
      rest += std::max(0.0, o.wallSeconds - o.startSeconds - o.prepareSeconds - o.runSeconds);
      workers += o.wallSeconds;
    }
    const double summed = sutPrepare + sutRun + starting + rest;
    const double scale = summed > 0 ? wallSeconds / summed : 0;
    prepare += sutPrepare * scale, run += sutRun * scale, start += starting * scale, protocol += rest * scale;
  }
};

/// Live counters shared by the pipelines.
struct Tally {
  std::mutex mu;
  int64_t tests = 0;
  int64_t uniqueBugs = 0;
  std::map<std::string, SutCounts> perSut;  // "backend/mode"
  PhaseTimes times;
};

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/// "generate 0.4 ms (3.1%), write ...": per test, and the share of the pipelines' time.
std::string breakdownText(const PhaseTimes& t, int64_t tests) {
  if (tests <= 0 || t.total() <= 0) return "";
  const std::pair<const char*, double> parts[] = {{"generate", t.generate}, {"write", t.write},
                                                  {"SUT prepare", t.prepare}, {"SUT run", t.run},
                                                  {"worker protocol", t.protocol}, {"worker start", t.start},
                                                  {"judge+record", t.record},
                                                  {"reduce", t.reduce}};
  std::string text = "time per test:";
  for (const auto& [name, seconds] : parts)
    text += fmt::format(" {} {:.2f} ms ({:.1f}%),", name, 1e3 * seconds / static_cast<double>(tests),
                        100 * seconds / t.total());
  text.back() = ';';
  const double ours = t.generate + t.write + t.protocol + t.record;
  text += fmt::format(" nnfuzz's own share {:.1f}% (reduction and worker start aside)\n",
                      100 * ours / (t.total() - t.reduce - t.start));
  const double roundTrip = t.prepare + t.run + t.protocol + t.start;
  if (t.workers > 1.05 * roundTrip)
    text += fmt::format("workers side by side: {:.2f} ms of worker round trips per test in {:.2f} ms of wall time\n",
                        1e3 * t.workers / static_cast<double>(tests), 1e3 * roundTrip / static_cast<double>(tests));
  return text;
}

void countJudgement(Tally& t, const JudgedRun& run) {
  const Judgement& j = run.judgement;
  SutCounts& c = t.perSut[j.backend + "/" + j.mode + (j.against == "reference" ? "" : " vs " + j.against)];
  if (j.verdict == Verdict::Pass) ++c.pass;
  else if (j.verdict == Verdict::Unsupported) ++c.unsupported;
  else if (j.verdict == Verdict::HarnessError) ++c.harnessErrors;
  else ++c.bugs;
  if (run.bug && run.bug->isNew) ++t.uniqueBugs;
}

std::string progressLine(Tally& t, double seconds, const CampaignCoverage& coverage) {
  const auto cov = coverage.summary();
  std::lock_guard lock(t.mu);
  std::string line = fmt::format("{:6.0f}s  tests {}  ({:.1f}/s)  OLC {:.1f}%  unique bugs {} |", seconds, t.tests,
                                 seconds > 0 ? static_cast<double>(t.tests) / seconds : 0.0, 100 * cov.olc,
                                 t.uniqueBugs);
  for (const auto& [sut, c] : t.perSut)
    if (sut.find(" vs ") == std::string::npos) line += fmt::format(" {} {}/{}/{}", sut, c.pass, c.unsupported, c.bugs);
  return line;
}

/// What every pipeline shares.
struct Shared {
  const CampaignOptions& options;
  const GenConfig& gen;
  const std::vector<SutChoice>& suts;
  CampaignStore& store;
  const Oracle& oracle;
  const BundleContext& context;
  TestSource& source;
  CampaignCoverage& coverage;
  Culprits& culprits;
  Tally& tally;
  fs::path scratch;
  std::atomic<int64_t> next{0};  ///< the shard's next position: test shardIndex + next * shardCount
  int shardIndex = 0, shardCount = 1;
  std::vector<int64_t> redo{};
  std::mutex redoMu{};
  int64_t lastIndex = -1;
  Clock::time_point deadline{};
  std::mutex stateMu{};
  Clock::time_point lastStateSave = Clock::now();
  /// The first failure that stops every pipeline (the disk filled up, the database broke).
  std::atomic<bool> failed{false};
  std::mutex failureMu{};
  std::string failure{};
  bool signalled() const { return options.stop && options.stop->load(); }
  bool stopRequested() const { return signalled() || failed.load(); }
  void fail(const std::string& why) {
    std::lock_guard lock(failureMu);
    if (failure.empty()) failure = why;
    failed = true;
  }
};

int64_t nextIndex(Shared& s) {
  {
    std::lock_guard lock(s.redoMu);
    if (!s.redo.empty()) {
      const int64_t index = s.redo.back();
      s.redo.pop_back();
      return index;
    }
  }
  return s.shardIndex + s.next++ * s.shardCount;
}

/// A learning source's state, at most once a second (and once at the end).
void saveSearchState(Shared& s, bool force) {
  if (!s.source.learns()) return;
  std::lock_guard lock(s.stateMu);
  if (!force && Clock::now() - s.lastStateSave < std::chrono::seconds(1)) return;
  s.lastStateSave = Clock::now();
  s.store.saveSearchState(s.source.state(), s.store.testCount());
}

/// Where a test's expected outputs come from, for its meta.json and bundles.
std::string expectedOutputs(const GeneratedCase& c, const Oracle& oracle) {
  if (c.trusted()) return "nnfuzz reference";
  const std::string why = c.nonFinite ? "non-finite reference" : "outputs of operators without an nnfuzz reference";
  if (oracle.fallbackReference().empty()) return "none trusted (" + why + "): mode against mode only";
  return "none trusted (" + why + "): other SUTs against " + oracle.fallbackReference() + ", and mode against mode";
}

void runTests(int id, Shared& s) {
  auto workers = makeWorkers(s.suts, s.options.limits);
  std::vector<Worker*> crew;
  for (auto& worker : workers) crew.push_back(worker.get());
  SideBySide sideBySide(s.options.sideBySide ? crew : std::vector<Worker*>{});
  const fs::path caseDir = s.scratch / fmt::format("p{}", id) / "case";
  ReducerSettings reducing;
  reducing.scratch = s.scratch / fmt::format("p{}", id);
  reducing.caffe = s.gen.format != "onnx";
  reducing.known = [&s](const std::string& hash) { return s.store.knowsBug(hash); };
  while (!s.stopRequested() && Clock::now() < s.deadline) {
    const int64_t index = nextIndex(s);
    if (s.lastIndex >= 0 && index > s.lastIndex) break;
    PhaseTimes times;
    auto started = Clock::now();
    DrawnTest drawn = s.source.draw(index);
    const GeneratedCase& c = drawn.c;
    const double genSeconds = secondsSince(started);
    times.generate = genSeconds;
    started = Clock::now();
    fs::remove_all(caseDir);
    nlohmann::json meta = {{"generator", s.source.name()}, {"seed", s.gen.seed}, {"case_index", index},
                           {"case_seed", drawn.seed}, {"ops", c.opTypes()}, {"flags", {{"non_finite", c.nonFinite}}},
                           {"expected_outputs", expectedOutputs(c, s.oracle)}};
    if (!c.unreferenced.empty()) meta["no_reference_outputs"] = c.unreferenced;
    if (!c.meta.is_null()) meta["graph"] = c.meta;  // the digraph, its blocks, helpers and mutations
    meta.update(drawn.meta);
    // Packed: protocol-2 workers read it as it is (a protocol-1 worker gets an unpacked copy).
    writeCase(caseDir, c.graph, c.inputs, c.outputs, meta, c.graph.opset(), CaseLayout::Packed);
    if (s.gen.format != "onnx") tryWriteCaffeCase(caseDir, c.graph, c.inputs, c.outputs);  // for Caffe backends
    times.write = secondsSince(started);
    started = Clock::now();
    std::vector<RunOutcome> outcomes;
    if (s.options.sideBySide) {
      outcomes = sideBySide.runCase(caseDir);
    } else {
      for (auto& worker : workers) outcomes.push_back(worker->runCase(caseDir));
    }
    times.addRoundTrip(outcomes, secondsSince(started));
    started = Clock::now();
    TestRecord test{index, drawn.seed, s.source.name(), c.opTypes(), genSeconds, 0.0};
    FindingReducer reducer;
    if (s.options.reduce) {
      FindingReducer shrink =
          makeFindingReducer(workers, s.oracle, s.culprits, reducing, c.graph, c.inputs, c.trusted(), meta);
      reducer = [shrink, &times](const Judgement& j, const RunOutcome& o, const Signature& sig) {
        const auto t0 = Clock::now();
        auto reduced = shrink(j, o, sig);
        times.reduce += secondsSince(t0);
        return reduced;
      };
    }
    // Coverage first: a kill before the test row reruns the test, and re-adding grows nothing.
    TestFeedback feedback;
    const CampaignCoverage::Gain gain = s.coverage.add(index, c.graph);
    feedback.coverageGrew = gain.grew;
    feedback.olcGain = gain.olc;
    auto judged = recordFindings(s.store, s.oracle, s.context, test, outcomes, c.trusted() ? &c.outputs : nullptr,
                                 [&] {
                                   return bundleCase(c.graph, c.inputs, c.outputs, meta, c.graph.opset(),
                                                     s.gen.format != "onnx");
                                 },
                                 reducer);
    for (const JudgedRun& run : judged) {
      feedback.bug = feedback.bug || run.judgement.bug();
      feedback.newBug = feedback.newBug || (run.bug && run.bug->isNew);
    }
    s.source.learn(drawn, feedback);
    saveSearchState(s, false);
    times.record = std::max(0.0, secondsSince(started) - times.reduce);
    std::lock_guard lock(s.tally.mu);
    ++s.tally.tests;
    s.tally.times += times;
    for (const JudgedRun& run : judged) countJudgement(s.tally, run);
  }
}

/// One pipeline. A failure of our own (storage, a bug of nnfuzz) stops the whole campaign
/// cleanly: what was recorded stays, the test in hand is rerun by --resume.
void pipeline(int id, Shared& s) {
  try {
    runTests(id, s);
  } catch (const std::exception& e) {
    s.fail(e.what());
  }
}

/// Luo's metrics of the campaign so far, for the store's coverage rows (the report's charts).
CoverageRecord coverageRecord(const CampaignCoverage& coverage, double seconds, int64_t tests) {
  const auto c = coverage.summary();
  return {seconds, tests, {{"luo.olc", c.olc}, {"luo.otc", c.otc}, {"luo.idc", c.idc}, {"luo.odc", c.odc},
                           {"luo.sec", c.sec}, {"luo.spc", c.spc}}};
}

std::string summaryText(CampaignStore& store, Tally& tally, const CampaignCoverage& coverage, double seconds,
                        const fs::path& out) {
  std::string text = fmt::format("\n{:<34} {:>8} {:>12} {:>8} {:>8}\n", "backend/mode", "pass", "unsupported", "bugs",
                                 "harness");
  for (const auto& [sut, c] : tally.perSut)
    text += fmt::format("{:<34} {:>8} {:>12} {:>8} {:>8}\n", sut, c.pass, c.unsupported, c.bugs, c.harnessErrors);
  const auto cov = coverage.summary();
  text += fmt::format("\noperator-level coverage (Luo): OLC {:.1f}%  OTC {:.1f}%  IDC {:.1f}%  ODC {:.1f}%  SEC {:.1f}%  "
                      "SPC {:.1f}%; {} models kept of {}\n",
                      100 * cov.olc, 100 * cov.otc, 100 * cov.idc, 100 * cov.odc, 100 * cov.sec, 100 * cov.spc,
                      cov.kept, cov.models);
  const auto bugs = store.bugs();
  text += fmt::format("{} tests in {:.0f} s ({:.2f} tests/s); {} unique bugs in the campaign (this session found {})\n",
                      tally.tests, seconds, seconds > 0 ? static_cast<double>(tally.tests) / seconds : 0.0,
                      bugs.size(), tally.uniqueBugs);
  text += breakdownText(tally.times, tally.tests);
  for (const StoredBug& b : bugs) {
    // What the bug is about, at a glance: a wrong result's (reduced) operators, else the words.
    std::string gist;
    for (const std::string& op : b.signature.opTypes) gist += (gist.empty() ? "" : ",") + op;
    if (gist.empty()) gist = b.signature.symptom + (b.signature.message.empty() ? "" : ": " + b.signature.message);
    if (gist.size() > 70) gist = gist.substr(0, 67) + "...";
    text += fmt::format("  {:>5}x  {}  {}\n", b.count, b.bundle.empty() ? b.hash : b.bundle, gist);
  }
  text += fmt::format("campaign: {} (resume with --resume)", out.string());
  return text;
}

/// The effective config: the stored one when resuming, else the file's (or the default) with
/// the command line's overrides.
CampaignConfig effectiveConfig(const CampaignOptions& o) {
  CampaignConfig config = o.configPath.empty() ? defaultCampaignConfig() : loadCampaignConfig(o.configPath);
  config = applyCampaignJson(std::move(config), o.overrides);
  validateCampaignConfig(config);
  return config;
}

}  // namespace

CampaignResult runCampaign(const CampaignOptions& o) {
  if (o.jobs < 1) throw Error("-j must be >= 1");
  if (!(o.minutes > 0) && o.maxTests < 0) throw Error("give --minutes > 0 or -n");
  const auto print = o.print ? o.print : [](const std::string& line) { fmt::print("{}\n", line); };
  const fs::path db = o.out / "campaign.db";
  if (!o.resume && fs::exists(db)) throw Error("campaign " + o.out.string() + " exists (use --resume or a new folder)");
  if (o.resume && !fs::exists(db)) throw Error("nothing to resume: " + db.string() + " does not exist");
  // Everything that can be wrong with the options is found before the folder is made.
  oracleNamed(o.policy);  // a bad policy name fails before the SUTs start
  if (!o.referenceRun.empty() && o.referenceRun.find(':') == std::string::npos)
    throw Error("--reference-backend wants backend:mode (e.g. onnxruntime:noopt), got '" + o.referenceRun + "'");
  CampaignConfig config = effectiveConfig(o);
  const auto suts = chooseSuts(o.backends, o.backendsFile, o.limits);
  Oracle oracle = oracleNamed(o.policy, suts);
  oracle.setFallbackReference(o.referenceRun);
  std::error_code ec;
  fs::create_directories(o.out / "bugs", ec);
  if (ec) throw Error("cannot create campaign folder " + o.out.string() + ": " + ec.message());
  CampaignStore store(db, campaignConfigToJson(config), sutVersions(suts));
  if (store.resumed()) {
    config = applyCampaignJson(defaultCampaignConfig(), store.config());  // the campaign's own
    validateCampaignConfig(config);
  }
  removePartialBundles(o.out / "bugs");

  // The search chooses among the graph corpus's blocks (subgraph patterns included); coverage is
  // measured over our operators, counting operands as in-degrees, unless the campaign names its
  // own corpus file.
  const BlockCorpus& blocks = graphCorpus(config.gen);
  CampaignCoverage coverage(config.gen.graph.blocksFile.empty() ? defaultCorpus() : blocks, o.out / "corpus");
  auto source = makeTestSource(config, blocks, coverage);
  size_t reloaded = 0;
  if (store.resumed()) {
    reloaded = coverage.reload();
    if (source->learns())
      if (auto state = store.searchState()) source->restore(*state);
  }

  BundleContext context;
  context.bugsDir = o.out / "bugs";
  context.versions = sutVersions(suts);
  context.prepareLimitSeconds = std::chrono::duration<double>(o.limits.prepare).count();
  context.runLimitSeconds = std::chrono::duration<double>(o.limits.run).count();
  context.memoryLimitMb = static_cast<double>(o.limits.memoryBytes) / (1 << 20);
  context.workers = workerCommands(suts);

  Tally tally;
  Culprits culprits;
  for (const StoredBug& b : store.bugs()) {
    // A resumed campaign's one-operator wrong results are known culprits already.
    if (b.signature.verdict == "dcf" && b.signature.opTypes.size() == 1)
      culprits.add(b.signature.backend + "/" + b.signature.against, b.signature.opTypes[0]);
  }
  Shared s{o, config.gen, suts, store, oracle, context, *source, coverage, culprits, tally,
           scratchBase() / fmt::format("nnfuzz-{}", ::getpid())};
  s.shardIndex = config.shardIndex;
  s.shardCount = config.shardCount;
  // Positions in the shard: the next after the highest recorded, and the recorded gaps (a kill
  // mid-test) that are this shard's.
  const int64_t highest = store.nextTestIndex() - 1;
  s.next = highest < s.shardIndex ? 0 : (highest - s.shardIndex) / s.shardCount + 1;
  for (int64_t index : store.missingTests())
    if (index % s.shardCount == s.shardIndex) s.redo.push_back(index);
  const int64_t first = s.shardIndex + s.next.load() * s.shardCount;
  s.lastIndex = o.maxTests >= 0 ? first + (o.maxTests - 1) * s.shardCount : -1;
  const auto start = Clock::now();
  s.deadline = o.minutes > 0 ? start + std::chrono::milliseconds(static_cast<int64_t>(o.minutes * 60000))
                             : Clock::time_point::max();
  print(fmt::format("fuzzing {} with {} pipeline(s), tests from {}{}{}; campaign {}", o.backends, o.jobs, source->name(),
                    s.shardCount > 1 ? fmt::format(", shard {}/{}", s.shardIndex, s.shardCount) : "",
                    store.resumed() ? fmt::format(", resuming at test {} ({} kept models reloaded)", first, reloaded)
                                    : "",
                    o.out.string()));

  std::vector<std::thread> threads;
  for (int p = 0; p < o.jobs; ++p) threads.emplace_back(pipeline, p, std::ref(s));
  std::atomic<bool> done{false};
  std::thread progress([&] {
    auto lastStats = Clock::now();
    auto lastPrint = Clock::now();
    while (!done) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (done) break;
      if (Clock::now() - lastPrint < std::chrono::milliseconds(o.liveProgress ? 500 : 10000)) continue;
      lastPrint = Clock::now();
      const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      const std::string line = progressLine(tally, seconds, coverage);
      if (o.liveProgress) {
        fmt::print("\r{}\x1b[K", line);
        std::fflush(stdout);
      } else {
        print(line);
      }
      if (Clock::now() - lastStats >= std::chrono::seconds(10)) {
        lastStats = Clock::now();
        try {
          std::lock_guard lock(tally.mu);
          store.recordCoverage(coverageRecord(coverage, seconds, tally.tests));
          store.recordStats({seconds, tally.tests, static_cast<double>(tally.tests) / seconds,
                             static_cast<int64_t>(store.bugs().size()), tally.perSut});
        } catch (const std::exception& e) {
          s.fail(e.what());
        }
      }
    }
  });
  for (auto& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  done = true;
  progress.join();
  fs::remove_all(s.scratch, ec);
  if (o.liveProgress) fmt::print("\n");
  print(progressLine(tally, seconds, coverage));
  // The summary reads the store only, so it is printed even when writing fails (a full disk).
  try {
    print(summaryText(store, tally, coverage, seconds, o.out));
  } catch (const std::exception& e) {
    s.fail(e.what());
  }
  try {
    if (!s.failed) saveSearchState(s, true);
    std::lock_guard lock(tally.mu);
    store.recordCoverage(coverageRecord(coverage, seconds, tally.tests));
    store.recordStats({seconds, tally.tests, seconds > 0 ? static_cast<double>(tally.tests) / seconds : 0.0,
                       static_cast<int64_t>(store.bugs().size()), tally.perSut});
  } catch (const std::exception& e) {
    s.fail(e.what());
  }
  if (s.failed)
    throw Error("campaign stopped after " + std::to_string(tally.tests) + " tests: " + s.failure +
                " (everything recorded before is kept; fix the cause and continue with --resume)");
  return {tally.tests, seconds, tally.uniqueBugs, store.bugs().size(), s.signalled()};
}

}  // namespace nnfuzz::campaign
