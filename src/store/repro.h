// repro.h - repro.py: a stand-alone script that reproduces one bug from its bundle.
//
// The script needs only the SUT's own Python package, numpy and onnx. It runs the SUT in a
// child process (so it survives the SUT crashing or hanging), judges the outcome the way the
// oracle did (same policy and thresholds, same message normalisation) and exits 1 while the
// bug is present, 0 once it is gone, 2 when something else happens. It is assembled from the
// templates in src/store/repro/ (compiled in): a BUG header with the recorded facts, the common
// part, and the backend's part (onnxruntime, openvino, tvm, opencv, mnn, onnxoptimizer, onnxsim,
// pytorch;
// generic for any other backend).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nnfuzz {

/// True when a backend has its own repro template (otherwise the generic one is used).
bool hasReproTemplate(const std::string& backend);

/// The pip package that provides a backend's Python API ("apache-tvm" for tvm).
std::string pipPackageOf(const std::string& backend);

/// Further pip packages its repro.py needs besides numpy and onnx, each followed by a space
/// ("onnxruntime " for the graph optimizers, which ONNX Runtime executes); usually "".
std::string reproExtraPackages(const std::string& backend);

/// The text of repro.py for a bug described by `bug`, which must hold: bundle, reason, backend,
/// mode, against, class, phase, symptom, message (normalised), policy (Policy::toJson), env
/// (object), timeout_seconds, memory_limit_mb (0 = none).
std::string renderRepro(const nlohmann::json& bug);

}  // namespace nnfuzz
