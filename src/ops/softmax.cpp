// softmax.cpp - Softmax, LogSoftmax and Hardmax (opset 13 schemas) along one axis
// (default -1). Softmax and LogSoftmax are computed with the maximum subtracted so large
// inputs stay finite. Hardmax is 1 at the first largest element of each line and 0
// elsewhere; like ArgMax it is unstable when a line's two best values tie or nearly do.
#include <algorithm>
#include <cmath>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

InferResult inferSoftmax(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"axis"});
  int64_t axis = -1;
  if (!err.empty() || !readInt(a.attrs, "axis", INT64_MIN, INT64_MAX, -1, axis, err)) return InferResult::fail(err);
  if (!normalizeAxis(axis, a.inputs[0]->rank())) return InferResult::fail("axis out of range");
  return {{*a.inputs[0]}, {}};
}

void sampleSoftmaxAttrs(OpDraft& d) {
  const int rank = d.first().rank();
  if (d.rng->bernoulli(0.7)) d.attrs.setInt("axis", d.rng->uniformInt(-rank, rank - 1));
}

template <bool Log>
void softmaxKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  Tensor& y = a.outputs[0];
  const auto axis = static_cast<size_t>(*normalizeAxis(a.attrs.getInt("axis", -1), x.type.rank()));
  const int64_t len = x.type.shape[axis], inner = product(x.type.shape, axis + 1);
  if (x.numel() == 0) return;  // empty tensors (imported models)
  const int64_t outer = x.numel() / (len * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      const double* px = x.data.data() + o * len * inner + in;
      double* py = y.data.data() + o * len * inner + in;
      double max = px[0];
      for (int64_t j = 1; j < len; ++j) max = std::max(max, px[j * inner]);
      double sum = 0;
      for (int64_t j = 0; j < len; ++j) sum += std::exp(px[j * inner] - max);
      for (int64_t j = 0; j < len; ++j)
        py[j * inner] = Log ? px[j * inner] - max - std::log(sum) : std::exp(px[j * inner] - max) / sum;
    }
}

size_t axisOf(const KernelArgs& a) {
  return static_cast<size_t>(*normalizeAxis(a.attrs.getInt("axis", -1), a.inputs[0]->type.rank()));
}

void hardmaxKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  Tensor& y = a.outputs[0];
  forEachLine(x.type.shape, axisOf(a), [&](int64_t start, int64_t stride, int64_t len, int64_t) {
    int64_t best = 0;
    for (int64_t j = 1; j < len; ++j)
      if (x.data[static_cast<size_t>(start + j * stride)] > x.data[static_cast<size_t>(start + best * stride)]) best = j;
    y.data[static_cast<size_t>(start + best * stride)] = 1.0;
  });
}

bool hardmaxUnstable(const KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  bool unstable = false;
  forEachLine(x.type.shape, axisOf(a), [&](int64_t start, int64_t stride, int64_t len, int64_t) {
    if (nearBestCount(x.data.data() + start, stride, len, true) > 1) unstable = true;
  });
  return unstable;
}

OpSpec axisSpec(std::string_view name, void (*kernel)(KernelArgs&)) {
  OpSpec s;
  s.name = name;
  s.sinceVersion = 13;
  s.dtypes = kFloatTypes;
  s.minRank = 1;
  s.maxRank = 5;
  s.attrs = {intDomain("axis", -5, 4)};
  s.sampleAttrs = sampleSoftmaxAttrs;
  s.infer = inferSoftmax;
  s.reference = kernel;
  return s;
}

}  // namespace

const OpSpec& opSoftmax() {
  static const OpSpec s = axisSpec("Softmax", softmaxKernel<false>);
  return s;
}
const OpSpec& opLogSoftmax() {
  static const OpSpec s = axisSpec("LogSoftmax", softmaxKernel<true>);
  return s;
}
const OpSpec& opHardmax() {
  static const OpSpec s = [] {
    OpSpec t = axisSpec("Hardmax", hardmaxKernel);
    t.unstable = hardmaxUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
