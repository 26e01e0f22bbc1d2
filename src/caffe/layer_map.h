// layer_map.h - which GraphIR nodes Caffe layers express, and the layers that express them.
//
// A GraphIR node is written as Caffe layers only where Caffe's semantics equal the ONNX
// operator's for that node's operands and attributes (pooling whose Caffe output size,
// with its ceil rounding and last-window clipping, equals the node's; odd LRN windows;
// symmetric pads; ...). One mapping per operator family (map_*.cpp) answers both
// questions with one function, so the generator's filter and the exporter never disagree:
// called with no sink it only checks, with a sink it appends the layers.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "caffe/caffe.pb.h"
#include "ir/attributes.h"
#include "ir/tensor.h"

namespace nnfuzz::caffe_export {

/// What an operand must be for Caffe: a blob flowing between layers (Data), a layer's
/// parameter or field (Param: learned blobs such as Conv weights, constants such as
/// Reshape's shape), or either (Add's second operand: Eltwise, or Bias/Power).
enum class Role : uint8_t { Data, Param, Either };
Role operandRole(std::string_view op, size_t operand);

/// One node as the mappings see it. At generation time names are empty; weights holds
/// the contents of every Param operand (nullptr for Data operands).
struct NodeView {
  std::string_view op;
  const Attributes& attrs;
  std::span<const TensorType* const> inputs;  ///< nullptr: omitted
  std::span<const Tensor* const> weights;     ///< per operand: contents if it is a weight, else nullptr
  std::span<const TensorType> outputs;
  std::span<const std::string> inputNames;   ///< blob names of Data operands (export only)
  std::span<const std::string> outputNames;  ///< top names; empty string: result unused
  std::string name;                          ///< layer name (export only)

  const Tensor* weight(size_t k) const { return k < weights.size() ? weights[k] : nullptr; }
  bool present(size_t k) const { return k < inputs.size() && inputs[k] != nullptr; }
};

using Layers = std::vector<nnfuzz::caffe::LayerParameter>;

/// Why the node cannot be written as Caffe layers, or nullopt. With `out`, also appends
/// the layers (and returns nullopt exactly when it did).
std::optional<std::string> mapNode(const NodeView& node, Layers* out);

/// True for ops some mapping handles (the default Caffe allow-list draws from these).
bool hasMapping(std::string_view op);

}  // namespace nnfuzz::caffe_export
