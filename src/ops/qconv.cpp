// qconv.cpp - ConvInteger (opset 10: int32 sums of (x - x_zero_point) * (w - w_zero_point))
// and QLinearConv (opset 10: those sums plus an int32 bias, scaled by
// x_scale * w_scale / y_scale, rounded half to even, plus y_zero_point, saturated), with
// Conv's geometry (group, strides, dilations, pads, auto_pad; conv_util.h).
//
// Scales, zero points and the bias are constants; w's scale and zero point are scalars or
// one per output channel. w is uint8 or int8 for a uint8 x and int8 for an int8 x. The
// requantization multiplier is formed in float32, and a result within a hair of .5 is
// unstable.
#include "ops/conv_util.h"
#include "ops/nn_util.h"
#include "ops/quant_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;
using namespace quantsupport;

namespace {

DType weightType(const OpDraft& d) {
  return d.first().dtype == DType::UInt8 && d.rng->bernoulli(0.4) ? DType::Int8 : d.first().dtype;
}

// Scalar, or one value per output channel (m) when perChannel.
Tensor perChannel(DType dtype, int64_t m, bool perChannel, const std::function<double()>& draw) {
  return filled(dtype, perChannel ? Shape{m} : Shape{}, draw);
}

std::string checkWeight(const TensorType& x, const TensorType* w) {
  if (!w) return "W is missing";
  if (!isQuantType(w->dtype) || (x.dtype == DType::Int8 && w->dtype != DType::Int8)) return "W has the wrong dtype";
  if (w->rank() != x.rank()) return "W must have X's rank";
  return "";
}

// A parameter: absent (when optional), of the dtype, a scalar or one element, or (perM) [m].
double at(const Tensor* t, int64_t i) {
  if (!t) return 0.0;
  return t->data.size() == 1 ? t->data[0] : t->data[static_cast<size_t>(i)];
}

const Tensor* operand(const KernelArgs& a, size_t k) { return k < a.inputs.size() ? a.inputs[k] : nullptr; }

std::initializer_list<std::string_view> kConvAttrs{"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"};

// ---- ConvInteger: 0 x, 1 w, 2 x_zero_point, 3 w_zero_point ----

InputPattern convIntegerOperand(const OpDraft& d) {
  Rng& rng = *d.rng;
  switch (d.inputTypes.size()) {
    case 1: {
      const DType wt = weightType(d);
      return convsupport::convWeight(d.first(), d.attrs, *d.limits, wt, fullRange(wt));
    }
    case 2:
      if (rng.bernoulli(0.3)) return InputPattern::omitted();
      return InputPattern::constantTensor(filled(d.first().dtype, {}, [&] { return sampleZeroPoint(rng, d.first().dtype); }));
    default: {
      if (rng.bernoulli(0.3)) return InputPattern::omitted();
      const TensorType& w = d.inputTypes[1];
      return InputPattern::constantTensor(perChannel(w.dtype, w.shape[0], rng.bernoulli(0.3), [&] { return sampleZeroPoint(rng, w.dtype); }));
    }
  }
}

InferResult inferConvInteger(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, kConvAttrs);
  if (!err.empty()) return InferResult::fail(err);
  const TensorType& x = *a.inputs[0];
  const TensorType* w = a.inputs.size() > 1 ? a.inputs[1] : nullptr;
  if (auto e = checkWeight(x, w); !e.empty()) return InferResult::fail(e);
  auto out = convsupport::convOutput(a.attrs, x.shape, w->shape, err);
  if (!out) return InferResult::fail(err);
  if (auto e = checkQuantParam(a, 2, x.dtype, 0, "x_zero_point"); !e.empty()) return InferResult::fail(e);
  if (auto e = checkQuantParam(a, 3, w->dtype, w->shape[0], "w_zero_point"); !e.empty()) return InferResult::fail(e);
  return {{TensorType{DType::Int32, *out}}, {}};
}

void convIntegerKernel(KernelArgs& a) {
  const Tensor* wzp = operand(a, 3);
  convsupport::convSums(*a.inputs[0], *a.inputs[1], a.attrs, at(operand(a, 2), 0), [wzp](int64_t oc) { return at(wzp, oc); },
                        a.outputs[0]);
}

