// map_util.h - helpers the per-family Caffe mappings share (not part of the module's API).
#pragma once

#include <string>

#include "caffe/layer_map.h"

namespace nnfuzz::caffe_export {

using MapResult = std::optional<std::string>;
inline MapResult fit() { return std::nullopt; }
inline MapResult unfit(std::string why) { return why; }

/// A layer named after the node (suffix for the second and later layers of a node), with
/// the node's Data operands as bottoms and its results as tops.
nnfuzz::caffe::LayerParameter& addLayer(const NodeView& n, Layers& out, std::string type, std::string suffix = "");
/// A learned blob holding `t` with `shape` (t's own shape when empty).
void addBlob(nnfuzz::caffe::LayerParameter& layer, const Tensor& t, const Shape& shape = {});
void addBlob(nnfuzz::caffe::LayerParameter& layer, const std::vector<double>& values, const Shape& shape);

/// A node with rank-4 (N, C, H, W) first operand and 2-D window attributes: the
/// symmetric pads (h, w), or why not.
MapResult symmetricPads2d(const Attributes& attrs, int64_t& padH, int64_t& padW);

// Family entry points (map_*.cpp).
MapResult mapConvFamily(const NodeView& n, Layers* out);     // Conv, ConvTranspose, pools, LRN
MapResult mapDenseFamily(const NodeView& n, Layers* out);    // Gemm, MatMul, BatchNormalization, PRelu
MapResult mapElementwise(const NodeView& n, Layers* out);    // activations, Add/Sub/Mul/Sum/Max/Mean, Pow
MapResult mapShapeFamily(const NodeView& n, Layers* out);    // Concat, Split, reshapes, Softmax, Reduce*, ...
bool convFamilyHas(std::string_view op);
bool denseFamilyHas(std::string_view op);
bool elementwiseHas(std::string_view op);
bool shapeFamilyHas(std::string_view op);

}  // namespace nnfuzz::caffe_export
