// map_dense.cpp - InnerProduct (Gemm, MatMul with a weight), BatchNorm + Scale, PReLU.
//
// InnerProduct flattens its input from `axis` on: MatMul by a 2-D weight is InnerProduct
// at the last axis (its K x N weight written transposed, N x K); Gemm is
// InnerProduct at axis 1 with alpha and beta folded into the blobs. Caffe's BatchNorm has
// no affine part: ONNX's scale and bias become a Scale layer behind it.
#include "caffe/map_util.h"

namespace nnfuzz::caffe_export {

namespace {

/// A rows x cols row-major matrix transposed. InnerProduct blobs are written N x K with
/// transpose: false, as published models have them (OpenCV 4.12 ignores transpose: true).
std::vector<double> transposed(const std::vector<double>& m, int64_t rows, int64_t cols) {
  std::vector<double> t(m.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) t[static_cast<size_t>(c * rows + r)] = m[static_cast<size_t>(r * cols + c)];
  return t;
}

MapResult mapGemm(const NodeView& n, Layers* out) {
  if (n.inputs[0]->rank() != 2 || n.attrs.getInt("transA", 0) != 0) return unfit("InnerProduct takes A untransposed");
  const bool transB = n.attrs.getInt("transB", 0) != 0;
  const Shape& b = n.inputs[1]->shape;
  const int64_t outN = n.outputs[0].shape[1];
  std::vector<double> bias;
  if (n.present(2)) {
    const Shape& c = n.inputs[2]->shape;
    if (c.size() == 2 && c[0] != 1 && n.outputs[0].shape[0] != 1) return unfit("InnerProduct's bias is one per output");
    const Tensor& ct = *n.weight(2);
    const double beta = n.attrs.getFloat("beta", 1.0);
    for (int64_t j = 0; j < outN; ++j) bias.push_back(beta * ct.data[ct.numel() == 1 ? 0 : static_cast<size_t>(j)]);
  }
  if (!out) return fit();
  auto& layer = addLayer(n, *out, "InnerProduct");
  auto* p = layer.mutable_inner_product_param();
  p->set_num_output(static_cast<uint32_t>(outN));
  p->set_bias_term(n.present(2));
  const double alpha = n.attrs.getFloat("alpha", 1.0);
  std::vector<double> w = transB ? n.weight(1)->data : transposed(n.weight(1)->data, b[0], b[1]);
  for (double& v : w) v *= alpha;
  addBlob(layer, w, {outN, transB ? b[1] : b[0]});
  if (n.present(2)) addBlob(layer, bias, {outN});
  return fit();
}

MapResult mapMatMul(const NodeView& n, Layers* out) {
  if (n.inputs[1]->rank() != 2) return unfit("InnerProduct's weight is 2-D");
  if (!out) return fit();
  auto& layer = addLayer(n, *out, "InnerProduct");
  auto* p = layer.mutable_inner_product_param();
  p->set_num_output(static_cast<uint32_t>(n.inputs[1]->shape[1]));
  p->set_bias_term(false);
  p->set_axis(n.inputs[0]->rank() - 1);
  const Shape& w = n.inputs[1]->shape;
  addBlob(layer, transposed(n.weight(1)->data, w[0], w[1]), {w[1], w[0]});
  return fit();
}

MapResult mapBatchNorm(const NodeView& n, Layers* out) {
  if (n.inputs[0]->rank() < 2) return unfit("BatchNorm's channels are axis 1");
  if (n.attrs.getInt("training_mode", 0) != 0) return unfit("inference BatchNorm only");
  for (size_t r = 1; r < n.outputNames.size(); ++r)
    if (!n.outputNames[r].empty()) return unfit("BatchNorm has no running statistics results");
  if (!out) return fit();
  const int64_t channels = n.inputs[0]->shape[1];
  const std::string normalized = n.outputNames[0] + "_normalized";
  auto& bn = addLayer(n, *out, "BatchNorm");
  bn.set_top(0, normalized);
  bn.mutable_batch_norm_param()->set_use_global_stats(true);
  bn.mutable_batch_norm_param()->set_eps(static_cast<float>(n.attrs.getFloat("epsilon", 1e-5)));
  addBlob(bn, *n.weight(3), {channels});
  addBlob(bn, *n.weight(4), {channels});
  addBlob(bn, std::vector<double>{1.0}, {1});  // the moving-average scale factor
  auto& scale = out->emplace_back();
  scale.set_name(n.name + "_scale");
  scale.set_type("Scale");
  scale.add_bottom(normalized);
  scale.add_top(n.outputNames[0]);
  scale.mutable_scale_param()->set_bias_term(true);
  addBlob(scale, *n.weight(1), {channels});
  addBlob(scale, *n.weight(2), {channels});
  return fit();
}

MapResult mapPRelu(const NodeView& n, Layers* out) {
  const TensorType& x = *n.inputs[0];
  const TensorType& slope = *n.inputs[1];
  if (n.outputs[0].shape != x.shape) return unfit("PReLU keeps the input's shape");
  const bool shared = slope.numel() == 1;
  if (!shared) {
    if (x.rank() < 2 || slope.rank() > x.rank()) return unfit("PReLU's slope is per channel");
    const int offset = x.rank() - slope.rank();
    for (int i = 0; i < slope.rank(); ++i) {
      const int axis = offset + i;
      if (slope.shape[static_cast<size_t>(i)] != (axis == 1 ? x.shape[1] : 1)) return unfit("PReLU's slope is per channel");
    }
  }
  if (!out) return fit();
  auto& layer = addLayer(n, *out, "PReLU");
  if (shared) layer.mutable_prelu_param()->set_channel_shared(true);
  addBlob(layer, *n.weight(1), {shared ? 1 : x.shape[1]});
  return fit();
}

}  // namespace

bool denseFamilyHas(std::string_view op) {
  return op == "Gemm" || op == "MatMul" || op == "BatchNormalization" || op == "PRelu";
}

MapResult mapDenseFamily(const NodeView& n, Layers* out) {
  if (n.op == "Gemm") return mapGemm(n, out);
  if (n.op == "MatMul") return mapMatMul(n, out);
  if (n.op == "BatchNormalization") return mapBatchNorm(n, out);
  return mapPRelu(n, out);
}

}  // namespace nnfuzz::caffe_export
