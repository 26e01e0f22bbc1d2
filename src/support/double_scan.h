// double_scan.h - the passes over a tensor's elements that generation runs per value: the
// pool's range summary, the finiteness guard and float32 rounding. Two lanes at a time with SSE2 where
// the target has it (x86-64 always does); the scalar loops below say what they compute.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace nnfuzz {

/// Smallest, largest and smallest magnitude of the elements, as std::min/std::max folds
/// from the first element: a NaN first element gives NaNs, any other NaN is skipped. The
/// sign of a zero result is unspecified (the folds may pair elements in another order).
struct DoubleSummary {
  double min = 0, max = 0, minAbs = 0;
};

inline DoubleSummary summarizeDoubles(std::span<const double> x) {
  DoubleSummary s;
  if (x.empty()) return s;
  s.min = s.max = x[0];
  s.minAbs = std::abs(x[0]);
  size_t i = 1;
#if defined(__SSE2__)
  // minpd(a, b) is a < b ? a : b per lane, as std::min(b, a): a NaN element never wins,
  // and lanes that start at a NaN stay NaN.
  const __m128d signless = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
  __m128d lo = _mm_set1_pd(s.min), hi = lo, mag = _mm_set1_pd(s.minAbs);
  for (; i + 2 <= x.size(); i += 2) {
    const __m128d v = _mm_loadu_pd(&x[i]);
    lo = _mm_min_pd(v, lo);
    hi = _mm_max_pd(v, hi);
    mag = _mm_min_pd(_mm_and_pd(v, signless), mag);
  }
  const auto fold = [](__m128d lanes, auto pick) { return pick(_mm_cvtsd_f64(lanes), _mm_cvtsd_f64(_mm_unpackhi_pd(lanes, lanes))); };
  const auto less = [](double a, double b) { return std::min(a, b); };
  s.min = fold(lo, less);
  s.max = fold(hi, [](double a, double b) { return std::max(a, b); });
  s.minAbs = fold(mag, less);
#endif
  for (; i < x.size(); ++i) {
    s.min = std::min(s.min, x[i]);
    s.max = std::max(s.max, x[i]);
    s.minAbs = std::min(s.minAbs, std::abs(x[i]));
  }
  return s;
}

/// True when every element's magnitude is at most `bound` (NaN never is).
inline bool allWithinMagnitude(std::span<const double> x, double bound) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128d signless = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
  const __m128d limit = _mm_set1_pd(bound);
  for (; i + 4 <= x.size(); i += 4) {
    const __m128d a = _mm_cmple_pd(_mm_and_pd(_mm_loadu_pd(&x[i]), signless), limit);
    const __m128d b = _mm_cmple_pd(_mm_and_pd(_mm_loadu_pd(&x[i + 2]), signless), limit);
    if (_mm_movemask_pd(_mm_and_pd(a, b)) != 3) return false;
  }
#endif
  for (; i < x.size(); ++i)
    if (!(std::abs(x[i]) <= bound)) return false;
  return true;
}

/// Rounds every element to float32's nearest, as static_cast<float> does one at a time.
inline void roundEachToFloat32(std::span<double> x) {
  size_t i = 0;
#if defined(__SSE2__)
  for (; i + 2 <= x.size(); i += 2) _mm_storeu_pd(&x[i], _mm_cvtps_pd(_mm_cvtpd_ps(_mm_loadu_pd(&x[i]))));
#endif
  for (; i < x.size(); ++i) x[i] = static_cast<double>(static_cast<float>(x[i]));
}

}  // namespace nnfuzz
