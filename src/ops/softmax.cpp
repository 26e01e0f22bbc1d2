// softmax.cpp - Softmax and LogSoftmax (opset 13 schemas): normalised exponentials along
// one axis (default -1), computed with the maximum subtracted so large inputs stay finite.
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

template <bool Log>
OpSpec softmaxSpec(std::string_view name) {
  OpSpec s;
  s.name = name;
  s.sinceVersion = 13;
  s.dtypes = kFloatTypes;
  s.minRank = 1;
  s.maxRank = 5;
  s.attrs = {intDomain("axis", -5, 4)};
  s.sampleAttrs = sampleSoftmaxAttrs;
  s.infer = inferSoftmax;
  s.reference = softmaxKernel<Log>;
  return s;
}

}  // namespace

const OpSpec& opSoftmax() {
  static const OpSpec s = softmaxSpec<false>("Softmax");
  return s;
}
const OpSpec& opLogSoftmax() {
  static const OpSpec s = softmaxSpec<true>("LogSoftmax");
  return s;
}

}  // namespace nnfuzz
