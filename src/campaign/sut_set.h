// sut_set.h - the SUT workers one pipeline drives: one Worker per (backend, mode), shared
// set-up for `nnfuzz fuzz` and `nnfuzz run`.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "oracle/oracle.h"
#include "run/backends.h"
#include "run/worker.h"

namespace nnfuzz::campaign {

struct SutChoice {
  BackendDef def;
  BackendInfo info;  ///< installed, version and modes (from the worker's hello)
};

/// Resolves a comma-separated backend list ("onnxruntime,openvino") against the registry
/// (built-in plus `backendsFile` if given) and probes each. Throws a one-line Error for an
/// unknown or uninstalled backend.
std::vector<SutChoice> chooseSuts(const std::string& list, const std::string& backendsFile,
                                  const WorkerLimits& limits);

/// One worker per (backend, mode) of the chosen SUTs, started lazily.
std::vector<std::unique_ptr<Worker>> makeWorkers(const std::vector<SutChoice>& suts, const WorkerLimits& limits);

/// Per backend, how its worker starts ({"command": [...], "env": {...}}), for the bundles.
std::map<std::string, nlohmann::json> workerCommands(const std::vector<SutChoice>& suts);

/// The oracle of a named policy ("allclose", "luo"); one-line Error for another name. With
/// `suts`, each backend's own "unsupported" patterns (its backends-file entry) join the defaults.
Oracle oracleNamed(const std::string& policy, const std::vector<SutChoice>& suts = {});

/// Every judgement of one case's runs: each run against `expected` (errors only when it is
/// empty), then each SUT's baseline mode against its other modes; each with the run it judged.
std::vector<std::pair<Judgement, const RunOutcome*>> judgeRuns(const Oracle& oracle,
                                                               const std::vector<RunOutcome>& outcomes,
                                                               const std::vector<Tensor>& expected);

/// {"onnxruntime": "1.31.1", ...} plus nnfuzz's own version.
nlohmann::json sutVersions(const std::vector<SutChoice>& suts);

}  // namespace nnfuzz::campaign
