// pattern.h - Caffe layers whose semantics have no one-node ONNX twin, as short runs of
// ONNX nodes.
//
// GraphIR stays ONNX: a Caffe Power layer ((shift + scale x)^power) is Mul -> Add -> Pow
// by scalar weights, ArgMax (indices as floats) is ArgMax -> Cast, LRN WITHIN_CHANNEL is
// its formula in six ONNX nodes, and so on (one pattern_*.cpp per layer family says which
// run). The ONNX twin of a case is then an ordinary model with the same semantics, and
// nnfuzz's reference covers it. The exporter finds each run and writes ONE Caffe layer.
//
// A run is a pattern only if its interior results are read by nothing else and are no
// graph outputs (no layer would write them). Runs are found from the graph's end: a
// pattern ending later claims its nodes first, so LRN WITHIN_CHANNEL wins over the Power
// run inside it. The generator emits each pattern as a unit (gen/caffe_units.h) and
// keeps its interior results to itself.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "caffe/layer_map.h"
#include "ir/graph.h"

namespace nnfuzz::caffe_export {

/// Where a matched run is written: its nodes in order (the last one's results are the
/// layer's tops) and the exporter's blob names so far.
struct PatternSite {
  const Graph& graph;
  const std::vector<NodeId>& nodes;
  const std::map<ValueId, std::string>& names;  ///< every blob defined so far
  std::span<const ValueId> blobs;               ///< those blobs in definition order
  std::string name;                             ///< layer name

  const Node& node(size_t k) const { return graph.node(nodes[k]); }
  const Node& last() const { return graph.node(nodes.back()); }
};

struct Pattern {
  std::string_view layer;  ///< the Caffe layer it writes (and its key in "caffe_layers")
  /// The run's nodes in order if one ends at `last`, else empty. Interior uses are
  /// checked by the caller.
  std::vector<NodeId> (*match)(const Graph& graph, NodeId last);
  /// Appends the layer, or says why it cannot (nullopt: written).
  std::optional<std::string> (*write)(const PatternSite& site, Layers& out);
};

/// Every pattern, in matching priority (the first that matches a node wins).
std::span<const Pattern> patterns();

/// The runs of `graph` that patterns write, by their last node.
struct FoundPattern {
  const Pattern* pattern;
  std::vector<NodeId> nodes;
};
std::map<NodeId, FoundPattern> findPatterns(const Graph& graph);

}  // namespace nnfuzz::caffe_export
