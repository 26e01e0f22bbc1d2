// cmd_retriage.cpp - `nnfuzz retriage CAMPAIGN -o NEW`: every bug bundle of a campaign triaged
// again with today's code. Each bundle's stored case (model.onnx, test_data_set_0's inputs) is a
// test of a new campaign in NEW: the bundle's SUT runs it in every mode, and the fuzz loop's own
// glue (store/findings.h's recordFindings with campaign/finding_reducer.h's reducer) judges,
// reduces, blames and signs it. The expected outputs are recomputed by today's reference.
// NEW/retriage.jsonl says, per old bundle, which new bugs its test gave, so old signatures can
// be set against new ones (tools/retriage_figures.py). --sample N takes N bundles per backend,
// chosen by a hash of the seed and the bundle's name (the same N on every machine).
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>

#include <fmt/core.h>

#include "campaign/finding_reducer.h"
#include "campaign/sut_set.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "interp/interpreter.h"
#include "onnx/case_folder.h"
#include "store/bundle.h"
#include "store/findings.h"
#include "support/error.h"

namespace nnfuzz::cli {

namespace fs = std::filesystem;

using namespace campaign;

namespace {

struct RetriageOptions {
  std::string campaign;
  std::string out;
  std::string backends;  ///< empty: every backend with bundles
  std::string backendsFile;
  std::string policy = "allclose";
  size_t sample = 0;  ///< bundles per backend; 0: all
  uint64_t seed = 1;
  double prepareSeconds = 60, runSeconds = 30;
  double budgetSeconds = 120;  ///< reduction and blame per finding, as `fuzz` gives
};

struct OldBundle {
  fs::path dir;
  std::string name, backend, mode, against, verdict, hash;
};

uint64_t fnv1a(const std::string& text, uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

nlohmann::json readJsonFile(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path.string());
  try {
    return nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw Error(path.string() + " is not JSON: " + e.what());
  }
}

/// The campaign's bundles (of `backends`, if given), by name; --sample's choice per backend.
std::vector<OldBundle> oldBundles(const RetriageOptions& o) {
  const fs::path bugs = fs::path(o.campaign) / "bugs";
  if (!fs::is_directory(bugs)) throw Error("no bug bundles in " + o.campaign + " (" + bugs.string() + " is missing)");
  std::vector<std::string> wanted;
  for (size_t at = 0; !o.backends.empty() && at != std::string::npos;) {
    const size_t comma = o.backends.find(',', at);
    wanted.push_back(o.backends.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    at = comma == std::string::npos ? comma : comma + 1;
  }
  std::map<std::string, std::vector<OldBundle>> byBackend;
  for (const auto& entry : fs::directory_iterator(bugs)) {
    if (!entry.is_directory() || entry.path().filename().string().starts_with(".")) continue;
    const nlohmann::json meta = readJsonFile(entry.path() / "meta.json");
    OldBundle b{entry.path(), entry.path().filename().string(), meta.at("backend"), meta.at("mode"),
                meta.value("against", "reference"), meta.at("class"), meta.at("hash")};
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), b.backend) == wanted.end()) continue;
    byBackend[b.backend].push_back(std::move(b));
  }
  std::vector<OldBundle> chosen;
  for (auto& [backend, list] : byBackend) {
    std::sort(list.begin(), list.end(), [&](const OldBundle& a, const OldBundle& b) {
      return o.sample ? fnv1a(a.name, o.seed) < fnv1a(b.name, o.seed) : a.name < b.name;
    });
    if (o.sample && list.size() > o.sample) list.resize(o.sample);
    std::sort(list.begin(), list.end(), [](const OldBundle& a, const OldBundle& b) { return a.name < b.name; });
    chosen.insert(chosen.end(), list.begin(), list.end());
  }
  return chosen;
}