// ---- QLinearConv: 0 x, 1 x_scale, 2 x_zero_point, 3 w, 4 w_scale, 5 w_zero_point,
//      6 y_scale, 7 y_zero_point, 8 B ----

InputPattern qlinearConvOperand(const OpDraft& d) {
  Rng& rng = *d.rng;
  const auto scale = [&] { return sampleScale(rng, 0.005, 0.05); };
  switch (d.inputTypes.size()) {
    case 1: return InputPattern::constantTensor(filled(DType::Float32, {}, scale));
    case 2: return InputPattern::constantTensor(filled(d.first().dtype, {}, [&] { return sampleZeroPoint(rng, d.first().dtype); }));
    case 3: {
      const DType wt = weightType(d);
      return convsupport::convWeight(d.first(), d.attrs, *d.limits, wt, fullRange(wt));
    }
    case 4: return InputPattern::constantTensor(perChannel(DType::Float32, d.inputTypes[3].shape[0], rng.bernoulli(0.4), scale));
    case 5: {
      // int8 weights are symmetric in practice (engines require a zero w_zero_point there).
      const DType wt = d.inputTypes[3].dtype;
      return InputPattern::constantTensor(filled(wt, d.inputTypes[4].shape, [&] { return wt == DType::Int8 ? 0.0 : sampleZeroPoint(rng, wt); }));
    }
    case 6: {
      // Products of (x - zp)(w - zp) summed over C/group * kernel taps: a y_scale putting
      // typical sums well inside the output range.
      double ws = 0;
      for (double v : d.constants[4]->data) ws = std::max(ws, v);
      const double xw = d.constants[1]->data[0] * ws;
      const double taps = static_cast<double>(d.inputTypes[3].numel() / d.inputTypes[3].shape[0]);
      return InputPattern::constantTensor(filled(DType::Float32, {}, [&] { return sampleScale(rng, xw * 20 * taps, xw * 400 * taps); }));
    }
    case 7: return InputPattern::constantTensor(filled(d.first().dtype, {}, [&] { return sampleZeroPoint(rng, d.first().dtype); }));
    default: {
      if (rng.bernoulli(0.4)) return InputPattern::omitted();
      return InputPattern::constantTensor(filled(DType::Int32, {d.inputTypes[3].shape[0]}, [&] { return static_cast<double>(rng.uniformInt(-2000, 2000)); }));
    }
  }
}

InferResult inferQLinearConv(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, kConvAttrs);
  if (!err.empty()) return InferResult::fail(err);
  for (size_t k = 1; k < 8; ++k)
    if (k >= a.inputs.size() || !a.inputs[k]) return InferResult::fail("operands 0..7 are required");
  const TensorType& x = *a.inputs[0];
  const TensorType& w = *a.inputs[3];
  if (auto e = checkWeight(x, &w); !e.empty()) return InferResult::fail(e);
  auto out = convsupport::convOutput(a.attrs, x.shape, w.shape, err);
  if (!out) return InferResult::fail(err);
  const int64_t m = w.shape[0];
  for (auto [k, dtype, perM, what] : {std::tuple{size_t{1}, DType::Float32, int64_t{0}, "x_scale"},
                                      std::tuple{size_t{2}, x.dtype, int64_t{0}, "x_zero_point"},
                                      std::tuple{size_t{4}, DType::Float32, m, "w_scale"},
                                      std::tuple{size_t{5}, w.dtype, m, "w_zero_point"},
                                      std::tuple{size_t{6}, DType::Float32, int64_t{0}, "y_scale"}})
    if (auto e = checkQuantParam(a, k, dtype, perM, what); !e.empty()) return InferResult::fail(e);
  for (size_t k : {1, 4, 6})
    if (const Tensor* c = a.constants[k])
      for (double v : c->data)
        if (!(v > 0)) return InferResult::fail("scales must be positive");
  const TensorType& yzp = *a.inputs[7];
  if (!isQuantType(yzp.dtype) || yzp.numel() != 1 || yzp.rank() > 1) return InferResult::fail("y_zero_point must be an int8/uint8 scalar");
  if (a.inputs.size() > 8 && a.inputs[8] && (a.inputs[8]->dtype != DType::Int32 || a.inputs[8]->shape != Shape{m}))
    return InferResult::fail("B must be int32 with one value per output channel");
  return {{TensorType{yzp.dtype, *out}}, {}};
}

