// layer_map.cpp - the dispatch over the per-family mappings, operand roles, and the rules
// every Caffe layer shares (float blobs of rank >= 1).
#include "caffe/layer_map.h"

#include <algorithm>

#include "caffe/map_util.h"

namespace nnfuzz::caffe_export {

Role operandRole(std::string_view op, size_t operand) {
  if (operand == 0) return Role::Data;
  static constexpr std::string_view kAllData[] = {"Concat", "Sum", "Max", "Mean"};
  if (std::find(std::begin(kAllData), std::end(kAllData), op) != std::end(kAllData)) return Role::Data;
  if (op == "Add" || op == "Sub" || op == "Mul") return Role::Either;
  return Role::Param;  // weights, biases, statistics, slopes, exponents, shapes, axes, sizes
}

bool hasMapping(std::string_view op) {
  return convFamilyHas(op) || denseFamilyHas(op) || elementwiseHas(op) || shapeFamilyHas(op);
}

std::optional<std::string> mapNode(const NodeView& n, Layers* out) {
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    if (!n.inputs[k]) continue;
    const bool weight = n.weight(k) != nullptr;
    const Role role = operandRole(n.op, k);
    if (role == Role::Data && weight) return "operand " + std::to_string(k) + " of " + std::string(n.op) + " is a weight, Caffe wants a blob";
    if (role == Role::Param && !weight) return "operand " + std::to_string(k) + " of " + std::string(n.op) + " is not a weight, Caffe wants a layer parameter";
    if (!weight && (n.inputs[k]->dtype != DType::Float32 || n.inputs[k]->rank() == 0))
      return "Caffe blobs are float32 of rank >= 1";
  }
  for (size_t r = 0; r < n.outputs.size(); ++r) {
    const bool used = r < n.outputNames.size() ? !n.outputNames[r].empty() : r == 0;
    if (used && (n.outputs[r].dtype != DType::Float32 || n.outputs[r].rank() == 0))
      return "Caffe blobs are float32 of rank >= 1";
  }
  if (convFamilyHas(n.op)) return mapConvFamily(n, out);
  if (denseFamilyHas(n.op)) return mapDenseFamily(n, out);
  if (elementwiseHas(n.op)) return mapElementwise(n, out);
  if (shapeFamilyHas(n.op)) return mapShapeFamily(n, out);
  return std::string(n.op) + " has no Caffe layer";
}

nnfuzz::caffe::LayerParameter& addLayer(const NodeView& n, Layers& out, std::string type, std::string suffix) {
  auto& layer = out.emplace_back();
  layer.set_name(n.name + suffix);
  layer.set_type(std::move(type));
  for (size_t k = 0; k < n.inputs.size(); ++k)
    if (n.inputs[k] && !n.weight(k) && k < n.inputNames.size()) layer.add_bottom(n.inputNames[k]);
  for (const auto& top : n.outputNames)
    if (!top.empty()) layer.add_top(top);
  return layer;
}

void addBlob(nnfuzz::caffe::LayerParameter& layer, const std::vector<double>& values, const Shape& shape) {
  auto* blob = layer.add_blobs();
  for (int64_t d : shape) blob->mutable_shape()->add_dim(d);
  for (double v : values) blob->add_data(static_cast<float>(v));
}

void addBlob(nnfuzz::caffe::LayerParameter& layer, const Tensor& t, const Shape& shape) {
  addBlob(layer, t.data, shape.empty() ? t.type.shape : shape);
}

MapResult symmetricPads2d(const Attributes& attrs, int64_t& padH, int64_t& padW) {
  const std::string autoPad = attrs.getString("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID") return unfit("auto_pad " + autoPad + " has no Caffe field");
  const auto pads = attrs.getInts("pads", {0, 0, 0, 0});
  if (pads.size() != 4) return unfit("pads must list 4 values");
  if (pads[0] != pads[2] || pads[1] != pads[3]) return unfit("Caffe pads are symmetric");
  padH = pads[0];
  padW = pads[1];
  return fit();
}

}  // namespace nnfuzz::caffe_export
