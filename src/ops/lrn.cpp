// lrn.cpp - LRN (opset 13 schema): local response normalisation across channels,
// Y = X / (bias + alpha / size * sum of X^2 over the size channels around c)^beta,
// the window spanning floor((size-1)/2) channels below c and ceil((size-1)/2) above.
// Inputs are 4-D (N x C x H x W): the schema allows other ranks, ONNX Runtime does not.
#include <algorithm>
#include <cmath>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

InferResult inferLrn(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"alpha", "beta", "bias", "size"});
  if (!err.empty()) return InferResult::fail(err);
  if (!a.attrs.has("size")) return InferResult::fail("size is required");
  int64_t size = 0;
  double alpha = 0, beta = 0, bias = 0;
  if (!readInt(a.attrs, "size", 1, INT64_MAX, 1, size, err) || !readFloat(a.attrs, "alpha", 1e-4, alpha, err) ||
      !readFloat(a.attrs, "beta", 0.75, beta, err) || !readFloat(a.attrs, "bias", 1.0, bias, err))
    return InferResult::fail(err);
  return {{*a.inputs[0]}, {}};
}

void sampleLrnAttrs(OpDraft& d) {
  Rng& rng = *d.rng;
  // Odd sizes (ONNX Runtime's requirement); a positive base keeps the power real.
  d.attrs.setInt("size", 2 * rng.uniformInt(0, 2) + 1);
  if (rng.bernoulli(0.5)) d.attrs.setFloat("alpha", std::pow(10.0, rng.uniformReal(-4, 0)));
  if (rng.bernoulli(0.5)) d.attrs.setFloat("beta", rng.uniformReal(0.5, 1.0));
  if (rng.bernoulli(0.5)) d.attrs.setFloat("bias", rng.uniformReal(0.5, 2.0));
}

void lrnKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  Tensor& y = a.outputs[0];
  const int64_t size = a.attrs.getInt("size", 1);
  const double alpha = a.attrs.getFloat("alpha", 1e-4), beta = a.attrs.getFloat("beta", 0.75);
  const double bias = a.attrs.getFloat("bias", 1.0);
  const int64_t c = x.type.shape[1], inner = product(x.type.shape, 2);
  const int64_t below = (size - 1) / 2, above = size - 1 - below;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t ch = (i / inner) % c, base = i - ch * inner;
    double sum = 0;
    for (int64_t j = std::max<int64_t>(0, ch - below); j <= std::min(c - 1, ch + above); ++j) {
      const double v = x.data[static_cast<size_t>(base + j * inner)];
      sum += v * v;
    }
    y.data[static_cast<size_t>(i)] =
        x.data[static_cast<size_t>(i)] / std::pow(bias + alpha / static_cast<double>(size) * sum, beta);
  }
}

double windowWork(const WorkArgs& a) {
  return elementCount(a.outputs[0]) * static_cast<double>(std::max<int64_t>(a.attrs.getInt("size", 1), 1));
}

}  // namespace

const OpSpec& opLRN() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "LRN";
    s.sinceVersion = 13;
    s.dtypes = kFloatTypes;
    s.minRank = 4;
    s.maxRank = 4;
    s.attrs = {floatAttr("alpha", 1e-4, 1), floatAttr("beta", 0.5, 1), floatAttr("bias", 0.5, 2),
               intAttr("size", 1, 5)};
    s.sampleAttrs = sampleLrnAttrs;
    s.infer = inferLrn;
    s.reference = lrnKernel;
    s.work = windowWork;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
