// onnx_snippet.h - a short Python script that builds an ONNX model with onnx.helper, for bug
// reports: an upstream developer pastes it and has the model, no files needed.
//
// The script rebuilds the graph's nodes (names, inputs, outputs, attributes), its inputs and
// outputs with their types, its initializers, opset imports, IR version and producer; then
// runs onnx.checker with full_check. Tensors (initializers, tensor attributes, the runtime
// inputs) of up to `inlineLimit` elements are written out exactly (float32 with 9 significant
// digits, enough to round-trip); larger ones are drawn from np.random with a fixed seed, with a
// comment naming the file that holds the exact values. The runtime inputs go into `feeds`.
#pragma once

#include <string>
#include <vector>

#include "ir/tensor.h"
#include "onnx/onnx_pb.h"

namespace nnfuzz {

struct SnippetOptions {
  int64_t inlineLimit = 64;   ///< elements; larger tensors are drawn from np.random
  std::string modelFile = "model.onnx";       ///< where the exact initializers are (for the comment)
  std::string inputsDir = "test_data_set_0";  ///< where the exact inputs are (for the comment)
};

/// The script building `model`; `inputs` are its runtime inputs in model order (may be empty).
std::string onnxHelperSnippet(const onnx::ModelProto& model, const std::vector<Tensor>& inputs,
                              const SnippetOptions& options = {});

}  // namespace nnfuzz