/// One old bundle's line of retriage.jsonl: what its test gave today.
nlohmann::json mapLine(const OldBundle& b, int64_t test, const std::vector<JudgedRun>& runs, const std::string& skipped) {
  nlohmann::json line = {{"bundle", b.name}, {"old_hash", b.hash}, {"backend", b.backend}, {"old_mode", b.mode},
                         {"old_against", b.against}, {"old_class", b.verdict}, {"test", test}};
  if (!skipped.empty()) line["skipped"] = skipped;
  nlohmann::json judged = nlohmann::json::array();
  for (const JudgedRun& r : runs) {
    const Judgement& j = r.judgement;
    judged.push_back({{"mode", j.mode}, {"against", j.against}, {"verdict", std::string(verdictName(j.verdict))},
                      {"bug", r.bugHash}, {"bundle", r.bug ? r.bug->bundle : ""}});
  }
  line["judged"] = judged;
  return line;
}

void retriage(const RetriageOptions& o) {
  oracleNamed(o.policy);  // a bad policy name fails before the SUTs start
  const fs::path out = o.out;
  if (fs::exists(out / "campaign.db")) throw Error("campaign " + o.out + " exists (retriage writes a new one)");
  const std::vector<OldBundle> bundles = oldBundles(o);
  if (bundles.empty()) throw Error("no bundles of " + (o.backends.empty() ? "any backend" : o.backends) + " in " + o.campaign);
  WorkerLimits limits;
  limits.prepare = std::chrono::milliseconds(static_cast<int64_t>(o.prepareSeconds * 1000));
  limits.run = std::chrono::milliseconds(static_cast<int64_t>(o.runSeconds * 1000));
  std::vector<std::string> backendList;
  for (const OldBundle& b : bundles)
    if (std::find(backendList.begin(), backendList.end(), b.backend) == backendList.end()) backendList.push_back(b.backend);
  std::string list;
  for (const auto& name : backendList) list += (list.empty() ? "" : ",") + name;
  const auto suts = chooseSuts(list, o.backendsFile, limits);
  Oracle oracle = oracleNamed(o.policy, suts);
  oracle.setFallbackReference("");  // a bundle's own test_data_set_0 is its only reference
  std::error_code ec;
  fs::create_directories(out / "bugs", ec);
  if (ec) throw Error("cannot create " + o.out + ": " + ec.message());
  const nlohmann::json config = {{"retriage_of", fs::absolute(o.campaign).string()}, {"sample_per_backend", o.sample},
                                 {"sample_seed", o.seed}, {"policy", o.policy}};
  CampaignStore store(out / "campaign.db", config, sutVersions(suts));
  BundleContext context;
  context.bugsDir = out / "bugs";
  context.versions = sutVersions(suts);
  context.prepareLimitSeconds = o.prepareSeconds;
  context.runLimitSeconds = o.runSeconds;
  context.workers = workerCommands(suts);
  Culprits culprits;
  const fs::path scratch = out / fmt::format(".scratch-{}", ::getpid());
  const fs::path caseDir = scratch / "case";
  ReducerSettings reducing;
  reducing.scratch = scratch;
  reducing.budget = std::chrono::seconds(static_cast<int64_t>(o.budgetSeconds));
  reducing.known = [&store](const std::string& hash) { return store.knowsBug(hash); };
  std::ofstream map(out / "retriage.jsonl", std::ios::app);
  fmt::print("retriaging {} bundles of {} ({}) into {}\n", bundles.size(), o.campaign, list, o.out);
  std::fflush(stdout);
  for (const std::string& backend : backendList) {
    std::vector<SutChoice> mine;
    for (const SutChoice& s : suts)
      if (s.def.name == backend) mine.push_back(s);
    auto workers = makeWorkers(mine, limits);
    int64_t done = 0, total = std::count_if(bundles.begin(), bundles.end(), [&](const OldBundle& b) { return b.backend == backend; });
    for (size_t k = 0; k < bundles.size(); ++k) {
      const OldBundle& b = bundles[k];
      if (b.backend != backend) continue;
      const int64_t index = static_cast<int64_t>(k);
      auto skip = [&](const std::string& why) { map << mapLine(b, index, {}, why).dump() << "\n" << std::flush; };
      const CaseData data = readCase(b.dir);
      if (!data.graph) {
        skip("not importable today: " + data.importProblem);
        continue;
      }
      const Graph& graph = *data.graph;
      std::vector<Tensor> expected;
      try {
        expected = runGraph(graph, data.inputs);
      } catch (const std::exception& e) {
        skip(std::string("today's reference refuses the case: ") + e.what());
        continue;
      }
      nlohmann::json meta = data.meta && data.meta->contains("case") ? (*data.meta)["case"] : nlohmann::json::object();
      // Trusted as the test was: our reference, finite, and every output has one.
      const bool trusted = meta.value("expected_outputs", "").starts_with("nnfuzz");
      const bool finite = std::all_of(expected.begin(), expected.end(), [](const Tensor& t) { return allFinite(t); });
      const bool referenced = trusted && finite && unreferencedOutputs(graph).empty();
      meta["retriage_of"] = b.name;
      fs::remove_all(caseDir, ec);
      writeCase(caseDir, graph, data.inputs, expected, meta, graph.opset(), CaseLayout::Onnx);
      std::vector<RunOutcome> outcomes;
      for (auto& w : workers) outcomes.push_back(w->runCase(caseDir));
      std::vector<std::string> ops;
      for (NodeId n : graph.nodes()) ops.push_back(graph.node(n).op);
      const TestRecord test{index, meta.value("case_seed", uint64_t{0}), "retriage", ops, 0.0, 0.0};
      const FindingReducer reducer = makeFindingReducer(workers, oracle, culprits, reducing, graph, data.inputs, referenced, meta);
      const auto runs = recordFindings(store, oracle, context, test, outcomes, referenced ? &expected : nullptr,
                                       [&] { return bundleCase(graph, data.inputs, expected, meta, graph.opset(), false); },
                                       reducer);
      map << mapLine(b, index, runs, "").dump() << "\n" << std::flush;
      ++done;
      if (done % 10 == 0 || done == total)
        fmt::print("{} {}/{} bundles, {} bugs so far\n", backend, done, total, store.bugs().size()), std::fflush(stdout);
    }
  }
  fs::remove_all(scratch, ec);
  fmt::print("{} bundles retriaged: {} unique bugs today (NEW/retriage.jsonl maps old bundles to them)\n", bundles.size(),
             store.bugs().size());
}

}  // namespace

