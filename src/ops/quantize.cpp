// quantize.cpp - QuantizeLinear and DequantizeLinear (opset 13: per-tensor with scalar
// scale and zero point, or per-axis with 1-D ones along `axis`, default 1) and
// DynamicQuantizeLinear (opset 11: uint8 with scale and zero point computed from the data).
//
// Integer semantics are exact: x / scale is rounded half to even, the zero point added,
// the result saturated to int8/uint8; dequantization is (x - zero point) * scale. Scales
// and zero points are constants (as in every deployed QDQ model). An input whose x / scale
// sits within a hair of .5 is unstable: engines compute it in float32 and may round it
// the other way. DynamicQuantizeLinear computes its scale in float32 as the schema's
// engines do, and is unstable when its zero point or any element lands near .5.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/nn_util.h"
#include "ops/quant_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;
using namespace quantsupport;

namespace {

// The axis of a per-axis operation (scale is 1-D), or nullopt for per-tensor.
std::optional<size_t> perAxis(const Attributes& attrs, const TensorType& x, const TensorType& scale) {
  if (scale.rank() == 0) return std::nullopt;
  return static_cast<size_t>(*normalizeAxis(attrs.getInt("axis", 1), x.rank()));
}

// Checks scale (operand 1) and zero point (operand 2, optional) against x and the axis.
std::string checkParams(const InferArgs& a, std::optional<DType> zeroType) {
  int64_t axis = 1;
  std::string err = unknownAttr(a.attrs, {"axis"});
  if (!err.empty() || !readInt(a.attrs, "axis", INT64_MIN, INT64_MAX, 1, axis, err)) return err;
  const TensorType& x = *a.inputs[0];
  if (a.inputs.size() < 2 || !a.inputs[1]) return "the scale is missing";
  const TensorType& scale = *a.inputs[1];
  if (scale.dtype != DType::Float32) return "the scale must be float32";
  if (scale.rank() > 1) return "the scale must be a scalar or 1-D";
  if (scale.rank() == 1) {
    auto ax = normalizeAxis(axis, x.rank());
    if (!ax) return "axis out of range";
    if (scale.shape[0] != x.shape[static_cast<size_t>(*ax)]) return "a per-axis scale needs one value per slice";
  }
  if (const Tensor* c = a.constants[1])
    for (double s : c->data)
      if (!(s > 0)) return "scales must be positive";
  if (a.inputs.size() > 2 && a.inputs[2]) {
    const TensorType& zp = *a.inputs[2];
    if (!isQuantType(zp.dtype) || (zeroType && zp.dtype != *zeroType)) return "the zero point has the wrong dtype";
    if (zp.shape != scale.shape) return "the zero point must have the scale's shape";
  }
  return "";
}

void sampleAxis(OpDraft& d) {
  const int r = d.first().rank();
  // The default axis 1 only exists from rank 2; per-tensor ignores it.
  if (r >= 1 && (r < 2 || d.rng->bernoulli(0.6))) d.attrs.setInt("axis", d.rng->uniformInt(-r, r - 1));
}

// Scale, then zero point: per-axis (1-D along the axis) now and then.
InputPattern paramOperand(const OpDraft& d, DType zeroType, double scaleLo, double scaleHi) {
  Rng& rng = *d.rng;
  const TensorType& x = d.first();
  if (d.inputTypes.size() == 1) {
    Shape shape;
    if (x.rank() >= 1 && rng.bernoulli(0.35)) shape = {x.shape[static_cast<size_t>(*normalizeAxis(d.attrs.getInt("axis", 1), x.rank()))]};
    return InputPattern::constantTensor(filled(DType::Float32, shape, [&] { return sampleScale(rng, scaleLo, scaleHi); }));
  }
  if (rng.bernoulli(0.2)) return InputPattern::omitted();
  return InputPattern::constantTensor(filled(zeroType, d.inputTypes[1].shape, [&] { return sampleZeroPoint(rng, zeroType); }));
}

// Calls f(element, scale, zero point) for every element of x.
template <typename F>
void forEachQuantized(const KernelArgs& a, F f) {
  const Tensor& x = *a.inputs[0];
  const Tensor& scale = *a.inputs[1];
  const Tensor* zp = a.inputs.size() > 2 ? a.inputs[2] : nullptr;
  const auto axis = perAxis(a.attrs, x.type, scale.type);
  const int64_t inner = axis ? product(x.type.shape, *axis + 1) : 1;
  const int64_t n = axis ? x.type.shape[*axis] : 1;
  for (size_t i = 0; i < x.data.size(); ++i) {
    const auto k = static_cast<size_t>(axis ? (static_cast<int64_t>(i) / inner) % n : 0);
    f(i, scale.data[k], zp ? zp->data[k] : 0.0);
  }
}

// ---- QuantizeLinear ----

// x / scale as the schema's float32 arithmetic gives it: an exact .5 there (which double
// division can miss by an ulp) rounds to even. Such inputs are unstable anyway; this keeps
// the reference equal to ONNX's own on them.
double float32Quotient(double x, double scale) { return static_cast<float>(x) / static_cast<float>(scale); }

DType quantizedType(const InferArgs& a) { return a.inputs.size() > 2 && a.inputs[2] ? a.inputs[2]->dtype : DType::UInt8; }

InputPattern quantizeOperand(const OpDraft& d) {
  // The zero point's dtype is the result's: drawn here (uint8 when it is left out).
  const DType zeroType = d.rng->bernoulli(0.5) ? DType::Int8 : DType::UInt8;
  return paramOperand(d, zeroType, 0.004, 0.05);
}

InferResult inferQuantize(const InferArgs& a) {
  if (auto e = checkParams(a, std::nullopt); !e.empty()) return InferResult::fail(e);
  return {{TensorType{quantizedType(a), a.inputs[0]->shape}}, {}};
}

void quantizeKernel(KernelArgs& a) {
  const DType to = a.outputs[0].type.dtype;
  forEachQuantized(a, [&](size_t i, double scale, double zp) {
    a.outputs[0].data[i] = requantize(float32Quotient(a.inputs[0]->data[i], scale), zp, to);
  });
}

bool quantizeUnstable(const KernelArgs& a) {
  const DType to = a.inputs.size() > 2 && a.inputs[2] ? a.inputs[2]->type.dtype : DType::UInt8;
  bool unstable = false;
  forEachQuantized(a, [&](size_t i, double scale, double zp) {
    if (nearRoundingBoundary(a.inputs[0]->data[i] / scale, zp, to)) unstable = true;
  });
  return unstable;
}

// ---- DequantizeLinear ----

InputPattern dequantizeOperand(const OpDraft& d) { return paramOperand(d, d.first().dtype, 0.004, 0.05); }

InferResult inferDequantize(const InferArgs& a) {
  if (auto e = checkParams(a, a.inputs[0]->dtype); !e.empty()) return InferResult::fail(e);
  return {{TensorType{DType::Float32, a.inputs[0]->shape}}, {}};
}

void dequantizeKernel(KernelArgs& a) {
  forEachQuantized(a, [&](size_t i, double scale, double zp) { a.outputs[0].data[i] = (a.inputs[0]->data[i] - zp) * scale; });
}

// ---- DynamicQuantizeLinear ----

struct DynamicParams {
  float scale = 1.0f;
  double zeroPoint = 0, rawZeroPoint = 0;
  double range = 0;  ///< max(0, x) - min(0, x), exact
};

// As the schema: the range [min(0, x), max(0, x)] over 255 steps, in float32.
DynamicParams dynamicParams(const Tensor& x) {
  double lo = 0, hi = 0;
  for (double v : x.data) lo = std::min(lo, v), hi = std::max(hi, v);
  DynamicParams p;
  p.range = hi - lo;
  p.scale = (static_cast<float>(hi) - static_cast<float>(lo)) / 255.0f;
  if (p.scale == 0) p.scale = 1.0f;  // all zeros: any scale quantizes them to the zero point 0
  p.rawZeroPoint = -static_cast<double>(static_cast<float>(lo) / p.scale);
  p.zeroPoint = std::clamp(std::nearbyint(p.rawZeroPoint), 0.0, 255.0);
  return p;
}

InferResult inferDynamic(const InferArgs& a) {
  if (std::string err = unknownAttr(a.attrs, {}); !err.empty()) return InferResult::fail(err);
  return {{TensorType{DType::UInt8, a.inputs[0]->shape}, TensorType{DType::Float32, {}}, TensorType{DType::UInt8, {}}}, {}};
}

void dynamicKernel(KernelArgs& a) {
  const DynamicParams p = dynamicParams(*a.inputs[0]);
  for (size_t i = 0; i < a.inputs[0]->data.size(); ++i)
    a.outputs[0].data[i] = requantize(float32Quotient(a.inputs[0]->data[i], p.scale), p.zeroPoint, DType::UInt8);
  a.outputs[1].data[0] = p.scale;
  a.outputs[2].data[0] = p.zeroPoint;
}

bool dynamicUnstable(const KernelArgs& a) {
  const DynamicParams p = dynamicParams(*a.inputs[0]);
  // An all-zero input has range 0: ONNX's y_scale = 0 / 255 leaves y = x / 0 undefined, and
  // engines differ (OpenVINO scale 0, ONNX Runtime 1, onnx's reference 1/255).
  if (p.range == 0) return true;
  // The scale follows the input's range: a range of a few ulps (a window's 0 that is -1e-17
  // here and 1e-8 in a SUT) decides the zero point by noise, unless the values are exact.
  if (!a.inputs[0]->exact && p.scale * 255 < kStabilityMargin) return true;
  // A range of denormals (1.8e-44) gives a float32 scale of 0 or a denormal: x / scale is
  // then inf or NaN in float32 (ONNX Runtime's zero point came out 255, ours 0).
  if (p.range / 255 < static_cast<double>(std::numeric_limits<float>::min())) return true;
  if (distanceToInteger(p.rawZeroPoint - 0.5) < kStabilityMargin) return true;
  // The quotient the kernel rounds (float32, as engines compute it): ONNX Runtime was seen
  // to agree with it on every stable case of 20000 random tensors, quarter-grid ones included.
  for (double v : a.inputs[0]->data)
    if (nearRoundingBoundary(float32Quotient(v, p.scale), p.zeroPoint, DType::UInt8)) return true;
  return false;
}

OpSpec quantSpec(std::string_view name, std::vector<DType> dtypes, InputPattern (*next)(const OpDraft&),
                 InferResult (*infer)(const InferArgs&), void (*kernel)(KernelArgs&)) {
  OpSpec t;
  t.name = name;
  t.sinceVersion = 13;
  t.minInputs = 2;
  t.maxInputs = 3;
  t.dtypes = std::move(dtypes);
  t.constantInputs = 0b110;
  t.attrs = {intAttr("axis", -5, 4)};
  t.sampleAttrs = sampleAxis;
  t.nextInput = next;
  t.infer = infer;
  t.reference = kernel;
  return t;
}

}  // namespace

const OpSpec& opQuantizeLinear() {
  static const OpSpec s = [] {
    OpSpec t = quantSpec("QuantizeLinear", {DType::Float32}, quantizeOperand, inferQuantize, quantizeKernel);
    t.unstable = quantizeUnstable;
    return t;
  }();
  return s;
}

const OpSpec& opDequantizeLinear() {
  static const OpSpec s = [] {
    OpSpec t = quantSpec("DequantizeLinear", {DType::Int8, DType::UInt8}, dequantizeOperand, inferDequantize, dequantizeKernel);
    t.firstRange = fullRange;
    return t;
  }();
  return s;
}

const OpSpec& opDynamicQuantizeLinear() {
  static const OpSpec s = [] {
    OpSpec t = unarySpec("DynamicQuantizeLinear", 11, {DType::Float32}, dynamicKernel);
    t.infer = inferDynamic;
    t.unstable = dynamicUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
