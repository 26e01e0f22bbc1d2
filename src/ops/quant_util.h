// quant_util.h - helpers shared by the quantization operators (quantize.cpp, qmatmul.cpp,
// qconv.cpp): the int8/uint8 ranges, ONNX's requantization (round half to even, then
// saturate), scale and zero-point constants, and the stability check of a rounding.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ops/common.h"

namespace nnfuzz::quantsupport {

using namespace opsupport;

inline bool isQuantType(DType d) { return d == DType::Int8 || d == DType::UInt8; }
inline double qmin(DType d) { return d == DType::Int8 ? -128.0 : 0.0; }
inline double qmax(DType d) { return d == DType::Int8 ? 127.0 : 255.0; }

/// The full range of a quantized type: quantized data uses all of it.
inline ValueRange fullRange(DType d) { return {qmin(d), qmax(d), 0.0}; }

/// The dtypes of quantized data.
inline const std::vector<DType> kQuantTypes{DType::UInt8, DType::Int8};

/// An error when quantization parameter k (scale or zero point) is present with another
/// dtype, or is not a scalar, [1] or (perLen > 0) one per row/channel [perLen]; "" if fine.
inline std::string checkQuantParam(const InferArgs& a, size_t k, DType dtype, int64_t perLen, const char* what) {
  if (k >= a.inputs.size() || !a.inputs[k]) return "";
  const TensorType& t = *a.inputs[k];
  if (t.dtype != dtype) return std::string(what) + " has the wrong dtype";
  if (!(t.rank() == 0 || t.shape == Shape{1} || (perLen > 0 && t.shape == Shape{perLen})))
    return std::string(what) + " has the wrong shape";
  return "";
}

/// saturate(round_half_to_even(x) + zeroPoint) into the range of `to`.
inline double requantize(double x, double zeroPoint, DType to) {
  return std::clamp(std::nearbyint(x) + zeroPoint, qmin(to), qmax(to));  // FE_TONEAREST: ties to even
}

/// True when x sits within a hair of a rounding boundary (a half-integer) that
/// requantization could fall either side of under float32 arithmetic. Values that
/// saturate either way do not count.
inline bool nearRoundingBoundary(double x, double zeroPoint, DType to) {
  if (distanceToInteger(x - 0.5) >= kStabilityMargin) return false;
  return std::floor(x) + zeroPoint < qmax(to) && std::ceil(x) + zeroPoint > qmin(to);
}

/// A positive float32 scale drawn log-uniformly from [lo, hi].
inline double sampleScale(Rng& rng, double lo, double hi) {
  return static_cast<double>(static_cast<float>(std::exp(rng.uniformReal(std::log(lo), std::log(hi)))));
}

/// A zero point of `dtype`: 0 now and then, else near the middle of the range.
inline double sampleZeroPoint(Rng& rng, DType dtype) {
  if (rng.bernoulli(0.25)) return 0.0;
  const double mid = dtype == DType::Int8 ? 0.0 : 128.0;
  return mid + static_cast<double>(rng.uniformInt(-30, 30));
}

/// A tensor of `shape` filled by f().
template <typename F>
Tensor filled(DType dtype, Shape shape, F f) {
  Tensor t(TensorType{dtype, std::move(shape)});
  for (double& v : t.data) v = f();
  return t;
}

}  // namespace nnfuzz::quantsupport
