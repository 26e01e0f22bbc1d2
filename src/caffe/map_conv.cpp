// map_conv.cpp - Convolution, Deconvolution, Pooling and LRN layers.
//
// Caffe's pooling output size is ceil((in + 2 pad - kernel) / stride) + 1, less one when
// the last window would start in the right padding; a node maps only where that equals
// the node's own size, so the windows are the same ones. AVE divides by the window
// clipped to the padded input (as ONNX's count_include_pad=1), so a padded AveragePool
// without count_include_pad has no Caffe twin. LRN's window must be odd in Caffe.
#include <cmath>

#include "caffe/map_util.h"

namespace nnfuzz::caffe_export {

namespace {

MapResult spatial4d(const NodeView& n) {
  if (n.inputs[0]->rank() != 4) return unfit(std::string(n.op) + " in Caffe takes N x C x H x W");
  return fit();
}

std::vector<int64_t> ints2(const Attributes& attrs, std::string_view name) {
  auto v = attrs.getInts(name, {1, 1});
  return v.size() == 2 ? v : std::vector<int64_t>{1, 1};
}

MapResult mapConv(const NodeView& n, Layers* out, bool transposed) {
  if (auto bad = spatial4d(n)) return bad;
  if (!n.present(1) || n.inputs[1]->rank() != 4) return unfit("Caffe convolution weights are 4-D");
  int64_t padH = 0, padW = 0;
  if (auto bad = symmetricPads2d(n.attrs, padH, padW)) return bad;
  if (transposed) {
    for (int64_t p : n.attrs.getInts("output_padding")) if (p != 0) return unfit("Deconvolution has no output_padding");
    if (n.attrs.has("output_shape")) return unfit("Deconvolution has no output_shape");
  }
  const auto strides = ints2(n.attrs, "strides"), dilations = ints2(n.attrs, "dilations");
  const Shape& w = n.inputs[1]->shape;
  const int64_t group = n.attrs.getInt("group", 1);
  if (transposed) {  // Caffe's size: stride (in - 1) + dilation (kernel - 1) + 1 - 2 pad
    const Shape& x = n.inputs[0]->shape;
    const int64_t pads[2] = {padH, padW};
    for (int i = 0; i < 2; ++i)
      if (strides[i] * (x[2 + i] - 1) + dilations[i] * (w[2 + i] - 1) + 1 - 2 * pads[i] != n.outputs[0].shape[2 + i])
        return unfit("Deconvolution's size differs");
  }
  if (!out) return fit();
  auto& layer = addLayer(n, *out, transposed ? "Deconvolution" : "Convolution");
  auto* p = layer.mutable_convolution_param();
  p->set_num_output(static_cast<uint32_t>(transposed ? w[1] * group : w[0]));
  p->set_bias_term(n.present(2));
  if (group != 1) p->set_group(static_cast<uint32_t>(group));
  p->set_kernel_h(static_cast<uint32_t>(w[2]));
  p->set_kernel_w(static_cast<uint32_t>(w[3]));
  p->set_stride_h(static_cast<uint32_t>(strides[0]));
  p->set_stride_w(static_cast<uint32_t>(strides[1]));
  if (padH || padW) {  // both, as published prototxts do (OpenCV 4 ignores a lone pad_h or pad_w)
    p->set_pad_h(static_cast<uint32_t>(padH));
    p->set_pad_w(static_cast<uint32_t>(padW));
  }
  if (dilations[0] != 1 || dilations[1] != 1) {
    p->add_dilation(static_cast<uint32_t>(dilations[0]));
    p->add_dilation(static_cast<uint32_t>(dilations[1]));
  }
  addBlob(layer, *n.weight(1));
  if (n.present(2)) addBlob(layer, *n.weight(2));
  return fit();
}

/// Caffe's pooled size (pooling_layer.cpp's rule, restated).
int64_t caffePooledSize(int64_t in, int64_t kernel, int64_t stride, int64_t pad) {
  int64_t out = static_cast<int64_t>(std::ceil(static_cast<double>(in + 2 * pad - kernel) / static_cast<double>(stride))) + 1;
  if (pad > 0 && (out - 1) * stride >= in + pad) --out;
  return out;
}

MapResult mapPool(const NodeView& n, Layers* out, bool max) {
  if (auto bad = spatial4d(n)) return bad;
  int64_t padH = 0, padW = 0;
  if (auto bad = symmetricPads2d(n.attrs, padH, padW)) return bad;
  for (int64_t d : n.attrs.getInts("dilations")) if (d != 1) return unfit("Caffe pooling has no dilation");
  if (!max && (padH || padW) && n.attrs.getInt("count_include_pad", 0) != 1)
    return unfit("Caffe AVE pooling counts the padding");
  const auto kernel = n.attrs.getInts("kernel_shape");
  if (kernel.size() != 2) return unfit("Caffe pooling is 2-D");
  const auto strides = ints2(n.attrs, "strides");
  const int64_t pads[2] = {padH, padW};
  for (int i = 0; i < 2; ++i) {
    if (pads[i] >= kernel[i]) return unfit("Caffe pooling wants pad < kernel");
    if (caffePooledSize(n.inputs[0]->shape[2 + i], kernel[i], strides[i], pads[i]) != n.outputs[0].shape[2 + i])
      return unfit("Caffe's pooled size differs");
  }
  if (!out) return fit();
  auto& layer = addLayer(n, *out, "Pooling");
  auto* p = layer.mutable_pooling_param();
  p->set_pool(max ? nnfuzz::caffe::PoolingParameter::MAX : nnfuzz::caffe::PoolingParameter::AVE);
  p->set_kernel_h(static_cast<uint32_t>(kernel[0]));
  p->set_kernel_w(static_cast<uint32_t>(kernel[1]));
  p->set_stride_h(static_cast<uint32_t>(strides[0]));
  p->set_stride_w(static_cast<uint32_t>(strides[1]));
  if (padH || padW) {  // both, as published prototxts do (OpenCV 4 ignores a lone pad_h or pad_w)
    p->set_pad_h(static_cast<uint32_t>(padH));
    p->set_pad_w(static_cast<uint32_t>(padW));
  }
  return fit();
}

MapResult mapGlobalPool(const NodeView& n, Layers* out, bool max) {
  if (auto bad = spatial4d(n)) return bad;
  if (!out) return fit();
  auto* p = addLayer(n, *out, "Pooling").mutable_pooling_param();
  p->set_pool(max ? nnfuzz::caffe::PoolingParameter::MAX : nnfuzz::caffe::PoolingParameter::AVE);
  p->set_global_pooling(true);
  return fit();
}

MapResult mapLrn(const NodeView& n, Layers* out) {
  if (auto bad = spatial4d(n)) return bad;
  const int64_t size = n.attrs.getInt("size", 1);
  if (size % 2 == 0) return unfit("Caffe's LRN window is odd");
  if (!out) return fit();
  auto* p = addLayer(n, *out, "LRN").mutable_lrn_param();
  p->set_local_size(static_cast<uint32_t>(size));
  p->set_alpha(static_cast<float>(n.attrs.getFloat("alpha", 1e-4)));
  p->set_beta(static_cast<float>(n.attrs.getFloat("beta", 0.75)));
  p->set_k(static_cast<float>(n.attrs.getFloat("bias", 1.0)));
  return fit();
}

}  // namespace

bool convFamilyHas(std::string_view op) {
  return op == "Conv" || op == "ConvTranspose" || op == "MaxPool" || op == "AveragePool" ||
         op == "GlobalMaxPool" || op == "GlobalAveragePool" || op == "LRN";
}

MapResult mapConvFamily(const NodeView& n, Layers* out) {
  if (n.op == "Conv") return mapConv(n, out, false);
  if (n.op == "ConvTranspose") return mapConv(n, out, true);
  if (n.op == "MaxPool") return mapPool(n, out, true);
  if (n.op == "AveragePool") return mapPool(n, out, false);
  if (n.op == "GlobalMaxPool") return mapGlobalPool(n, out, true);
  if (n.op == "GlobalAveragePool") return mapGlobalPool(n, out, false);
  return mapLrn(n, out);
}

}  // namespace nnfuzz::caffe_export
