// cmd_backends.cpp - `nnfuzz backends`: every known SUT, installed or not, version, modes.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <sstream>

#include "caffe/export.h"
#include "campaign/sut_set.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "interp/interpreter.h"
#include "onnx/case_folder.h"
#include "run/backends.h"
#include "run/worker.h"
#include "support/error.h"

namespace nnfuzz::cli {

namespace {

/// `--check`: a tiny model (Add then Relu, float32) through every mode of every installed
/// backend, judged against the reference like a campaign's test. Returns how many failed.
int checkBackends(const std::vector<BackendDef>& backends, const std::vector<BackendInfo>& infos) {
  namespace fs = std::filesystem;
  const Graph g = parseGraph(R"(graph {
  %0 = input f32[2,3]
  %1 = weight f32[3] [0.5, -1.0, 2.0]
  %2 = Add(%0, %1) : f32[2,3]
  %3 = Relu(%2) : f32[2,3]
  return %3
})");
  const std::vector<Tensor> inputs{Tensor({DType::Float32, {2, 3}}, {1.0, 0.25, -3.0, -1.5, 2.0, 0.5})};
  const fs::path dir = fs::temp_directory_path() / ("nnfuzz-backends-check-" + std::to_string(getpid()));
  fs::remove_all(dir);
  const std::vector<Tensor> expected = runGraph(g, inputs);
  writeCase(dir, g, inputs, expected, nlohmann::json::object(), kDefaultOpset, CaseLayout::Onnx);
  tryWriteCaffeCase(dir, g, inputs, expected);  // the same model in Caffe form, for Caffe backends
  const Oracle oracle = campaign::oracleNamed("allclose");
  int failed = 0;
  for (size_t i = 0; i < backends.size(); ++i) {
    if (!infos[i].installed) continue;
    BackendDef def = backends[i];
    def.modes = infos[i].modes;
    for (const std::string& mode : def.modes) {
      Worker worker(workerSpec(def, mode));
      const RunOutcome outcome = worker.runCase(dir);
      const Judgement j = oracle.judge(outcome, expected);
      if (j.verdict == Verdict::Pass) {
        fmt::print("{}/{}: ok (prepare {:.3f} s, run {:.4f} s{})\n", def.name, mode, outcome.prepareSeconds,
                   outcome.runSeconds, worker.hello().forkServer ? "; fork server" : "");
      } else {
        ++failed;
        fmt::print("{}/{}: FAILS the check model ({}): {}\n", def.name, mode, verdictName(j.verdict), j.reason);
      }
    }
  }
  fs::remove_all(dir);
  return failed;
}

}  // namespace

void addBackendsCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("backends", "List the systems under test: installed or not, version, modes");
  auto file = std::make_shared<std::string>();
  auto asJson = std::make_shared<bool>(false);
  auto check = std::make_shared<bool>(false);
  auto only = std::make_shared<std::string>();
  cmd->add_option("--backends-file", *file, "Extra backends (same format as config/backends.json)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", *asJson, "One JSON object per backend, one per line");
  cmd->add_flag("--check", *check,
                "also run a tiny model (Add, Relu) through every mode of every installed backend and say what works "
                "(exit status 1 if one fails)");
  cmd->add_option("--backends", *only, "only these (comma-separated)");
  cmd->callback([file, asJson, check, only] {
    BackendPaths paths = defaultBackendPaths();
    std::vector<BackendDef> backends = builtinBackends(paths);
    if (!file->empty()) mergeBackends(backends, loadBackends(*file, paths));
    if (!only->empty()) {
      std::vector<BackendDef> chosen;
      std::stringstream names(*only);
      std::string name;
      while (std::getline(names, name, ','))
        if (!name.empty()) {
          const BackendDef* def = findBackend(backends, name);
          if (!def) throw Error("unknown backend '" + name + "' (see nnfuzz backends)");
          chosen.push_back(*def);
        }
      backends = std::move(chosen);
    }
    std::vector<BackendInfo> infos = probeAll(backends);
    if (*asJson) {
      for (const BackendInfo& i : infos)
        fmt::print("{}\n", nlohmann::json{{"name", i.name}, {"installed", i.installed}, {"version", i.version},
                                          {"modes", i.modes}, {"problem", i.problem},
                                          {"start_seconds", i.startSeconds}, {"description", i.description}}
                               .dump());
      return;
    }
    fmt::print("{:<14} {:<9} {:<16} {:<18} {:>8}  {}\n", "backend", "installed", "version", "modes", "start-up",
               "description");
    for (const BackendInfo& i : infos) {
      std::string modes;
      for (const std::string& m : i.modes) modes += (modes.empty() ? "" : " ") + m;
      std::string startup = i.installed ? fmt::format("{:.2f}s", i.startSeconds) : "-";
      fmt::print("{:<14} {:<9} {:<16} {:<18} {:>8}  {}\n", i.name, i.installed ? "yes" : "no",
                 i.installed ? i.version : "-", modes, startup, i.description);
      if (!i.installed) fmt::print("{:<14} ({})\n", "", i.problem);
    }
    if (*check) {
      fmt::print("\n");
      if (checkBackends(backends, infos) > 0) exitCode() = 1;
    }
  });
}

}  // namespace nnfuzz::cli
