// cmd_reduce.cpp - `nnfuzz reduce CASE_DIR --backends ... -o OUT`: runs one case folder (ours or
// any tool's, if nnfuzz can import its model) through every backend/mode, and for each bug shrinks
// the model to the smallest sub-model that still fails the same way (triage/reduce.h). Each
// reduced case is written as a case folder OUT/<backend>-<mode>[-vs-<mode>]-<class>/ and printed
// in the text IR, with the culprit blame names (triage/blame.h). Exit 1 when some bug was seen.
// With --format caffe (the default for a case folder holding deploy.prototxt) the case, every
// candidate and every reduced case also get their Caffe form, for Caffe backends (mnn-caffe).
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/core.h>

#include "caffe/export.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "campaign/finding_reducer.h"
#include "campaign/sut_set.h"
#include "interp/interpreter.h"
#include "onnx/case_folder.h"
#include "support/error.h"

namespace nnfuzz::cli {

namespace fs = std::filesystem;

using namespace campaign;

namespace {

struct ReduceCommandOptions {
  std::string caseDir;
  std::string out;
  std::string backends = "onnxruntime";
  std::string backendsFile;
  std::string policy = "allclose";
  size_t maxTries = 200;
  double budgetSeconds = 600;
  std::string layout = "packed";
  std::string format;  ///< onnx | caffe; empty: caffe when the case holds a Caffe form
};

void reduceOne(const ReduceCommandOptions& o) {
  const CaseData data = readCase(o.caseDir);
  if (!data.graph) throw Error("cannot reduce " + o.caseDir + ": " + data.importProblem);
  oracleNamed(o.policy);  // a bad policy name fails before the SUTs start
  {  // and so does an output folder that cannot be written
    std::error_code ec;
    fs::create_directories(o.out, ec);
    if (ec || ::access(o.out.c_str(), W_OK) != 0)
      throw Error("cannot write reduced cases to " + o.out + ": " + (ec ? ec.message() : std::strerror(errno)));
  }
  const bool caffe = o.format.empty() ? fs::exists(fs::path(o.caseDir) / "deploy.prototxt") : o.format == "caffe";
  const fs::path scratch = fs::path(o.out) / ".scratch";
  fs::path caseDir = o.caseDir;
  if (caffe) {  // the case as the reducer writes its candidates: ONNX and Caffe forms side by side
    caseDir = scratch / "case";
    writeCase(caseDir, *data.graph, data.inputs, data.expected, data.meta.value_or(nlohmann::json::object()),
              0, CaseLayout::Onnx);  // 0: the graph's own opset
    writeCaffeCase(caseDir, *data.graph, data.inputs, data.expected);
  }
  const WorkerLimits limits;
  const auto suts = chooseSuts(o.backends, o.backendsFile, limits);
  const Oracle oracle = oracleNamed(o.policy, suts);
  auto workers = makeWorkers(suts, limits);
  std::vector<RunOutcome> outcomes;
  for (auto& w : workers) outcomes.push_back(w->runCase(caseDir));
  std::vector<std::pair<Judgement, const RunOutcome*>> bugs;
  // As `nnfuzz run`: outputs without a reference (opaque operators) leave mode against mode.
  const bool referenced = unreferencedOutputs(*data.graph).empty();
  for (auto& judged : judgeRuns(oracle, outcomes, referenced ? data.expected : std::vector<Tensor>{}))
    if (judged.first.bug()) bugs.push_back(std::move(judged));
  if (bugs.empty()) {
    fmt::print("no bug: every backend/mode passes on {}\n", o.caseDir);
    std::error_code ec;
    fs::remove_all(scratch, ec);
    return;
  }
  exitCode() = 1;
  Culprits culprits;
  ReducerSettings settings;
  settings.scratch = scratch;
  settings.caffe = caffe;
  settings.maxTries = o.maxTries;
  settings.budget = std::chrono::seconds(static_cast<int64_t>(o.budgetSeconds));
  const nlohmann::json meta = data.meta.value_or(nlohmann::json{{"source", o.caseDir}});
  const FindingReducer reducer =
      makeFindingReducer(workers, oracle, culprits, settings, *data.graph, data.inputs, referenced && !data.expected.empty(), meta);
  for (const auto& [j, run] : bugs) {
    const std::string who = j.backend + "/" + j.mode + (j.against == "reference" ? "" : " vs " + j.against);
    fmt::print("{} {}: {}\n", who, verdictName(j.verdict), j.reason);
    std::fflush(stdout);
    const auto reduced = reducer(j, *run, makeSignature(j, *run, {}));
    if (!reduced) {
      fmt::print("  not reduced: no smaller sub-model fails the same way ({} nodes)\n\n", data.graph->numNodes());
      continue;
    }
    std::string name = j.backend + "-" + j.mode + (j.against == "reference" ? "" : "-vs-" + j.against) + "-" +
                       std::string(verdictName(j.verdict));
    const fs::path dir = fs::path(o.out) / name;
    fs::remove_all(dir);
    const BundleCase& c = reduced->bcase;
    writeCase(dir, *c.graph, c.inputs, c.expected, c.meta, settings.opset, caseLayoutNamed(o.layout));
    if (caffe && !tryWriteCaffeCase(dir, *c.graph, c.inputs, c.expected))
      fmt::print("  (the reduced case has no Caffe form: {})\n", caffeProblem(*c.graph));
    const auto& info = c.meta["reduced"];
    fmt::print("  reduced {} -> {} nodes in {} runs{}: {}\n", info["from_nodes"].get<size_t>(),
               info["to_nodes"].get<size_t>(), info["tries"].get<size_t>(),
               info["minimal"].get<bool>() ? " (minimal)" : " (budget reached)", dir.string());
    if (reduced->culprit) fmt::print("  culprit (first operator gone wrong): {}\n", reduced->culprit->text());
    fmt::print("{}\n", printGraph(*c.graph));
  }
  std::error_code ec;
  fs::remove_all(scratch, ec);
}

}  // namespace

void addReduceCommand(CLI::App& app) {
  auto o = std::make_shared<ReduceCommandOptions>();
  auto* cmd = app.add_subcommand(
      "reduce", "Shrink a failing case to the smallest sub-model that fails the same way, per backend/mode");
  cmd->add_option("CASE_DIR", o->caseDir, "a case folder (model.onnx + test_data_set_0)")->required();
  cmd->add_option("-o,--out", o->out, "where reduced case folders go")->required();
  cmd->add_option("--layout", o->layout, "test data: packed or onnx (see nnfuzz gen)")
      ->check(CLI::IsMember({"packed", "onnx"}))
      ->capture_default_str();
  cmd->add_option("--format", o->format,
                  "onnx | caffe: caffe also writes each candidate's Caffe form, for Caffe backends (default: caffe "
                  "when CASE_DIR holds deploy.prototxt)")
      ->check(CLI::IsMember({"onnx", "caffe"}));
  cmd->add_option("--backends", o->backends, "comma-separated SUTs")->capture_default_str();
  cmd->add_option("--backends-file", o->backendsFile, "extra backend definitions");
  cmd->add_option("--policy", o->policy, "allclose | luo")->capture_default_str();
  cmd->add_option("--max-tries", o->maxTries, "SUT runs per bug at most")->capture_default_str();
  cmd->add_option("--budget", o->budgetSeconds, "seconds per bug at most")->capture_default_str();
  cmd->callback([o] { reduceOne(*o); });
}

}  // namespace nnfuzz::cli
