// finding_reducer.h - the campaign's reducer: a bug found on a generated case is shown again
// on the smallest sub-case (triage/reduce.h) that fails the same way, run on the pipeline's own
// workers. "The same way" is the finding's signature without its model part: SUT, mode,
// comparison, phase, class, symptom, error type, normalised message and crash frames. A wrong
// result's signature then takes the reduced case's culprit (triage/blame.h: the first operator
// that goes wrong), an error over a wrong value becomes that value's bug (when every mode that
// shows the error computes the value wrong), and modes fold
// (triage/fold.h), so one wrong kernel is one bug however many models and modes show it.
// Node dropping and blame run for every finding; the other reduction passes only for a bug
// not known yet, to make its bundle small.
#pragma once

#include <chrono>
#include <functional>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "run/worker.h"
#include "store/findings.h"

namespace nnfuzz::campaign {

/// Operator types that failed alone, per "backend/against" (a SUT's modes share most kernels):
/// tried first next time, so a repeat of a known wrong kernel costs one run. Shared by the
/// pipelines.
class Culprits {
 public:
  std::vector<std::string> of(const std::string& key) const;
  void add(const std::string& key, const std::string& op);

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::vector<std::string>> ops_;
};

/// What the reducer may use and spend.
struct ReducerSettings {
  std::filesystem::path scratch;  ///< folder for sub-case folders (one pipeline's own)
  int opset = 0;  ///< the opset candidates are written at; 0: each graph's own
  bool caffe = false;  ///< also write each candidate's Caffe form (Caffe backends read it)
  size_t maxTries = 48;                     ///< SUT runs per finding at most
  std::chrono::seconds budget{120};         ///< wall time per finding at most
  size_t maxPassTries = 32;                 ///< SUT runs for the passes after ddmin (new bugs only)
  /// Whether a bug (by signature hash) is known already: its repeats skip the passes. Unset: none is.
  std::function<bool(const std::string&)> known;
};

/// The reducer for one generated case: its graph, runtime inputs and meta; `haveReference`
/// false for cases whose reference is not trusted (only errors are judged then).
FindingReducer makeFindingReducer(const std::vector<std::unique_ptr<Worker>>& workers, const Oracle& oracle,
                                  Culprits& culprits, const ReducerSettings& settings, const Graph& graph,
                                  const std::vector<Tensor>& inputs, bool haveReference, const nlohmann::json& meta);

}  // namespace nnfuzz::campaign
