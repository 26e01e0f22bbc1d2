// align.cpp - Cast / Reshape / Slice / Pad / Clip chains from one tensor type to another.
#include "gen/align.h"

#include <cmath>

#include "ops/common.h"

namespace nnfuzz {

namespace {

std::optional<ValueId> single(std::optional<std::vector<ValueId>> outs) {
  if (!outs || outs->empty()) return std::nullopt;
  return outs->front();
}

std::optional<ValueId> reshape(EvalBuilder& b, ValueId v, const Shape& shape) {
  if (b.typeOf(v).shape == shape) return v;
  return single(b.append("Reshape", {v, b.weight(int64Tensor(shape))}, {}));
}

std::optional<ValueId> castTo(EvalBuilder& b, ValueId v, DType dtype) {
  if (b.typeOf(v).dtype == dtype) return v;
  Attributes a;
  a.setInt("to", onnxElemType(dtype));
  return single(b.append("Cast", {v}, std::move(a)));
}

/// Same dtype, any shape -> `shape`.
std::optional<ValueId> reshapeAny(EvalBuilder& b, ValueId v, const Shape& shape) {
  const int64_t have = b.typeOf(v).numel();
  const int64_t want = TensorType{DType::Float32, shape}.numel();
  if (have == want) return reshape(b, v, shape);
  std::optional<ValueId> flat = reshape(b, v, {have});
  if (!flat) return std::nullopt;
  std::optional<ValueId> sized;
  if (have > want) {
    sized = single(b.append("Slice", {*flat, b.weight(int64Tensor({0})), b.weight(int64Tensor({want})),
                                      b.weight(int64Tensor({0}))}, {}));
  } else {
    sized = single(b.append("Pad", {*flat, b.weight(int64Tensor({0, want - have}))}, {}));
  }
  if (!sized) return std::nullopt;
  return reshape(b, *sized, shape);
}

/// Brings the contents into `r`: Clip for a range around zero, |x| + c clipped otherwise.
std::optional<ValueId> intoRange(EvalBuilder& b, ValueId v, const ValueRange& r) {
  const DType d = b.typeOf(v).dtype;
  const bool integral = isInteger(d);
  auto lower = [&](double x) { return integral ? std::ceil(x) : x; };
  auto upper = [&](double x) { return integral ? std::floor(x) : x; };
  if (r.lo < 0 && r.minMagnitude <= 0) {
    return single(b.append("Clip", {v, b.weight(scalarTensor(d, lower(r.lo))), b.weight(scalarTensor(d, upper(r.hi)))}, {}));
  }
  const double c = lower(std::max(r.lo, r.minMagnitude));
  const double hi = std::max(c, upper(r.hi));
  std::optional<ValueId> a = single(b.append("Abs", {v}, {}));
  if (!a) return std::nullopt;
  std::optional<ValueId> shifted = single(b.append("Add", {*a, b.weight(scalarTensor(d, c))}, {}));
  if (!shifted) return std::nullopt;
  return single(b.append("Clip", {*shifted, b.weight(scalarTensor(d, c)), b.weight(scalarTensor(d, hi))}, {}));
}

TensorType targetType(EvalBuilder& b, ValueId value, const OperandNeed& need, const Limits& limits, Rng& rng) {
  const TensorType& have = b.typeOf(value);
  if (need.accepts(have)) return have;
  for (DType d : limits.dtypes) {
    const TensorType t{d, have.shape};
    if (need.accepts(t)) return t;
  }
  return need.sample(rng);
}

}  // namespace

std::optional<ValueId> alignValue(EvalBuilder& b, ValueId value, const OperandNeed& need, const Limits& limits,
                                  Rng& rng) {
  const TensorType target = targetType(b, value, need, limits, rng);
  std::optional<ValueId> v = castTo(b, value, target.dtype);
  if (v) v = reshapeAny(b, *v, target.shape);
  if (!v) return std::nullopt;
  const ValueRange range = need.rangeOf(target.dtype);
  if (!b.pool().within(*v, range)) {
    if (!opsupport::contains(opsupport::kNumericTypes, target.dtype)) return std::nullopt;
    v = intoRange(b, *v, range);
    if (!v || !b.pool().within(*v, range)) return std::nullopt;
  }
  if (!need.accepts(b.typeOf(*v))) return std::nullopt;
  return v;
}

}  // namespace nnfuzz
