// backends.h - the registry of known systems under test, as data.
//
// A backend is a name, a worker command, the modes it offers and extra environment
// variables; config/backends.json lists the built-in ones (ONNX Runtime, OpenVINO, TVM) and
// a user adds an in-house engine with a file of the same format. Commands may use
// placeholders: {python} (the project's interpreter: $NNFUZZ_PYTHON, else ROOT/.venv/bin/python,
// else python3), {root} (the nnfuzz source tree: $NNFUZZ_ROOT, else where it was built from)
// and {dir} (the folder of the JSON file). probe() asks a backend's worker for its hello to
// learn whether it is installed, its version and its modes; it never throws.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "run/worker.h"

namespace nnfuzz {

/// One known SUT.
struct BackendDef {
  std::string name;
  std::string description;
  std::vector<std::string> command;  ///< placeholders already expanded
  std::vector<std::string> modes;    ///< the modes to run, of those the worker's hello offers
  std::vector<std::pair<std::string, std::string>> env;
  /// What this SUT says when it does not implement something (ECMAScript regexes, as in
  /// config/unsupported.json): such runs are recorded as unsupported, not as bugs.
  std::vector<std::string> unsupported;
  /// "compare": "modes": our reference does not judge this SUT's outputs (see
  /// Oracle::compareModesOnly); default "reference".
  bool modesOnly = false;
  /// Per-backend limits ("limits": {"memory_gb", "start_seconds", "prepare_seconds",
  /// "run_seconds"}); an unset one is the campaign's.
  std::optional<double> memoryGb, startSeconds, prepareSeconds, runSeconds;
};

/// Values for the command placeholders.
struct BackendPaths {
  std::filesystem::path root;  ///< {root}
  std::string python;          ///< {python}
};

/// The defaults described above ($NNFUZZ_ROOT, $NNFUZZ_PYTHON, ROOT/.venv).
BackendPaths defaultBackendPaths();

/// Reads a backends file. Throws a one-line Error naming the file and the problem
/// (unreadable, malformed, unknown field, missing name/command/modes, duplicate name).
std::vector<BackendDef> loadBackends(const std::filesystem::path& file, const BackendPaths& paths);

/// ROOT/config/backends.json.
std::vector<BackendDef> builtinBackends(const BackendPaths& paths);

/// Adds `extra` to `base`; an entry with a name already in `base` replaces it.
void mergeBackends(std::vector<BackendDef>& base, const std::vector<BackendDef>& extra);

/// The backend named `name`, or nullptr.
const BackendDef* findBackend(const std::vector<BackendDef>& backends, std::string_view name);

/// A WorkerSpec for one backend and mode; throws Error if the mode is not listed.
WorkerSpec workerSpec(const BackendDef& backend, const std::string& mode, const WorkerLimits& limits = {});

/// What probe() learnt.
struct BackendInfo {
  std::string name, description;
  bool installed = false;
  std::string version;             ///< from the hello
  std::vector<std::string> modes;  ///< when installed: the file's modes the hello offers; else the file's
  std::string problem;             ///< why it is not usable (when !installed)
  double startSeconds = 0;         ///< spawn to hello
};

/// Starts the backend's worker in its first mode, reads the hello and stops it.
BackendInfo probe(const BackendDef& backend, const WorkerLimits& limits = {});
/// probe() for each backend, concurrently (start-up is mostly imports).
std::vector<BackendInfo> probeAll(const std::vector<BackendDef>& backends, const WorkerLimits& limits = {});

}  // namespace nnfuzz
