// map_elementwise.cpp - the activations, Eltwise, Power, Scale and Bias layers.
//
// Add/Sub/Mul of two equal-shaped blobs are Eltwise (Sub is SUM with coeff [1, -1]; Mean
// is SUM with coeff 1/n). With a weight as second operand they are Power (a scalar:
// shift or scale) or Bias/Scale (a weight covering a contiguous run of the input's axes,
// ones elsewhere: Caffe's axis/num_axes broadcast; an Add of a lower-rank weight starting
// at that run is a Bias layer, any other bias a Scale with bias_term and a unit scale).
#include <algorithm>

#include "caffe/map_util.h"

namespace nnfuzz::caffe_export {

namespace {

struct Unary {
  std::string_view op, layer;
};
constexpr Unary kUnary[] = {{"Relu", "ReLU"},     {"LeakyRelu", "ReLU"},   {"Sigmoid", "Sigmoid"}, {"Tanh", "TanH"},
                            {"Abs", "AbsVal"},    {"Softplus", "BNLL"},    {"Elu", "ELU"},         {"Exp", "Exp"},
                            {"Log", "Log"},       {"Dropout", "Dropout"},  {"Identity", "Split"}};

const Unary* findUnary(std::string_view op) {
  for (const Unary& u : kUnary)
    if (u.op == op) return &u;
  return nullptr;
}

MapResult mapUnary(const NodeView& n, const Unary& u, Layers* out) {
  if (n.op == "Dropout" && n.present(2)) return unfit("Dropout's training_mode has no Caffe field");
  if (!out) return fit();
  auto& layer = addLayer(n, *out, std::string(u.layer));
  if (n.op == "LeakyRelu") layer.mutable_relu_param()->set_negative_slope(static_cast<float>(n.attrs.getFloat("alpha", 0.01)));
  if (n.op == "Elu") layer.mutable_elu_param()->set_alpha(static_cast<float>(n.attrs.getFloat("alpha", 1.0)));
  if (n.op == "Dropout" && n.present(1)) layer.mutable_dropout_param()->set_dropout_ratio(static_cast<float>(n.weight(1)->data[0]));
  return fit();
}

/// Eltwise over all operands (equal shapes), with per-operand coefficients for SUM.
MapResult mapEltwise(const NodeView& n, nnfuzz::caffe::EltwiseParameter::EltwiseOp op, std::vector<float> coeff, Layers* out) {
  int operands = 0;
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    if (!n.present(k)) continue;
    ++operands;
    if (n.inputs[k]->shape != n.outputs[0].shape) return unfit("Eltwise takes equal shapes");
  }
  if (operands < 2) return unfit("Eltwise takes two or more blobs");
  if (!out) return fit();
  auto* p = addLayer(n, *out, "Eltwise").mutable_eltwise_param();
  p->set_operation(op);
  for (float c : coeff) p->add_coeff(c);
  return fit();
}

/// Add/Sub/Mul of a blob and a weight: Power for a scalar, Bias/Scale for a weight that
/// spans axes [first, last] of the blob exactly and is 1 elsewhere.
MapResult mapWithWeight(const NodeView& n, Layers* out) {
  const TensorType& x = *n.inputs[0];
  const Tensor& w = *n.weight(1);
  if (n.outputs[0].shape != x.shape) return unfit("the weight must not broadcast the blob");
  const bool sub = n.op == "Sub", mul = n.op == "Mul";
  if (w.numel() == 1) {
    if (!out) return fit();
    auto* p = addLayer(n, *out, "Power").mutable_power_param();
    const auto c = static_cast<float>(w.data[0]);
    if (mul) p->set_scale(c);
    else p->set_shift(sub ? -c : c);
    return fit();
  }
  const int offset = x.rank() - w.type.rank();
  int first = -1, last = -1;
  for (int i = 0; i < w.type.rank(); ++i)
    if (w.type.shape[static_cast<size_t>(i)] != 1) {
      if (first < 0) first = i + offset;
      last = i + offset;
    }
  Shape span;
  for (int a = first; a <= last; ++a) {
    if (w.type.shape[static_cast<size_t>(a - offset)] != x.shape[static_cast<size_t>(a)])
      return unfit("Bias/Scale weights span whole axes");
    span.push_back(x.shape[static_cast<size_t>(a)]);
  }
  // Add of a lower-rank weight whose first dim is not 1: ONNX's spelling of Caffe's Bias
  // from `axis` (the weight is the blob's dims from axis on, ones after). Other Add/Sub:
  // a Scale with bias_term and a unit scale, which consumers lacking Bias (OpenCV 4.12)
  // read; both compute x + b exactly.
  if (n.op == "Add" && first == offset && offset > 0) {
    if (!out) return fit();
    auto& layer = addLayer(n, *out, "Bias");
    layer.mutable_bias_param()->set_axis(first);
    layer.mutable_bias_param()->set_num_axes(last - first + 1);
    addBlob(layer, w.data, span);
    return fit();
  }
  if (!out) return fit();
  auto& layer = addLayer(n, *out, "Scale");
  auto* p = layer.mutable_scale_param();
  p->set_axis(first);
  p->set_num_axes(last - first + 1);
  if (mul) {
    addBlob(layer, w.data, span);
    return fit();
  }
  p->set_bias_term(true);
  addBlob(layer, std::vector<double>(w.data.size(), 1.0), span);
  std::vector<double> bias = w.data;
  if (sub) for (double& v : bias) v = -v;
  addBlob(layer, bias, span);
  return fit();
}

MapResult mapPow(const NodeView& n, Layers* out) {
  const Tensor& e = *n.weight(1);
  if (e.numel() != 1 || n.outputs[0].shape != n.inputs[0]->shape) return unfit("Power takes a scalar exponent");
  if (!out) return fit();
  addLayer(n, *out, "Power").mutable_power_param()->set_power(static_cast<float>(e.data[0]));
  return fit();
}

}  // namespace

bool elementwiseHas(std::string_view op) {
  static constexpr std::string_view kOthers[] = {"Add", "Sub", "Mul", "Sum", "Max", "Mean", "Pow"};
  return findUnary(op) || std::find(std::begin(kOthers), std::end(kOthers), op) != std::end(kOthers);
}

MapResult mapElementwise(const NodeView& n, Layers* out) {
  using Eltwise = nnfuzz::caffe::EltwiseParameter;
  if (const Unary* u = findUnary(n.op)) return mapUnary(n, *u, out);
  if (n.op == "Pow") return mapPow(n, out);
  if (n.op == "Sum") return mapEltwise(n, Eltwise::SUM, {}, out);
  if (n.op == "Max") return mapEltwise(n, Eltwise::MAX, {}, out);
  if (n.op == "Mean") {
    const auto count = static_cast<float>(std::count_if(n.inputs.begin(), n.inputs.end(), [](auto* t) { return t != nullptr; }));
    return mapEltwise(n, Eltwise::SUM, std::vector<float>(static_cast<size_t>(count), 1.0f / count), out);
  }
  if (n.weight(1)) return mapWithWeight(n, out);
  if (n.op == "Add") return mapEltwise(n, Eltwise::SUM, {}, out);
  if (n.op == "Sub") return mapEltwise(n, Eltwise::SUM, {1.0f, -1.0f}, out);
  return mapEltwise(n, Eltwise::PROD, {}, out);
}

}  // namespace nnfuzz::caffe_export
