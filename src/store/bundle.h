// bundle.h - a bug bundle: one folder per unique bug, enough to read, rerun and fix it.
//
//   <root>/<sut>-<mode>[-vs-<mode>]-<class>-<hash8>/
//     model.onnx, test_data_set_0/{input,output}_N.pb   the case (reference outputs)
//     actual/output_N.pb                                 what the SUT returned (if it did)
//     actual/<baseline mode>/output_N.pb                 mode-vs-mode: the baseline's outputs
//     actual/<backend>-<mode>/output_N.pb                without a trusted reference: the run judged against
//     error.txt                                          the verdict, message and stderr tail
//     meta.json                                          versions, seed, signature, class, policy
//     model.ir                                           nnfuzz's text IR (when the model imports)
//     original.onnx                                      a reduced case: the model before reduction
//     README.md                                          an upstream-ready issue (issue_markdown.h)
//     repro.py                                           stand-alone reproduction (see repro.h)
// A bundle is written to a hidden temporary folder beside its final place and renamed into
// place at the end, so a crash never leaves half a bundle that looks whole; the campaign
// store records a bug only after its bundle exists.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "onnx/case_folder.h"
#include "oracle/oracle.h"
#include "triage/signature.h"

namespace nnfuzz {

/// The test case a bug was found with.
struct BundleCase {
  onnx::ModelProto model;
  std::optional<Graph> graph;      ///< for model.ir; absent for models nnfuzz cannot import
  std::vector<Tensor> inputs;      ///< runtime inputs, in model order
  std::vector<Tensor> expected;    ///< reference outputs, in model order
  std::vector<std::string> inputNames, outputNames;
  nlohmann::json meta = nlohmann::json::object();  ///< the case's meta (seed, generator, test index...)
  std::optional<onnx::ModelProto> original;  ///< a reduced case: the generated model it came from
  bool caffeForm = false;  ///< also write the graph's Caffe form (deploy.prototxt, ...) for Caffe backends
};

/// A case from a graph and its data (as the fuzz loop holds it); `caffeForm`: see BundleCase.
BundleCase bundleCase(const Graph& graph, const std::vector<Tensor>& inputs, const std::vector<Tensor>& expected,
                      const nlohmann::json& meta, int opset = kDefaultOpset, bool caffeForm = false);
/// A case read from a case folder (as `nnfuzz run CASE_DIR` holds it).
BundleCase bundleCase(const CaseData& data);

/// The finding a bundle documents.
struct BundleFinding {
  Judgement judgement;
  Signature signature;
  RunOutcome outcome;                  ///< the run judged; its outputs go to actual/
  std::optional<RunOutcome> baseline;  ///< mode-vs-mode: the baseline run
  Policy policy;
  nlohmann::json versions = nlohmann::json::object();  ///< e.g. {"nnfuzz": "0.3", "onnxruntime": "1.31.1"}
  double prepareLimitSeconds = 0, runLimitSeconds = 0;  ///< the worker's limits (0 = unknown)
  double memoryLimitMb = 0;                             ///< 0 = none
  std::map<std::string, std::string> env;  ///< the worker's environment settings (threads, malloc checks)
  /// How the backend's worker was started, {"command": [...], "env": {...}}: a backend without
  /// a repro template is reproduced through its worker.
  nlohmann::json worker = nlohmann::json::object();
};

/// Writes the bundle of `finding` under `root` (created if needed) and returns its folder.
/// When the folder exists already (the bug's first example is there) nothing is written.
/// Throws a one-line Error when it cannot write; a failed write leaves nothing behind.
std::filesystem::path writeBundle(const std::filesystem::path& root, const BundleCase& bcase,
                                  const BundleFinding& finding);

/// Removes the hidden temporary folders (.NAME.partial-*) that writers killed mid-bundle left
/// under `root`; returns how many. Call it when resuming, before any writer runs.
size_t removePartialBundles(const std::filesystem::path& root);

}  // namespace nnfuzz
