// pattern_reduction.cpp - Reduction with its coeff, and ArgMax.
//
// Caffe's Reduction scales its SUM, ASUM, SUMSQ or MEAN over all axes from `axis` by
// `coeff` (reduction_layer.cpp): the ONNX run is the reduction (keepdims 0 over the
// trailing axes, which alone is a Reduction layer: map_shape.cpp) -> Mul(coeff).
// Caffe's ArgMax with `axis` keeps the axis with top_k = 1 entries and writes the index
// as a float (argmax_layer.cpp): ArgMax(keepdims 1, first index) -> Cast(to float). Caffe
// breaks ties towards the higher index; the generator never makes ties (ArgMax's
// stability check), so "first index" is not a difference there.
#include "caffe/pattern_util.h"

namespace nnfuzz::caffe_export {

namespace {

constexpr std::string_view kReductions[] = {"ReduceSum", "ReduceMean", "ReduceL1", "ReduceSumSquare"};

}  // namespace

std::vector<NodeId> matchReduction(const Graph& g, NodeId last) {
  const Node& mul = g.node(last);
  if (mul.op != "Mul" || !scalarOperand(g, mul)) return {};
  for (std::string_view op : kReductions)
    if (producerOf(g, mul.inputs[0], op)) {
      const NodeId reduce = producerId(g, mul.inputs[0]);
      if (!isBlob(g, g.node(reduce).inputs[0])) return {};
      return {reduce, last};
    }
  return {};
}

MapResult writeReduction(const PatternSite& site, Layers& out) {
  const OwnedView v = viewOf(site, 0);
  if (auto why = mapNode(v.view(site.node(0), site.name), &out)) return why;
  out.back().mutable_reduction_param()->set_coeff(static_cast<float>(*scalarOperand(site.graph, site.last())));
  return fit();
}

std::vector<NodeId> matchArgMax(const Graph& g, NodeId last) {
  const auto nodes = chainBack(g, last, {"ArgMax", "Cast"});
  if (nodes.empty()) return {};
  const Node& argmax = g.node(nodes[0]);
  if (argmax.attrs.getInt("keepdims", 1) != 1 || argmax.attrs.getInt("select_last_index", 0) != 0) return {};
  if (g.node(last).attrs.getInt("to", 0) != 1 /* FLOAT */) return {};
  return nodes;
}

MapResult writeArgMax(const PatternSite& site, Layers& out) {
  const Node& argmax = site.node(0);
  const int rank = site.graph.value(argmax.inputs[0]).type.rank();
  int64_t axis = argmax.attrs.getInt("axis", 0);
  if (axis < 0) axis += rank;
  auto* p = addPatternLayer(site, out, "ArgMax", {argmax.inputs[0]}).mutable_argmax_param();
  p->set_axis(static_cast<int32_t>(axis));
  return fit();
}

}  // namespace nnfuzz::caffe_export
