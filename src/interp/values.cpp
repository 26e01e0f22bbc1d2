#include "interp/values.h"

#include <algorithm>
#include <cmath>
#include <vector>

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
bool allowed(const ValueRange& r, double x) { return x >= r.lo && x <= r.hi && std::abs(x) >= r.minMagnitude; }

/// Smallest magnitude a wide tensor draws, relative to the range's largest.
constexpr double kWidestRatio = 1.0 / 16384;

/// The magnitudes a wide tensor draws from, log-uniformly: [e^logBottom, e^logTop].
struct WideBand {
  bool usable = false;  // false: the range is too narrow, sample it uniformly
  double logBottom = 0, logTop = 0;
  explicit WideBand(const ValueRange& r) {
    const double top = std::max(std::abs(r.lo), std::abs(r.hi));
    const double bottom = std::max(r.minMagnitude, top * kWidestRatio);
    usable = top > 0 && !(bottom >= top);
    if (usable) {
      logBottom = std::log(bottom);
      logTop = std::log(top);
    }
  }
};

double sampleWide(DType dtype, const ValueRange& r, const WideBand& band, Rng& rng) {
  if (!band.usable) return sampleOne(dtype, r, rng);
  for (int attempt = 0; attempt < 64; ++attempt) {
    const double magnitude = std::exp(rng.uniformReal(band.logBottom, band.logTop));
    const double x = roundTo(dtype, rng.bernoulli(0.5) ? magnitude : -magnitude);
    if (allowed(r, x)) return x;
  }
  return sampleOne(dtype, r, rng);
}

/// The special values `r` allows in `dtype` (no integer -0).
std::vector<double> specialValues(DType dtype, const ValueRange& r) {
  std::vector<double> usable;
  for (double candidate : {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, r.lo, r.hi}) {
    const double x = roundTo(dtype, candidate);
    if (allowed(r, x) && (isFloat(dtype) || !(x == 0 && std::signbit(x)))) usable.push_back(x);
  }
  return usable;
}

double sampleSpecial(DType dtype, const ValueRange& r, const std::vector<double>& usable, Rng& rng) {
  if (rng.bernoulli(0.5) || usable.empty()) return sampleOne(dtype, r, rng);
  return usable[static_cast<size_t>(rng.uniformInt(0, static_cast<int64_t>(usable.size()) - 1))];
}

double sampleIntegral(DType dtype, const ValueRange& r, Rng& rng) {
  for (int attempt = 0; attempt < 64; ++attempt) {
    const double x = std::nearbyint(sampleOne(dtype, r, rng));
    if (allowed(r, x)) return x;
  }
  return sampleOne(dtype, r, rng);
}

}  // namespace

Tensor sampleTensor(const TensorType& type, const ValueRange& range, Rng& rng) {
  Tensor t(type);
  for (double& x : t.data) x = sampleOne(type.dtype, range, rng);
  return t;
}

Tensor sampleTensor(const TensorType& type, const ValueRange& range, Rng& rng, const ValueMix& mix) {
  if (type.dtype == DType::Bool || (mix.wide == 0 && mix.special == 0 && mix.integral == 0))
    return sampleTensor(type, range, rng);
  const double odds[] = {mix.narrow, mix.wide, mix.special, mix.integral};
  const size_t kind = rng.weighted(odds);
  const std::vector<double> specials = kind == 2 ? specialValues(type.dtype, range) : std::vector<double>{};
  const WideBand band(range);
  Tensor t(type);
  for (double& x : t.data) {
    switch (kind) {
      case 1: x = sampleWide(type.dtype, range, band, rng); break;
      case 2: x = sampleSpecial(type.dtype, range, specials, rng); break;
      case 3: x = sampleIntegral(type.dtype, range, rng); break;
      default: x = sampleOne(type.dtype, range, rng); break;
    }
  }
  return t;
}

bool inRange(const Tensor& t, const ValueRange& range) {
  if (t.type.dtype == DType::Bool) return true;
  for (double x : t.data)
    if (!(x >= range.lo && x <= range.hi) || std::abs(x) < range.minMagnitude) return false;
  return true;
}

}  // namespace nnfuzz
