// compare.cpp - tolerance comparison of tensors (see compare.h).
#include "onnx/compare.h"

#include <cmath>

namespace nnfuzz {

CompareResult compareTensors(const Tensor& actual, const Tensor& expected, Tolerance tol) {
  CompareResult r;
  if (actual.type != expected.type) {
    r.ok = false;
    r.problem = "type " + toString(actual.type) + " differs from the expected " + toString(expected.type);
    return r;
  }
  if (actual.data.size() != expected.data.size()) {
    r.ok = false;
    r.problem = "holds " + std::to_string(actual.data.size()) + " values, expected " +
                std::to_string(expected.data.size());
    return r;
  }
  const bool exact = !isFloat(expected.type.dtype);
  int64_t first = -1;
  for (size_t i = 0; i < expected.data.size(); ++i) {
    const double a = actual.data[i], e = expected.data[i];
    bool good;
    if (std::isnan(e) || std::isnan(a)) {
      good = std::isnan(e) && std::isnan(a);
    } else if (std::isinf(e) || std::isinf(a)) {
      good = a == e;
    } else {
      const double diff = std::abs(a - e);
      r.maxAbsError = std::max(r.maxAbsError, diff);
      if (e != 0) r.maxRelError = std::max(r.maxRelError, diff / std::abs(e));
      good = exact ? a == e : diff <= tol.atol + tol.rtol * std::abs(e);
    }
    if (!good) {
      if (first < 0) first = static_cast<int64_t>(i);
      ++r.mismatches;
    }
  }
  if (r.mismatches) {
    const auto i = static_cast<size_t>(first);
    r.ok = false;
    r.problem = std::to_string(r.mismatches) + " of " + std::to_string(expected.data.size()) +
                " values differ (first at flat index " + std::to_string(first) + ": got " + formatValue(actual.data[i]) +
                ", expected " + formatValue(expected.data[i]) + "; max abs error " + formatValue(r.maxAbsError) +
                ", max rel error " + formatValue(r.maxRelError) + ")";
  }
  return r;
}

}  // namespace nnfuzz
