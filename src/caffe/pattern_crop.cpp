// pattern_crop.cpp - Crop: a Slice with constant starts and ends, unit steps.
//
// Caffe's Crop keeps the axes before `axis` and cuts every axis from `axis` on to the size
// of its second bottom, starting at `offset` (one for all axes, or one per axis; crop_layer
// .cpp). Only that bottom's shape matters, so the exporter takes as second bottom the
// first blob already defined whose shape fits (same rank, the Slice's result dims from
// `axis` on); with none, the Slice has no Caffe form. The generator emits a Crop only
// where such a blob exists (a runtime input, a pooled map, ...), as FCN's score crop does.
#include <algorithm>

#include "caffe/pattern_util.h"

namespace nnfuzz::caffe_export {

namespace {

/// Per axis the first index kept, from a Slice with constant operands; empty if the Slice
/// is not a plain window (steps other than 1, operands not weights).
std::vector<int64_t> sliceStarts(const Graph& g, const Node& slice) {
  const TensorType& x = g.value(slice.inputs[0]).type;
  const int rank = x.rank();
  for (size_t k = 1; k < slice.inputs.size(); ++k)
    if (slice.inputs[k] != kNoValue && g.value(slice.inputs[k]).kind != ValueKind::Weight) return {};
  if (slice.inputs.size() < 3) return {};
  const auto starts = toInt64s(*g.value(slice.inputs[1]).data);
  std::vector<int64_t> axes(starts.size());
  for (size_t j = 0; j < axes.size(); ++j) axes[j] = static_cast<int64_t>(j);
  if (slice.inputs.size() > 3 && slice.inputs[3] != kNoValue) axes = toInt64s(*g.value(slice.inputs[3]).data);
  if (slice.inputs.size() > 4 && slice.inputs[4] != kNoValue)
    for (int64_t step : toInt64s(*g.value(slice.inputs[4]).data))
      if (step != 1) return {};
  std::vector<int64_t> first(static_cast<size_t>(rank), 0);
  for (size_t j = 0; j < axes.size() && j < starts.size(); ++j) {
    const int64_t a = axes[j] < 0 ? axes[j] + rank : axes[j];
    const int64_t dim = x.shape[static_cast<size_t>(a)];
    const int64_t s = starts[j] < 0 ? starts[j] + dim : starts[j];
    first[static_cast<size_t>(a)] = std::clamp<int64_t>(s, 0, dim);
  }
  return first;
}

/// The first axis the Slice changes, or -1.
int cropAxis(const Graph& g, const Node& slice, const std::vector<int64_t>& first) {
  const Shape& in = g.value(slice.inputs[0]).type.shape;
  const Shape& out = g.value(slice.outputs[0]).type.shape;
  for (size_t i = 0; i < in.size(); ++i)
    if (first[i] != 0 || out[i] != in[i]) return static_cast<int>(i);
  return -1;
}

}  // namespace

std::vector<NodeId> matchCrop(const Graph& g, NodeId last) {
  const Node& slice = g.node(last);
  if (slice.op != "Slice" || slice.inputs.empty() || !isBlob(g, slice.inputs[0])) return {};
  const auto first = sliceStarts(g, slice);
  if (first.empty() || cropAxis(g, slice, first) < 0) return {};
  return {last};
}

MapResult writeCrop(const PatternSite& site, Layers& out) {
  const Node& slice = site.last();
  const auto first = sliceStarts(site.graph, slice);
  const int axis = cropAxis(site.graph, slice, first);
  const Shape& size = site.graph.value(slice.outputs[0]).type.shape;
  const auto fits = [&](ValueId b) {
    const Shape& s = site.graph.value(b).type.shape;
    return s.size() == size.size() && std::equal(s.begin() + axis, s.end(), size.begin() + axis);
  };
  const auto ref = std::find_if(site.blobs.begin(), site.blobs.end(), fits);
  if (ref == site.blobs.end()) return unfit("no blob of the cropped size precedes the Slice (Crop's second bottom)");
  auto* p = addPatternLayer(site, out, "Crop", {slice.inputs[0], *ref}).mutable_crop_param();
  p->set_axis(axis);
  const bool one = std::all_of(first.begin() + axis, first.end(), [&](int64_t o) { return o == first[static_cast<size_t>(axis)]; });
  for (size_t i = static_cast<size_t>(axis); i < first.size(); ++i) {
    p->add_offset(static_cast<uint32_t>(first[i]));
    if (one) break;  // one offset serves every cropped axis
  }
  return fit();
}

}  // namespace nnfuzz::caffe_export
