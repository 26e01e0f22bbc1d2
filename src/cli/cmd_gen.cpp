// cmd_gen.cpp - `nnfuzz gen`: generate N test cases into DIR/000000, DIR/000001, ...
//
// Case i depends only on (config, seed, i), so -j changes speed, never output. Each case
// is written atomically (onnx/case_folder.h); the effective config goes to DIR/config.json.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/core.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/graph_flags.h"
#include "caffe/export.h"
#include "gen/generator.h"
#include "gen/neuri.h"
#include "onnx/case_folder.h"
#include "onnx/export.h"
#include "onnx/import.h"
#include "onnx/model_check.h"
#include "ops/infer_node.h"
#include "search/keep_if_new.h"
#include "support/error.h"

namespace nnfuzz::cli {

namespace fs = std::filesystem;

namespace {

struct GenOptions {
  std::string configPath;
  std::string generator;
  int64_t count = 100;
  int64_t first = 0;
  uint64_t seed = 0;
  int minOps = 0, maxOps = 0;
  std::string outDir;
  std::string format;
  int jobs = 1;
  bool force = false;
  bool onnxCheck = false;
  bool keepIfNew = false;
  std::string layout = "packed";
  GraphFlags graph;
};

// --keep-if-new-coverage stops once this many candidates in a row added no coverage.
constexpr int64_t kKeepPatience = 10000;

std::string caseName(uint64_t index) { return fmt::format("{:06d}", index); }

nlohmann::json caseMeta(const GenConfig& config, const std::string& hash, uint64_t index, const GeneratedCase& c) {
  nlohmann::json meta;
  meta["tool"] = "nnfuzz";
  meta["generator"] = config.generator;
  meta["seed"] = config.seed;
  meta["case_index"] = index;
  meta["case_seed"] = caseSeed(config.seed, index);
  meta["config_hash"] = hash;
  meta["opset"] = c.graph.opset();
  meta["ops"] = c.opTypes();
  meta["num_ops"] = c.graph.numNodes();
  meta["requested_ops"] = c.requestedOps;
  meta["attempts"] = c.attempts;
  meta["flags"] = {{"non_finite", c.nonFinite}};
  if (!c.unreferenced.empty()) {
    meta["no_reference_outputs"] = c.unreferenced;
    meta["expected_outputs"] = "zeros for the outputs in no_reference_outputs (they depend on an operator without an "
                               "nnfuzz reference): judge them SUT against SUT and mode against mode";
  }
  if (!c.meta.is_null()) meta["graph"] = c.meta;
  meta["replay"] = fmt::format("nnfuzz gen --config config.json --seed {} --first {} -n 1 -o DIR", config.seed, index);
  return meta;
}

void prepareOutDir(const GenOptions& o) {
  std::error_code ec;
  fs::create_directories(o.outDir, ec);
  if (ec || !fs::is_directory(o.outDir)) throw Error("cannot create output folder " + o.outDir + ": " + ec.message());
  const fs::path probe = fs::path(o.outDir) / ".nnfuzz-write-probe";
  {
    std::ofstream p(probe);
    if (!p) throw Error("output folder " + o.outDir + " is not writable");
  }
  fs::remove(probe, ec);
  if (!o.force)
    for (const auto& entry : fs::directory_iterator(o.outDir))
      if (fs::exists(entry.path() / "model.onnx") || fs::exists(entry.path() / "deploy.prototxt"))
        throw Error("output folder " + o.outDir + " already holds cases (use a new folder or --force)");
}

/// Writes a case as ONNX (the case folder), Caffe, or both in one folder.
void writeFormats(const std::string& format, const fs::path& dir, const GeneratedCase& c, const nlohmann::json& meta,
                  int opset, CaseLayout layout) {
  if (format != "caffe") {
    writeCase(dir, c.graph, c.inputs, c.outputs, meta, opset, layout);
    if (format == "both") writeCaffeCase(dir, c.graph, c.inputs, c.outputs);
    return;
  }
  // Written beside DIR and renamed at the end, so a crash never leaves a half-written case.
  const fs::path partial = dir.parent_path() / ("." + dir.filename().string() + ".partial");
  fs::remove_all(partial);
  fs::create_directories(partial);
  writeCaffeCase(partial, c.graph, c.inputs, c.outputs);
  std::ofstream(partial / "meta.json") << meta.dump(2) << "\n";
  fs::rename(partial, dir);
}

void runGen(const GenOptions& o, CLI::App& cmd) {
  GenConfig config = o.configPath.empty() ? defaultConfig() : loadConfigFile(o.configPath);
  if (cmd.count("--generator")) config.generator = o.generator;
  if (cmd.count("--seed")) config.seed = o.seed;
  if (cmd.count("--min-ops")) config.minOps = o.minOps;
  if (cmd.count("--max-ops")) config.maxOps = o.maxOps;
  if (cmd.count("--format")) config.format = o.format;
  config = applyConfigJson(std::move(config), graphFlagsJson(o.graph));
  validateConfig(config);
  if (o.count < 0) throw Error("-n must be >= 0");
  if (o.first < 0) throw Error("--first must be >= 0");
  if (o.jobs < 1) throw Error("-j must be >= 1");
  const CaseLayout layout = caseLayoutNamed(o.layout);
  prepareOutDir(o);
  {
    std::ofstream cfg(fs::path(o.outDir) / "config.json");
    cfg << configToJson(config).dump(2) << "\n";
  }
  const std::string hash = configHash(config);

  // Luo's Algorithm 1: candidates are judged in index order, so -j never changes which
  // are kept; -n counts kept cases and skipped indices leave gaps in the case names.
  std::optional<search::KeepIfNew> keep;
  if (o.keepIfNew)
    keep.emplace(search::CoverageTracker(defaultCorpus(), {search::MetricSets::Luo, {}}), o.count,
                 kKeepPatience);
  const int64_t candidates = keep ? std::numeric_limits<int64_t>::max() - o.first : o.count;

  std::atomic<int64_t> next{0};
  std::atomic<bool> newerOpsetNoted{false};
  std::mutex mu;
  std::set<std::string> opTypes;
  int64_t nodes = 0, nonFinite = 0, unreferenced = 0, invalid = 0, onnxRejected = 0;
  std::string firstProblem;
  std::map<std::string, int64_t> inserted;  // neuri: nodes per kind of insertion
  const auto start = std::chrono::steady_clock::now();
  const std::unique_ptr<Generator> generator = makeGenerator(config);
  auto work = [&] {
    for (int64_t i = next++; i < candidates && !(keep && keep->finished()); i = next++) {
      const auto index = static_cast<uint64_t>(o.first + i);
      GeneratedCase c = generateCase(*generator, config.seed, index);
      if (keep && !keep->judge(i, c.graph)) continue;
      std::string problem;
      if (auto bad = verifyGraph(c.graph)) problem = "case " + caseName(index) + " does not verify: " + *bad;
      bool rejected = false;
      if (o.onnxCheck && c.graph.opset() > knownOpset()) {
        if (!newerOpsetNoted.exchange(true))
          fmt::print(stderr, "note: --onnx-check skips opset {} models: the linked ONNX checker knows opsets <= {} "
                     "(tools/validate_cases.py checks them with python's onnx)\n", c.graph.opset(), knownOpset());
      } else if (o.onnxCheck) {
        if (auto bad = checkModel(exportModel(c.graph), &c.graph)) {
          rejected = true;
          if (problem.empty()) problem = "case " + caseName(index) + " fails the ONNX checker: " + *bad;
        }
      }
      const fs::path dir = fs::path(o.outDir) / caseName(index);
      if (o.force) fs::remove_all(dir);
      writeFormats(config.format, dir, c, caseMeta(config, hash, index, c), c.graph.opset(), layout);
      std::lock_guard lock(mu);
      for (const auto& op : c.opTypes()) opTypes.insert(op);
      nodes += static_cast<int64_t>(c.graph.numNodes());
      if (c.meta.is_object() && c.meta.contains("inserted"))
        for (const auto& [kind, n] : c.meta["inserted"].items()) inserted[kind] += n.get<int64_t>();
      if (c.meta.is_object() && c.meta.contains("disagreements")) inserted["calls our specs refused"] += c.meta["disagreements"]["count"].get<int64_t>();
      nonFinite += c.nonFinite;
      unreferenced += !c.unreferenced.empty();
      invalid += !problem.empty() && !rejected;
      onnxRejected += rejected;
      if (!problem.empty() && firstProblem.empty()) firstProblem = problem;
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < o.jobs; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const int64_t written = keep ? keep->kept() : o.count;
  fmt::print("generated {} cases with {} into {} in {:.2f} s ({:.3f} ms/case, -j {})\n", written, config.generator,
             o.outDir, seconds, written ? 1e3 * seconds / static_cast<double>(written) : 0.0, o.jobs);
  if (keep)
    fmt::print("  kept {} of {} candidates that added Luo coverage{}\n", written, keep->judged(),
               keep->saturated() ? fmt::format(" (stopped: {} in a row added none)", kKeepPatience) : "");
  fmt::print("  operators: {} distinct, {:.1f} per model\n", opTypes.size(),
             written ? static_cast<double>(nodes) / static_cast<double>(written) : 0.0);
  fmt::print("  non-finite reference outputs (flagged in meta.json): {}\n", nonFinite);
  if (unreferenced > 0)
    fmt::print("  cases with outputs no nnfuzz reference covers (opaque operators; meta.json no_reference_outputs): {}\n",
               unreferenced);
  if (config.generator == "neuri") {
    const auto bank = neuriRuleBank(config)->summary();
    fmt::print("  rules: {} operators, {} partial operators ({} solvable), {} records usable at opset {}\n",
               bank["operators"].get<int>(), bank["partial_operators"].get<int>(),
               bank["symbolic_partial_operators"].get<int>(), bank["records"].get<int>(), config.opset);
    std::string kinds;
    for (const auto& [kind, n] : inserted) kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", kind, n);
    fmt::print("  nodes by insertion: {}\n", kinds);
  }
  if (o.onnxCheck) fmt::print("  rejected by the ONNX checker: {}\n", onnxRejected);
  if (!firstProblem.empty()) {
    fmt::print(stderr, "nnfuzz: error: {} invalid cases; first: {}\n", invalid + onnxRejected, firstProblem);
    exitCode() = 1;
  }
}

}  // namespace

void addGenCommand(CLI::App& app) {
  auto opts = std::make_shared<GenOptions>();
  auto* cmd = app.add_subcommand("gen", "Generate test cases (model.onnx + test_data_set_0 + meta.json per case)");
  cmd->add_option("--config", opts->configPath, "JSON config file (see README); flags below override it")
      ->check(CLI::ExistingFile);
  cmd->add_option("--generator", opts->generator, "isra | declgen | randoop | graph | neuri (default isra)");
  addGraphFlags(cmd, opts->graph);
  cmd->add_option("-n,--count", opts->count, "number of cases")->capture_default_str();
  cmd->add_option("--first", opts->first, "index of the first case (to replay case K: --first K -n 1)")
      ->capture_default_str();
  cmd->add_option("--seed", opts->seed, "run seed (case i uses a seed derived from it and i)");
  cmd->add_option("--min-ops", opts->minOps, "fewest operators per model");
  cmd->add_option("--max-ops", opts->maxOps, "most operators per model");
  cmd->add_option("-o,--out", opts->outDir, "output folder")->required();
  cmd->add_option("--format", opts->format,
                  "onnx (default) | caffe (deploy.prototxt + weights.caffemodel + .npy data) | both (the same "
                  "network in both formats, one folder); caffe and both draw only Caffe-expressible models");
  cmd->add_option("-j,--jobs", opts->jobs, "parallel generator threads")->capture_default_str();
  cmd->add_flag("--force", opts->force, "write into a folder that already holds cases");
  cmd->add_option("--layout", opts->layout,
                  "test data: packed (inputs.pb + outputs.pb, 4 files a case) or onnx (a .pb per tensor, "
                  "ONNX's backend-test layout)")
      ->check(CLI::IsMember({"packed", "onnx"}))
      ->capture_default_str();
  cmd->add_flag("--onnx-check", opts->onnxCheck, "also run the ONNX checker and shape inference on every case");
  cmd->add_flag("--keep-if-new-coverage", opts->keepIfNew,
                "write a case only if it adds Luo coverage over the default corpus (Luo's Algorithm 1); -n then "
                "counts written cases; stops early after 10000 candidates in a row add none");
  cmd->callback([opts, cmd] { runGen(*opts, *cmd); });
}

}  // namespace nnfuzz::cli
