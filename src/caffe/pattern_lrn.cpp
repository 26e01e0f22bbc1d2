// pattern_lrn.cpp - LRN WITHIN_CHANNEL.
//
// Caffe computes it as x * (1 + alpha * avg)^-beta, where avg is the AVE pooling of x^2
// over a local_size x local_size window, stride 1, pad (local_size - 1) / 2 (lrn_layer.cpp
// builds exactly that from Power, Pooling and Eltwise layers). With an odd window and that
// pad, no window reaches past the padded border, so Caffe divides every sum by
// local_size^2: ONNX's AveragePool with count_include_pad 1. The run, exactly:
//   Mul(x, x) -> AveragePool(k x k, pads p, strides 1, count_include_pad 1)
//     -> Mul(alpha) -> Add(1) -> Pow(-beta) -> Mul(x, .)
// Every node alone is a Caffe layer too. Caffe's k (the "bias") does not enter
// WITHIN_CHANNEL: the shift is 1.
#include "caffe/pattern_util.h"

namespace nnfuzz::caffe_export {

namespace {

/// The window of a pooling that is Caffe's WITHIN_CHANNEL sum of squares, or 0.
int64_t withinChannelWindow(const Graph& g, const Node& pool) {
  if (g.value(pool.inputs[0]).type.rank() != 4) return 0;
  const auto kernel = pool.attrs.getInts("kernel_shape");
  if (kernel.size() != 2 || kernel[0] != kernel[1] || kernel[0] % 2 == 0) return 0;
  const int64_t pad = (kernel[0] - 1) / 2;
  if (pool.attrs.getInts("pads", {0, 0, 0, 0}) != std::vector<int64_t>(4, pad)) return 0;
  if (pool.attrs.getInts("strides", {1, 1}) != std::vector<int64_t>{1, 1}) return 0;
  if (pool.attrs.getString("auto_pad", "NOTSET") != "NOTSET" || pool.attrs.getInt("ceil_mode", 0) != 0) return 0;
  if (pad > 0 && pool.attrs.getInt("count_include_pad", 0) != 1) return 0;
  return kernel[0];
}

}  // namespace

std::vector<NodeId> matchLrnWithinChannel(const Graph& g, NodeId last) {
  const Node& product = g.node(last);
  if (product.op != "Mul" || product.inputs.size() != 2) return {};
  for (int side = 0; side < 2; ++side) {
    const ValueId x = product.inputs[static_cast<size_t>(side)];
    const ValueId r = product.inputs[static_cast<size_t>(1 - side)];
    if (!producerOf(g, r, "Pow")) continue;
    auto nodes = chainBack(g, producerId(g, r), {"Mul", "AveragePool", "Mul", "Add", "Pow"});
    if (nodes.empty()) continue;
    const Node& square = g.node(nodes[0]);
    if (square.inputs.size() != 2 || square.inputs[0] != x || square.inputs[1] != x || !isBlob(g, x)) continue;
    const auto alpha = scalarOperand(g, g.node(nodes[2]));
    const auto one = scalarOperand(g, g.node(nodes[3]));
    const auto power = scalarOperand(g, g.node(nodes[4]));
    if (!alpha || !one || *one != 1.0 || !power || withinChannelWindow(g, g.node(nodes[1])) == 0) continue;
    if (g.value(product.outputs[0]).type.shape != g.value(x).type.shape) continue;
    nodes.push_back(last);
    return nodes;
  }
  return {};
}

MapResult writeLrnWithinChannel(const PatternSite& site, Layers& out) {
  const ValueId x = site.node(0).inputs[0];
  auto* p = addPatternLayer(site, out, "LRN", {x}).mutable_lrn_param();
  p->set_norm_region(nnfuzz::caffe::LRNParameter::WITHIN_CHANNEL);
  p->set_local_size(static_cast<uint32_t>(withinChannelWindow(site.graph, site.node(1))));
  p->set_alpha(static_cast<float>(*scalarOperand(site.graph, site.node(2))));
  p->set_beta(static_cast<float>(-*scalarOperand(site.graph, site.node(4))));
  return fit();
}

}  // namespace nnfuzz::caffe_export
