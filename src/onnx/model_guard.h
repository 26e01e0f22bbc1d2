// model_guard.h - a model read from outside is checked here before any library sees it.
//
// ONNX's checker and shape inference, ONNX Runtime and our importer all trust a parsed
// ModelProto's sizes: a tensor whose raw data is shorter than its dims say, a shape with
// 2^40 elements or a million nodes crash, hang or exhaust memory there. guardModel walks
// the whole proto (subgraphs included) and returns the first such problem as one line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "onnx/onnx_pb.h"

namespace nnfuzz {

struct ModelBudget {
  int64_t maxTensorElements = int64_t{1} << 26;  ///< any one tensor, declared or stored
  int64_t maxStoredElements = int64_t{1} << 27;  ///< all initializers and constants together
  int64_t maxNodes = 100000;                     ///< all graphs together
  int maxGraphNesting = 8;                       ///< subgraph attributes inside subgraphs
  int64_t maxListLength = 1 << 16;               ///< ints/floats/strings of one attribute
  /// Attribute integers that size or stride a window (kernel_shape, pads, strides,
  /// dilations, size, ...) must lie in [-maxWindowInt, maxWindowInt].
  int64_t maxWindowInt = int64_t{1} << 20;
};

/// nullopt when `model` is within the budget and every stored tensor's data matches its
/// dims and element type; otherwise the first problem, one line.
std::optional<std::string> guardModel(const onnx::ModelProto& model, const ModelBudget& budget = {});

/// The same for one tensor (test data read from a .pb file).
std::optional<std::string> guardTensor(const onnx::TensorProto& tensor, const ModelBudget& budget = {});

}  // namespace nnfuzz
