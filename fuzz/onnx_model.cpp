// onnx_model.cpp - fuzz target: an ONNX model from untrusted bytes (targets.h).
#include "fuzz/targets.h"
#include "interp/interpreter.h"
#include "onnx/export.h"
#include "onnx/import.h"
#include "onnx/model_check.h"
#include "support/error.h"

namespace nnfuzz::fuzz {

void onnxModel(std::string_view bytes) {
  onnx::ModelProto model;
  try {
    model = parseModel(std::string(bytes), "input");
  } catch (const Error&) {
    return;
  }
  // As `nnfuzz check` does: import, then ONNX's checks in a child, then the comparison.
  Graph graph;
  try {
    graph = importModel(model);
  } catch (const Error&) {
    checkModelContained(model);  // returns its problem; never throws
    return;
  }
  checkModelContained(model, &graph);
  if (auto problem = verifyStructure(graph)) broken("an imported graph verifies", *problem);
  const std::string text = printGraph(graph);
  if (printGraph(parseGraph(text)) != text) broken("the text form of an import round-trips", text);
  const onnx::ModelProto exported = exportModel(graph);
  std::string serialized;
  if (!exported.SerializeToString(&serialized)) broken("an export serializes", text);
  if (estimateWork(graph) > 1e6) return;
  std::vector<Tensor> inputs;
  for (ValueId v : graph.inputs()) inputs.emplace_back(graph.value(v).type);  // zeros
  try {
    runGraph(graph, inputs);
  } catch (const Error&) {
  }
}

}  // namespace nnfuzz::fuzz

NNFUZZ_FUZZ_ENTRY(nnfuzz::fuzz::onnxModel)