void addRetriageCommand(CLI::App& app) {
  auto o = std::make_shared<RetriageOptions>();
  auto* cmd = app.add_subcommand(
      "retriage", "Triage a campaign's bug bundles again with today's code (run, reduce, blame, sign) into a new campaign");
  cmd->add_option("CAMPAIGN", o->campaign, "campaign folder whose bugs/ bundles are replayed")->required();
  cmd->add_option("-o,--out", o->out, "new campaign folder (campaign.db, bugs/, retriage.jsonl)")->required();
  cmd->add_option("--backends", o->backends, "only these backends' bundles (comma-separated; default: all)");
  cmd->add_option("--backends-file", o->backendsFile, "extra backend definitions");
  cmd->add_option("--policy", o->policy, "comparison policy: allclose | luo")->capture_default_str();
  cmd->add_option("--sample", o->sample, "at most this many bundles per backend, a fixed pseudo-random choice (0: all)")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of --sample's choice")->capture_default_str();
  cmd->add_option("--budget", o->budgetSeconds,
                  "seconds of reduction and blame per finding (fuzz gives 120; less for SUTs that compile slowly)")
      ->capture_default_str();
  cmd->add_option("--prepare-timeout", o->prepareSeconds, "seconds per prepare phase")->capture_default_str();
  cmd->add_option("--run-timeout", o->runSeconds, "seconds per run phase")->capture_default_str();
  cmd->callback([o] { retriage(*o); });
}

}  // namespace nnfuzz::cli
