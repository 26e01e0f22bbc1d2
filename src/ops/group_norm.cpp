// group_norm.cpp - GroupNormalization (opset 21): X (N x C x D1 x ...) split into
// num_groups groups of C / num_groups channels; each (sample, group) is normalised by its
// own mean and biased variance plus epsilon (default 1e-5), then every channel c is scaled
// by scale[c] and shifted by bias[c] (both of length C).
//
// Version 21 made scale and bias per channel; GroupNormalization-18 took them per group
// (length num_groups) and is deprecated, so the spec implements 21 and is drawn from
// opset 21 on (the two agree only when num_groups == C). stash_type 1 (float32
// statistics) is the only value written; we keep them in double. As in
// LayerNormalization, a group whose variance is tiny next to its mean amplifies float32
// rounding: such data is unstable.
#include <cmath>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {


void sampleGroupNorm(OpDraft& d) {
  d.attrs.setInt("num_groups", sampleDivisor(*d.rng, d.first().shape[1]));
  if (d.rng->bernoulli(0.4)) d.attrs.setFloat("epsilon", d.rng->bernoulli(0.5) ? kDefaultNormEpsilon : d.rng->uniformReal(1e-5, 1e-2));
  if (d.rng->bernoulli(0.3)) d.attrs.setInt("stash_type", 1);
}

// scale and bias: one value per channel.
InputPattern perChannel(const OpDraft& d) {
  const TensorType& x = d.first();
  return InputPattern::exactly(TensorType{x.dtype, {x.shape[1]}}, defaultRange(x.dtype));
}

InferResult inferGroupNorm(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"epsilon", "num_groups", "stash_type"});
  int64_t groups = 0, stash = 1;
  double epsilon = kDefaultNormEpsilon;
  if (!err.empty() || !readInt(a.attrs, "stash_type", 1, 1, 1, stash, err) ||
      !readFloat(a.attrs, "epsilon", kDefaultNormEpsilon, epsilon, err))
    return InferResult::fail(err);
  if (!a.attrs.has("num_groups")) return InferResult::fail("num_groups is required");
  if (!readInt(a.attrs, "num_groups", 1, INT64_MAX, 1, groups, err)) return InferResult::fail(err);
  if (!(epsilon > 0)) return InferResult::fail("epsilon must be positive");
  const TensorType& x = *a.inputs[0];
  if (x.shape[1] % groups != 0) return InferResult::fail("num_groups must divide the channel count");
  for (size_t k = 1; k < 3; ++k) {
    if (k >= a.inputs.size() || !a.inputs[k]) return InferResult::fail("scale and bias are required");
    if (a.inputs[k]->dtype != x.dtype) return InferResult::fail("scale and bias must have X's dtype");
    if (a.inputs[k]->shape != Shape{x.shape[1]}) return InferResult::fail("scale and bias must have one value per channel");
  }
  return {{x}, {}};
}

// Mean and biased variance of every (sample, group), in row-major order.
struct GroupMoments {
  std::vector<double> mean, var;
};

GroupMoments groupMoments(const Tensor& x, int64_t groups) {
  const int64_t n = x.type.shape[0], c = x.type.shape[1], spatial = product(x.type.shape, 2);
  const int64_t size = c / groups * spatial;  // elements per group, contiguous in row-major order
  GroupMoments m;
  for (int64_t g = 0; g < n * groups; ++g) {
    const double* p = x.data.data() + g * size;
    double sum = 0, squares = 0;
    for (int64_t i = 0; i < size; ++i) sum += p[i];
    const double mean = size > 0 ? sum / static_cast<double>(size) : 0.0;
    for (int64_t i = 0; i < size; ++i) squares += (p[i] - mean) * (p[i] - mean);
    m.mean.push_back(mean);
    m.var.push_back(size > 0 ? squares / static_cast<double>(size) : 0.0);
  }
  return m;
}

void groupNormKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const int64_t groups = a.attrs.getInt("num_groups", 1);
  const double eps = a.attrs.getFloat("epsilon", kDefaultNormEpsilon);
  const int64_t c = x.type.shape[1], spatial = product(x.type.shape, 2);
  const GroupMoments m = groupMoments(x, groups);
  const int64_t perGroup = c / groups * spatial;
  for (size_t i = 0; i < x.data.size(); ++i) {
    const auto flat = static_cast<int64_t>(i);
    const auto g = static_cast<size_t>(flat / perGroup);
    const auto channel = static_cast<size_t>(flat / spatial % c);
    a.outputs[0].data[i] =
        (x.data[i] - m.mean[g]) / std::sqrt(m.var[g] + eps) * a.inputs[1]->data[channel] + a.inputs[2]->data[channel];
  }
}

bool groupNormUnstable(const KernelArgs& a) {
  const GroupMoments m = groupMoments(*a.inputs[0], a.attrs.getInt("num_groups", 1));
  for (size_t g = 0; g < m.var.size(); ++g)
    if (m.var[g] > 0 && m.var[g] < 1e-4 * (1 + m.mean[g] * m.mean[g])) return true;
  return false;
}

}  // namespace

const OpSpec& opGroupNormalization() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "GroupNormalization";
    t.sinceVersion = 21;
    t.minInputs = t.maxInputs = 3;
    t.dtypes = kFloatTypes;
    t.minRank = 2;
    t.attrs = {intAttr("num_groups", 1, 5), floatAttr("epsilon", 1e-6, 1e-2), intAttr("stash_type", 1, 1)};
    t.sampleAttrs = sampleGroupNorm;
    t.nextInput = perChannel;
    t.infer = inferGroupNorm;
    t.reference = groupNormKernel;
    t.unstable = groupNormUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
