// cmd_run.cpp - `nnfuzz run CASE_DIR --backends ...`: re-run one case folder (ours or any
// tool's) through every backend/mode and print the oracle's verdict for each, plus the
// mode-vs-mode comparisons. Nothing is stored; exit 1 when any verdict is a bug.
#include <fmt/core.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "campaign/sut_set.h"
#include "interp/interpreter.h"
#include "onnx/case_folder.h"
#include "oracle/oracle.h"
#include "store/findings.h"
#include "support/error.h"

namespace nnfuzz::cli {

using namespace campaign;

namespace {

struct RunOptions {
  std::string caseDir;
  std::string backends = "onnxruntime";
  std::string backendsFile;
  std::string policy = "allclose";
};

void printJudgement(const Judgement& j) {
  const std::string who = j.backend + "/" + j.mode + (j.against == "reference" ? "" : " vs " + j.against);
  fmt::print("{:<32} {:<12} {}\n", who, verdictName(j.verdict), j.reason);
}

void runOne(const RunOptions& o) {
  const CaseData data = readCase(o.caseDir);
  oracleNamed(o.policy);  // a bad policy name fails before the SUTs start
  const WorkerLimits limits;
  const auto suts = chooseSuts(o.backends, o.backendsFile, limits);
  const Oracle oracle = oracleNamed(o.policy, suts);
  auto workers = makeWorkers(suts, limits);
  std::vector<RunOutcome> outcomes;
  for (auto& w : workers) outcomes.push_back(w->runCase(o.caseDir));
  bool anyBug = false;
  // Outputs an operator without a spec feeds have no reference (zeros stand in): such a
  // case is judged mode against mode, and errors only against nothing.
  const bool referenced = !data.graph || unreferencedOutputs(*data.graph).empty();
  if (!referenced) fmt::print("some outputs have no nnfuzz reference (operators of another domain): mode against mode\n");
  for (const auto& [j, run] : judgeRuns(oracle, outcomes, referenced ? data.expected : std::vector<Tensor>{})) {
    printJudgement(j);
    anyBug = anyBug || j.bug();
  }
  if (anyBug) exitCode() = 1;
}

}  // namespace

void addRunCommand(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Re-run one case folder through backends and print the verdict per backend/mode");
  cmd->add_option("CASE_DIR", o->caseDir, "a case folder (model.onnx + test_data_set_0)")->required();
  cmd->add_option("--backends", o->backends, "comma-separated SUTs")->capture_default_str();
  cmd->add_option("--backends-file", o->backendsFile, "extra backend definitions");
  cmd->add_option("--policy", o->policy, "allclose | luo")->capture_default_str();
  cmd->callback([o] { runOne(*o); });
}

}  // namespace nnfuzz::cli
