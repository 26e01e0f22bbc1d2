// window.cpp - HannWindow, HammingWindow and BlackmanWindow (opset 17): a 1-D window of
// `size` samples (a scalar int32/int64 constant, so the result shape is static), periodic
// (default 1: the denominator is size) or symmetric (periodic = 0: size - 1), in the float
// type output_datatype names (default float32).
//
// w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N) with (a0, a1, a2) = (1/2, 1/2, 0) for
// Hann, (25/46, 21/46, 0) for Hamming (ONNX's exact constants, not 0.54/0.46) and
// (0.42, 0.5, 0.08) for Blackman. Integer output types are rejected: they truncate values of
// [0, 1], so a symmetric window's peak (exactly 1 in double, a hair below in float32) could
// land either side of 1. A symmetric window of one sample divides by zero and is rejected.
#include <cmath>
#include <numbers>

#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

struct Cosines {
  double a0, a1, a2;
};

Tensor sampleSize(Rng& rng, const Limits& limits) {
  const DType dtype = rng.bernoulli(0.3) ? DType::Int32 : DType::Int64;
  return Tensor(TensorType{dtype, {}}, {static_cast<double>(rng.uniformInt(2, shapeops::maxResultDim(limits)))});
}

void sampleWindowAttrs(OpDraft& d) {
  if (d.rng->bernoulli(0.5)) d.attrs.setInt("periodic", d.rng->uniformInt(0, 1));
  if (d.rng->bernoulli(0.4)) d.attrs.setInt("output_datatype", onnxElemType(d.rng->bernoulli(0.5) ? DType::Float32 : DType::Float64));
}

InferResult inferWindow(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"output_datatype", "periodic"});
  int64_t periodic = 1, elemType = 1;
  if (!err.empty() || !readInt(a.attrs, "periodic", 0, 1, 1, periodic, err) ||
      !readInt(a.attrs, "output_datatype", INT64_MIN, INT64_MAX, 1, elemType, err))
    return InferResult::fail(err);
  const auto dtype = dtypeFromOnnx(static_cast<int>(elemType));
  if (!dtype || !isFloat(*dtype)) return InferResult::fail("output_datatype must be float or double (integer windows truncate values of [0, 1])");
  if (!a.constants[0]) return InferResult::fail("size must be a constant");
  const int64_t size = shapeops::saturatingInt(a.constants[0]->data[0]);
  if (size < 1 || size > (int64_t{1} << 24)) return InferResult::fail("size must be in [1, 2^24]");
  if (size == 1 && periodic == 0) return InferResult::fail("a symmetric window of one sample divides by zero");
  return {{TensorType{*dtype, {size}}}, {}};
}

template <Cosines C>
void windowKernel(KernelArgs& a) {
  const auto size = static_cast<int64_t>(a.outputs[0].data.size());
  const double n = static_cast<double>(a.attrs.getInt("periodic", 1) == 1 ? size : size - 1);
  for (int64_t i = 0; i < size; ++i) {
    const double phase = 2 * std::numbers::pi * static_cast<double>(i) / n;
    a.outputs[0].data[static_cast<size_t>(i)] = C.a0 - C.a1 * std::cos(phase) + C.a2 * std::cos(2 * phase);
  }
}

template <Cosines C>
OpSpec windowSpec(std::string_view name) {
  OpSpec t;
  t.name = name;
  t.sinceVersion = 17;
  t.dtypes = {DType::Int32, DType::Int64};
  t.minRank = t.maxRank = 0;
  t.constantInputs = 0b1;
  t.attrs = {intAttr("periodic", 0, 1), intAttr("output_datatype", 1, 11)};
  t.sampleConstantFirst = sampleSize;
  t.sampleAttrs = sampleWindowAttrs;
  t.infer = inferWindow;
  t.reference = windowKernel<C>;
  return t;
}

}  // namespace

const OpSpec& opHannWindow() {
  static const OpSpec s = windowSpec<Cosines{0.5, 0.5, 0.0}>("HannWindow");
  return s;
}

const OpSpec& opHammingWindow() {
  static const OpSpec s = windowSpec<Cosines{25.0 / 46.0, 21.0 / 46.0, 0.0}>("HammingWindow");
  return s;
}

const OpSpec& opBlackmanWindow() {
  static const OpSpec s = windowSpec<Cosines{0.42, 0.5, 0.08}>("BlackmanWindow");
  return s;
}

}  // namespace nnfuzz
