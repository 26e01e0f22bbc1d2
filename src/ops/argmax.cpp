// argmax.cpp - ArgMax and ArgMin (opset 13 schemas): int64 index of the largest/smallest
// element along `axis` (default 0), keepdims (default 1), and select_last_index choosing
// the last rather than the first of tied elements.
//
// A float line whose two best values differ by a hair, or tie, is unstable: float32 rounding
// upstream could swap them or break the tie (InstanceNormalization over one element gives
// exactly its bias in double, and bias plus a few ulps in a SUT). Integer ties are exact, so
// there select_last_index decides and the result is stable.
#include <cmath>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

InferResult inferArg(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"axis", "keepdims", "select_last_index"});
  int64_t axis = 0, keep = 1, last = 0;
  if (!err.empty() || !readInt(a.attrs, "axis", INT64_MIN, INT64_MAX, 0, axis, err) ||
      !readInt(a.attrs, "keepdims", 0, 1, 1, keep, err) || !readInt(a.attrs, "select_last_index", 0, 1, 0, last, err))
    return InferResult::fail(err);
  const TensorType& x = *a.inputs[0];
  auto ax = normalizeAxis(axis, x.rank());
  if (!ax) return InferResult::fail("axis out of range");
  Shape out = x.shape;
  if (keep)
    out[static_cast<size_t>(*ax)] = 1;
  else
    out.erase(out.begin() + *ax);
  return {{TensorType{DType::Int64, out}}, {}};
}

void sampleArgAttrs(OpDraft& d) {
  Rng& rng = *d.rng;
  const int rank = d.first().rank();
  if (rng.bernoulli(0.7)) d.attrs.setInt("axis", rng.uniformInt(-rank, rank - 1));
  if (rng.bernoulli(0.6)) d.attrs.setInt("keepdims", rng.uniformInt(0, 1));
  if (rng.bernoulli(0.6)) d.attrs.setInt("select_last_index", rng.uniformInt(0, 1));
}

// Calls f(line start, stride, length, output index) for every line along the axis.
template <typename F>
void forEachArgLine(const Tensor& x, const Attributes& attrs, F f) {
  const auto axis = static_cast<size_t>(*normalizeAxis(attrs.getInt("axis", 0), x.type.rank()));
  forEachLine(x.type.shape, axis, [&](int64_t start, int64_t stride, int64_t len, int64_t line) {
    f(x.data.data() + start, stride, len, line);
  });
}

template <bool Max>
void argKernel(KernelArgs& a) {
  const bool last = a.attrs.getInt("select_last_index", 0) == 1;
  Tensor& y = a.outputs[0];
  forEachArgLine(*a.inputs[0], a.attrs, [&](const double* p, int64_t stride, int64_t len, int64_t out) {
    int64_t best = 0;
    for (int64_t j = 1; j < len; ++j) {
      const double v = p[j * stride], b = p[best * stride];
      if (Max ? (v > b || (last && v == b)) : (v < b || (last && v == b))) best = j;
    }
    y.data[static_cast<size_t>(out)] = static_cast<double>(best);
  });
}

template <bool Max>
bool argUnstable(const KernelArgs& a) {
  if (!isFloat(a.inputs[0]->type.dtype)) return false;
  bool unstable = false;
  forEachArgLine(*a.inputs[0], a.attrs, [&](const double* p, int64_t stride, int64_t len, int64_t) {
    if (nearBestCount(p, stride, len, Max) > 1) unstable = true;
  });
  return unstable;
}

template <bool Max>
OpSpec argSpec(std::string_view name) {
  OpSpec s;
  s.name = name;
  s.sinceVersion = 13;
  s.dtypes = {DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Int8, DType::UInt8};
  s.minRank = 1;
  s.maxRank = 5;
  s.attrs = {intAttr("axis", -5, 4), intAttr("keepdims", 0, 1), intAttr("select_last_index", 0, 1)};
  s.sampleAttrs = sampleArgAttrs;
  s.infer = inferArg;
  s.reference = argKernel<Max>;
  s.unstable = argUnstable<Max>;
  return s;
}

}  // namespace

const OpSpec& opArgMax() {
  static const OpSpec s = argSpec<true>("ArgMax");
  return s;
}
const OpSpec& opArgMin() {
  static const OpSpec s = argSpec<false>("ArgMin");
  return s;
}

}  // namespace nnfuzz
