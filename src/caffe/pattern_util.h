// pattern_util.h - helpers the pattern_*.cpp files share to walk a run of ONNX nodes
// backwards (not part of the module's API).
#pragma once

#include <optional>

#include "caffe/map_util.h"
#include "caffe/pattern.h"

namespace nnfuzz::caffe_export {

/// The live node of type `op` that produces `v`, or nullptr (v is an input, a weight, or
/// another op's result).
const Node* producerOf(const Graph& g, ValueId v, std::string_view op);
NodeId producerId(const Graph& g, ValueId v);
/// A value Caffe holds as a blob: not a weight, float32, rank >= 1.
bool isBlob(const Graph& g, ValueId v);

/// For an elementwise node (Add, Mul, Pow) whose operand 1 is a one-element float weight
/// and whose result has operand 0's shape: that scalar.
std::optional<double> scalarOperand(const Graph& g, const Node& n);

/// Walks back from `last` through operand 0: `ops` lists the run's op types in order
/// (the last entry is last's own type), and the first node's operand 0 is a blob. The
/// node ids in order, or empty.
std::vector<NodeId> chainBack(const Graph& g, NodeId last, std::initializer_list<std::string_view> ops);

/// A NodeView of one node for the per-node mappings (names from the site).
struct OwnedView {
  std::vector<const TensorType*> types;
  std::vector<const Tensor*> weights;
  std::vector<TensorType> outTypes;
  std::vector<std::string> inNames, outNames;
  NodeView view(const Node& n, std::string name) const {
    return NodeView{n.op, n.attrs, types, weights, outTypes, inNames, outNames, std::move(name)};
  }
};
/// The view of site node k, its tops the run's tops (the last node's result names).
OwnedView viewOf(const PatternSite& site, size_t k);

/// The first layer: named after the site, with `bottoms` and the last node's result as top.
nnfuzz::caffe::LayerParameter& addPatternLayer(const PatternSite& site, Layers& out, std::string type,
                                               std::initializer_list<ValueId> bottoms);

}  // namespace nnfuzz::caffe_export
