// sut_set.h - the SUT workers one pipeline drives: one Worker per (backend, mode), shared
// set-up for `nnfuzz fuzz` and `nnfuzz run`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/backends.h"
#include "run/worker.h"

namespace nnfuzz::cli {

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

/// {"onnxruntime": "1.31.1", ...} plus nnfuzz's own version.
nlohmann::json sutVersions(const std::vector<SutChoice>& suts);

}  // namespace nnfuzz::cli
