// softmax.cpp - Softmax, LogSoftmax and Hardmax (opset 13 schemas) along one axis
// (default -1). Softmax and LogSoftmax are computed with the maximum subtracted so large
// inputs stay finite. Hardmax is 1 at the first largest element of each line and 0
// elsewhere; like ArgMax it is unstable when a line's two best values tie or nearly do.
//
// coerce_2d = 1 (nnfuzz's own attribute, never written to ONNX) stands for the semantics of
// the versions before 13: the input is flattened to 2-D at `axis`, so a line runs over all
// of [axis, rank). version_forms.cpp writes such a node only before opset 13 (as that
// version's `axis`), and reads those versions' middle axes back into it.
#include <algorithm>
#include <cmath>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

InferResult inferSoftmax(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"axis", "coerce_2d"});
  int64_t axis = -1, coerce = 0;
  if (!err.empty() || !readInt(a.attrs, "axis", INT64_MIN, INT64_MAX, -1, axis, err) ||
      !readInt(a.attrs, "coerce_2d", 0, 1, 0, coerce, err))
    return InferResult::fail(err);
  if (!normalizeAxis(axis, a.inputs[0]->rank())) return InferResult::fail("axis out of range");
  return {{*a.inputs[0]}, {}};
}

void sampleSoftmaxAttrs(OpDraft& d) {
  const int rank = d.first().rank();
  // The pre-13 coercion at a middle axis (only opsets before 13 can write it).
  if (rank >= 3 && d.rng->bernoulli(0.1)) {
    d.attrs.setInt("coerce_2d", 1);
    d.attrs.setInt("axis", d.rng->uniformInt(0, rank - 2));
    return;
  }
  if (d.rng->bernoulli(0.7)) d.attrs.setInt("axis", d.rng->uniformInt(-rank, rank - 1));
}

// The shape and axis the kernel runs lines along: the input's, or with coerce_2d its 2-D
// view [prod [0, axis), prod [axis, rank)] with the lines along axis 1.
std::pair<Shape, size_t> lineView(const Attributes& attrs, const Shape& shape) {
  const auto axis = static_cast<size_t>(*normalizeAxis(attrs.getInt("axis", -1), static_cast<int>(shape.size())));
  if (attrs.getInt("coerce_2d", 0) == 0) return {shape, axis};
  return {Shape{product(shape, 0, axis), product(shape, axis)}, 1};
}

template <bool Log>
void softmaxKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  Tensor& y = a.outputs[0];
  const auto [shape, axis] = lineView(a.attrs, x.type.shape);
  const int64_t len = shape[axis], inner = product(shape, axis + 1);
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

void hardmaxKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  Tensor& y = a.outputs[0];
  const auto [shape, axis] = lineView(a.attrs, x.type.shape);
  forEachLine(shape, axis, [&](int64_t start, int64_t stride, int64_t len, int64_t) {
    int64_t best = 0;
    for (int64_t j = 1; j < len; ++j)
      if (x.data[static_cast<size_t>(start + j * stride)] > x.data[static_cast<size_t>(start + best * stride)]) best = j;
    y.data[static_cast<size_t>(start + best * stride)] = 1.0;
  });
}

bool hardmaxUnstable(const KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  bool unstable = false;
  const auto [shape, axis] = lineView(a.attrs, x.type.shape);
  forEachLine(shape, axis, [&](int64_t start, int64_t stride, int64_t len, int64_t) {
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
  s.attrs = {intAttr("axis", -5, 4)};
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
