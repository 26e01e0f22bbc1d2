// map_shape.cpp - Concat, Slice (ONNX Split), Reshape/Flatten, Permute, Tile, Softmax and
// Reduction layers.
//
// Shapes are static, so every reshaping node (Reshape, Flatten, Squeeze, Unsqueeze) is a
// Reshape layer with the explicit result shape; ONNX Flatten at axis 1 is Caffe's Flatten.
// Reduction reduces all axes from `axis` on and drops them: ONNX reductions over a
// trailing run of axes without keepdims. Softmax is ONNX's opset-13 single-axis softmax.
#include <algorithm>
#include <numeric>

#include "caffe/map_util.h"

namespace nnfuzz::caffe_export {

namespace {

int64_t normalizedAxis(int64_t axis, int rank) { return axis < 0 ? axis + rank : axis; }

MapResult mapConcat(const NodeView& n, Layers* out) {
  if (!out) return fit();
  addLayer(n, *out, "Concat").mutable_concat_param()->set_axis(
      static_cast<int32_t>(normalizedAxis(n.attrs.getInt("axis", 0), n.inputs[0]->rank())));
  return fit();
}

MapResult mapSplit(const NodeView& n, Layers* out) {
  if (n.outputs.size() < 2) return unfit("a one-piece Split is no Slice");
  const int64_t axis = normalizedAxis(n.attrs.getInt("axis", 0), n.inputs[0]->rank());
  if (!out) return fit();
  auto* p = addLayer(n, *out, "Slice").mutable_slice_param();
  p->set_axis(static_cast<int32_t>(axis));
  int64_t point = 0;
  for (size_t r = 0; r + 1 < n.outputs.size(); ++r) {
    point += n.outputs[r].shape[static_cast<size_t>(axis)];
    p->add_slice_point(static_cast<uint32_t>(point));
  }
  // Caffe's Slice writes every piece: unused ones get tops of their own.
  auto& layer = out->back();
  layer.clear_top();
  for (size_t r = 0; r < n.outputs.size(); ++r)
    layer.add_top(r < n.outputNames.size() && !n.outputNames[r].empty() ? n.outputNames[r]
                                                                         : n.name + "_unused_" + std::to_string(r));
  return fit();
}

MapResult mapReshape(const NodeView& n, Layers* out) {
  if (!out) return fit();
  if (n.op == "Flatten" && n.attrs.getInt("axis", 1) == 1 && n.inputs[0]->rank() >= 2) {
    addLayer(n, *out, "Flatten");
    return fit();
  }
  auto* shape = addLayer(n, *out, "Reshape").mutable_reshape_param()->mutable_shape();
  for (int64_t d : n.outputs[0].shape) shape->add_dim(d);
  return fit();
}

MapResult mapTranspose(const NodeView& n, Layers* out) {
  const int rank = n.inputs[0]->rank();
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  std::iota(perm.rbegin(), perm.rend(), 0);
  perm = n.attrs.getInts("perm", perm);
  if (!out) return fit();
  auto* p = addLayer(n, *out, "Permute").mutable_permute_param();
  for (int64_t a : perm) p->add_order(static_cast<uint32_t>(a));
  return fit();
}

MapResult mapTile(const NodeView& n, Layers* out) {
  const auto& repeats = n.weight(1)->data;
  int axis = -1;
  for (size_t i = 0; i < repeats.size(); ++i)
    if (repeats[i] != 1) {
      if (axis >= 0) return unfit("Caffe's Tile repeats one axis");
      axis = static_cast<int>(i);
    }
  if (axis < 0) return unfit("Tile by ones is no tiling");
  if (!out) return fit();
  auto* p = addLayer(n, *out, "Tile").mutable_tile_param();
  p->set_axis(axis);
  p->set_tiles(static_cast<int32_t>(repeats[static_cast<size_t>(axis)]));
  return fit();
}

MapResult mapSoftmax(const NodeView& n, Layers* out) {
  if (!out) return fit();
  addLayer(n, *out, "Softmax").mutable_softmax_param()->set_axis(
      static_cast<int32_t>(normalizedAxis(n.attrs.getInt("axis", -1), n.inputs[0]->rank())));
  return fit();
}

MapResult mapReduce(const NodeView& n, Layers* out) {
  using Reduction = nnfuzz::caffe::ReductionParameter;
  const int rank = n.inputs[0]->rank();
  if (n.attrs.getInt("keepdims", 1) != 0) return unfit("Caffe's Reduction drops the reduced axes");
  std::vector<int64_t> axes = n.op == "ReduceSum" ? (n.present(1) ? toInt64s(*n.weight(1)) : std::vector<int64_t>{})
                                                  : n.attrs.getInts("axes");
  for (int64_t& a : axes) a = normalizedAxis(a, rank);
  std::sort(axes.begin(), axes.end());
  if (axes.empty() || axes.front() == 0) return unfit("Caffe's Reduction to a scalar has no rank");
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != axes.front() + static_cast<int64_t>(i) || axes.back() != rank - 1)
      return unfit("Caffe's Reduction reduces all trailing axes");
  if (!out) return fit();
  auto* p = addLayer(n, *out, "Reduction").mutable_reduction_param();
  p->set_axis(static_cast<int32_t>(axes.front()));
  p->set_operation(n.op == "ReduceSum" ? Reduction::SUM
                   : n.op == "ReduceMean" ? Reduction::MEAN
                   : n.op == "ReduceL1" ? Reduction::ASUM
                                        : Reduction::SUMSQ);
  return fit();
}

}  // namespace

bool shapeFamilyHas(std::string_view op) {
  static constexpr std::string_view kOps[] = {"Concat",    "Split",     "Reshape",   "Flatten",    "Squeeze",
                                              "Unsqueeze", "Transpose", "Tile",      "Softmax",    "ReduceSum",
                                              "ReduceMean", "ReduceL1", "ReduceSumSquare"};
  return std::find(std::begin(kOps), std::end(kOps), op) != std::end(kOps);
}

MapResult mapShapeFamily(const NodeView& n, Layers* out) {
  if (n.op == "Concat") return mapConcat(n, out);
  if (n.op == "Split") return mapSplit(n, out);
  if (n.op == "Transpose") return mapTranspose(n, out);
  if (n.op == "Tile") return mapTile(n, out);
  if (n.op == "Softmax") return mapSoftmax(n, out);
  if (n.op.starts_with("Reduce")) return mapReduce(n, out);
  return mapReshape(n, out);
}

}  // namespace nnfuzz::caffe_export