// Calls f(flat output index, real result before rounding) for every result.
template <typename F>
void forEachQLinearConvResult(const KernelArgs& a, const TensorType& outType, F f) {
  Tensor sums(outType);
  const Tensor* wzp = operand(a, 5);
  convsupport::convSums(*a.inputs[0], *a.inputs[3], a.attrs, at(operand(a, 2), 0), [wzp](int64_t oc) { return at(wzp, oc); }, sums);
  const Tensor* bias = operand(a, 8);
  const int64_t m = outType.shape[1], inner = sums.numel() / std::max<int64_t>(1, outType.shape[0] * m);
  const auto xs = static_cast<float>(a.inputs[1]->data[0]), ys = static_cast<float>(a.inputs[6]->data[0]);
  for (size_t i = 0; i < sums.data.size(); ++i) {
    const int64_t oc = (static_cast<int64_t>(i) / inner) % m;
    const double multiplier = xs * static_cast<float>(at(a.inputs[4], oc)) / ys;  // in float32, as engines form it
    f(i, (sums.data[i] + at(bias, oc)) * multiplier);
  }
}

void qlinearConvKernel(KernelArgs& a) {
  Tensor& y = a.outputs[0];
  const double zp = a.inputs[7]->data[0];
  forEachQLinearConvResult(a, y.type, [&](size_t i, double real) { y.data[i] = requantize(static_cast<float>(real), zp, y.type.dtype); });
}

bool qlinearConvUnstable(const KernelArgs& a) {
  const DType to = a.inputs[7]->type.dtype;
  bool unstable = false;
  forEachQLinearConvResult(a, a.outputs[0].type,
                           [&](size_t, double real) { unstable = unstable || nearRoundingBoundary(real, a.inputs[7]->data[0], to); });
  return unstable;
}

OpSpec qconvSpec(std::string_view name, int minInputs, int maxInputs, uint32_t constants) {
  OpSpec t;
  t.name = name;
  t.sinceVersion = 10;
  t.minInputs = minInputs;
  t.maxInputs = maxInputs;
  t.dtypes = kQuantTypes;
  t.minRank = 3;
  t.maxRank = 5;
  t.constantInputs = constants;
  t.firstRange = fullRange;
  t.attrs = {autoPadDomain(),
             intsAttr("dilations", 1, 3, 1, 3),
             intAttr("group", 1, 4),
             intsAttr("kernel_shape", 1, 5, 1, 3),
             intsAttr("pads", 0, 3, 2, 6),
             intsAttr("strides", 1, 3, 1, 3)};
  t.sampleAttrs = convsupport::sampleConvAttrs;
  return t;
}


// Each result element sums over one filter (C/group x kernel) of operand `w`.
template <int W>
double filterWork(const WorkArgs& a) {
  const TensorType& w = *a.inputs[W];
  return elementCount(a.outputs[0]) * elementCount(w) / static_cast<double>(std::max<int64_t>(w.shape[0], 1));
}

}  // namespace

const OpSpec& opConvInteger() {
  static const OpSpec s = [] {
    OpSpec t = qconvSpec("ConvInteger", 2, 4, 0b1100);
    t.nextInput = convIntegerOperand;
    t.infer = inferConvInteger;
    t.reference = convIntegerKernel;
    t.work = filterWork<1>;
    return t;
  }();
  return s;
}

const OpSpec& opQLinearConv() {
  static const OpSpec s = [] {
    OpSpec t = qconvSpec("QLinearConv", 8, 9, 0b111110110);
    t.nextInput = qlinearConvOperand;
    t.infer = inferQLinearConv;
    t.reference = qlinearConvKernel;
    t.work = filterWork<3>;
    t.unstable = qlinearConvUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
