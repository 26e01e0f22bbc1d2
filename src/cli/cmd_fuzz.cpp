// cmd_fuzz.cpp - `nnfuzz fuzz`: flags for the campaign engine (campaign/campaign.h), and
// SIGINT/SIGTERM, which stop the campaign after the tests in hand.
#include <atomic>
#include <csignal>
#include <unistd.h>

#include <fmt/core.h>

#include "campaign/campaign.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/graph_flags.h"

namespace nnfuzz::cli {

namespace {

// Set by SIGINT/SIGTERM. A signal handler can only reach a global.
std::atomic<bool> gStop{false};
extern "C" void onStopSignal(int) { gStop = true; }

struct FuzzFlags {
  campaign::CampaignOptions options;
  double prepareSeconds = 60, runSeconds = 30, memoryGb = 4;
  std::string generator, search, shard, format;
  uint64_t seed = 1;
  bool seedGiven = false;
  int minOps = 0, maxOps = 0;
  GraphFlags graph;
  std::string corpus;  ///< empty: OUT/corpus.db
  bool noCorpus = false;
};

void runFuzz(FuzzFlags& f) {
  campaign::CampaignOptions o = f.options;
  o.limits.prepare = std::chrono::milliseconds(static_cast<int64_t>(f.prepareSeconds * 1000));
  o.limits.run = std::chrono::milliseconds(static_cast<int64_t>(f.runSeconds * 1000));
  o.limits.memoryBytes = static_cast<uint64_t>(f.memoryGb * (1ull << 30));
  o.overrides = graphFlagsJson(f.graph);
  if (!f.generator.empty()) o.overrides["generator"] = f.generator;
  if (!f.search.empty()) o.overrides["search"] = f.search;
  if (!f.format.empty()) o.overrides["format"] = f.format;
  if (f.seedGiven) o.overrides["seed"] = f.seed;
  if (f.minOps > 0) o.overrides["min_ops"] = f.minOps;
  if (f.maxOps > 0) o.overrides["max_ops"] = f.maxOps;
  if (!f.shard.empty()) o.overrides["shard"] = f.shard;
  o.liveProgress = ::isatty(STDOUT_FILENO);
  o.print = [](const std::string& line) {
    fmt::print("{}\n", line);
    std::fflush(stdout);
  };
  gStop = false;
  o.stop = &gStop;
  auto previousInt = std::signal(SIGINT, onStopSignal);
  auto previousTerm = std::signal(SIGTERM, onStopSignal);
  const campaign::CampaignResult result = campaign::runCampaign(o);
  std::signal(SIGINT, previousInt);
  std::signal(SIGTERM, previousTerm);
  if (!f.noCorpus) addBugsToCorpus(o.out, f.corpus);
  if (result.stopped) {
    fmt::print("interrupted: the campaign stopped on a signal; continue it with --resume\n");
    exitCode() = 130;
  }
}

}  // namespace

void addFuzzCommand(CLI::App& app) {
  auto f = std::make_shared<FuzzFlags>();
  campaign::CampaignOptions* o = &f->options;
  auto* cmd = app.add_subcommand("fuzz", "Run a campaign: generate, run every backend/mode, judge, triage, store");
  cmd->add_option("--backends", o->backends, "comma-separated SUTs (see nnfuzz backends)")->capture_default_str();
  cmd->add_option("--backends-file", o->backendsFile, "extra backend definitions (your own engine's worker)");
  cmd->add_option("--minutes", o->minutes, "stop after this many minutes (0: only -n)")->capture_default_str();
  cmd->add_option("-n,--tests", o->maxTests, "stop after this many tests");
  cmd->add_option("-j,--jobs", o->jobs, "parallel pipelines (each with its own workers)")->capture_default_str();
  cmd->add_option("-o,--out", o->out, "campaign folder (campaign.db, bugs/)")->required();
  cmd->add_option("--config", o->configPath, "generation config (JSON)")->check(CLI::ExistingFile);
  cmd->add_option("--seed", f->seed, "campaign seed")->each([f](const std::string&) { f->seedGiven = true; });
  cmd->add_option("--generator", f->generator, "isra | declgen | randoop | graph | neuri (default: the config's)");
  cmd->add_option("--format", f->format,
                  "onnx | caffe | both: caffe/both draw only Caffe-expressible models and write each case in both "
                  "forms, for Caffe backends such as opencv-caffe (default: the config's; config/caffe.json is the "
                  "default Caffe config)");
  cmd->add_option("--search", f->search, "how tests are chosen: random | mcts (Luo's block chooser)");
  addGraphFlags(cmd, f->graph);
  cmd->add_option("--shard", f->shard,
                  "run only tests I, I+N, I+2N, ... of the campaign (I/N; nnfuzz merge folds the shards)");
  cmd->add_option("--min-ops", f->minOps, "fewest operators per model (default: the config's)");
  cmd->add_option("--max-ops", f->maxOps, "most operators per model (default: the config's)");
  cmd->add_option("--policy", o->policy, "comparison policy: allclose | luo")->capture_default_str();
  cmd->add_option("--reference-backend", o->referenceRun,
                  "backend:mode whose outputs a test without nnfuzz's reference is judged against ('' for none)")
      ->capture_default_str();
  cmd->add_option("--prepare-timeout", f->prepareSeconds, "seconds per prepare phase")->capture_default_str();
  cmd->add_option("--run-timeout", f->runSeconds, "seconds per run phase")->capture_default_str();
  cmd->add_option("--memory-gb", f->memoryGb, "address-space limit per worker")->capture_default_str();
  cmd->add_flag("--resume", o->resume, "continue the campaign in --out");
  cmd->add_flag("!--no-reduce", o->reduce,
                "keep findings whole (by default a bug is shown on its smallest failing sub-model, and a wrong "
                "result is named by that sub-model's operators)");
  cmd->add_flag("!--one-worker-at-a-time", o->sideBySide,
                "send a test to its workers one after the other (by default all at once: they run side by side "
                "on idle cores)");
  cmd->add_option("--corpus", f->corpus, "regression corpus whose tier 3 gets this campaign's bugs (default OUT/corpus.db)");
  cmd->add_flag("--no-corpus", f->noCorpus, "do not add the bugs to a regression corpus");
  cmd->callback([f] { runFuzz(*f); });
}

}  // namespace nnfuzz::cli
