// case_folder.h - test cases on disk, in one of two layouts.
//
//   DIR/model.onnx
//   DIR/test_data_set_0/inputs.pb, outputs.pb     (packed, the default: each an onnx
//                                                   SequenceProto of the TensorProtos below)
//   DIR/test_data_set_0/input_N.pb, output_N.pb   (the ONNX backend-test layout: TensorProtos
//                                                   named as the model's runtime inputs and outputs)
//   DIR/meta.json                                   (nnfuzz's metadata; other tools' cases lack it)
//
// The packed layout keeps a case at four files however many tensors it has (the ONNX one
// writes one per tensor, which dominates the cost of a case on a real disk); every nnfuzz
// command and worker reads both, and `--layout onnx` writes what any ONNX tool replays.
//
// writeCase is atomic: it writes a hidden sibling folder (.NAME.partial-PID-K) and renames
// it to DIR at the end, so a crash never leaves a half-written folder that looks like a
// case. checkCase validates any case folder, ours or anyone's, and backs `nnfuzz check DIR`.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/graph.h"
#include "onnx/export.h"
#include "onnx/onnx_pb.h"

namespace nnfuzz {

enum class CaseLayout { Packed, Onnx };
/// "packed" or "onnx"; one-line Error otherwise.
CaseLayout caseLayoutNamed(const std::string& name);

/// Writes a case folder; `inputs` follow graph.inputs(), `expected` graph.outputs().
/// Throws a one-line Error (and leaves nothing behind) when the tensors do not fit the
/// graph, DIR already exists, or DIR cannot be written.
void writeCase(const std::filesystem::path& dir, const Graph& graph, const std::vector<Tensor>& inputs,
               const std::vector<Tensor>& expected, const nlohmann::json& meta, int opset = kDefaultOpset,
               CaseLayout layout = CaseLayout::Packed);

/// `dir` itself when its data is in ONNX's layout; for a packed case, a copy in ONNX's layout
/// made as `copy` (replaced if there): the other entries (model.onnx, meta.json, a Caffe
/// form, ...) are symlinked, test_data_set_0 unpacked. What SUT workers receive, so a
/// worker written to the protocol document reads every case.
std::filesystem::path onnxLayoutCase(const std::filesystem::path& dir, const std::filesystem::path& copy);

struct CaseData {
  onnx::ModelProto model;
  std::optional<Graph> graph;  ///< the imported model, when every op is supported
  std::string importProblem;   ///< why graph is empty
  std::vector<Tensor> inputs;    ///< test_data_set_0's inputs (either layout)
  std::vector<Tensor> expected;  ///< test_data_set_0's outputs
  std::vector<std::string> inputNames, outputNames;  ///< the TensorProtos' names
  std::optional<nlohmann::json> meta;  ///< meta.json, if present
};

/// Reads a case folder (data set 0 only). One-line Error if the model or a tensor cannot
/// be read; an unimportable model is not an error (see importProblem).
CaseData readCase(const std::filesystem::path& dir);

struct CaseCheck {
  bool ok = false;
  std::string problem;  ///< the first problem, one line (empty when ok)
  std::string note;     ///< why the reference rerun was not done, if it was not
  int dataSets = 0;
  int inputs = 0;   ///< per data set
  int outputs = 0;  ///< per data set
  bool rerun = false;  ///< outputs were recomputed by our reference and compared
};

/// Validates a case folder: the model loads, checkModelContained passes (against our types when it
/// imports), every test_data_set_* holds one tensor per runtime input and output with the
/// model's names and declared types; when every op is supported at the schema version we
/// implement, our reference rerun must match each output_N.pb (rtol 1e-3, atol 1e-4, NaN
/// positions equal). Never throws for a bad case: problems come back in the result.
CaseCheck checkCase(const std::filesystem::path& dir);

}  // namespace nnfuzz
