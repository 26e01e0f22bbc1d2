#include "interp/values.h"

#include <cmath>

namespace nnfuzz {

namespace {
double sampleOne(DType dtype, const ValueRange& r, Rng& rng) {
  if (dtype == DType::Bool) return rng.bernoulli(0.5) ? 1.0 : 0.0;
  for (int attempt = 0; attempt < 64; ++attempt) {
    double x = isFloat(dtype) ? rng.uniformReal(r.lo, r.hi)
                              : static_cast<double>(rng.uniformInt(static_cast<int64_t>(std::ceil(r.lo)),
                                                                   static_cast<int64_t>(std::floor(r.hi))));
    x = roundTo(dtype, x);
    if (std::abs(x) >= r.minMagnitude) return x;
  }
  // The range is (almost) all inside the forbidden band: take its far end.
  return roundTo(dtype, std::abs(r.hi) >= std::abs(r.lo) ? r.hi : r.lo);
}
}  // namespace

Tensor sampleTensor(const TensorType& type, const ValueRange& range, Rng& rng) {
  Tensor t(type);
  for (double& x : t.data) x = sampleOne(type.dtype, range, rng);
  return t;
}

bool inRange(const Tensor& t, const ValueRange& range) {
  if (t.type.dtype == DType::Bool) return true;
  for (double x : t.data)
    if (!(x >= range.lo && x <= range.hi) || std::abs(x) < range.minMagnitude) return false;
  return true;
}

}  // namespace nnfuzz
