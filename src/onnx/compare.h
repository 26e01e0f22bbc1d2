// compare.h - comparing an actual tensor against an expected one.
//
// Floats pass when |actual - expected| <= atol + rtol * |expected| (numpy's allclose, as
// the ONNX backend tests use it), NaN only where NaN is expected and infinities only equal
// to themselves; integers and bools must be exact. dtype and shape must match first.
#pragma once

#include <cstdint>
#include <string>

#include "ir/tensor.h"

namespace nnfuzz {

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
};

struct CompareResult {
  bool ok = true;
  std::string problem;     ///< one line: the first reason it is not ok
  int64_t mismatches = 0;  ///< elements outside tolerance
  double maxAbsError = 0;  ///< over finite pairs
  double maxRelError = 0;  ///< |a - e| / |e| over finite pairs with e != 0
};

CompareResult compareTensors(const Tensor& actual, const Tensor& expected, Tolerance tol = {});

}  // namespace nnfuzz
