// batch_norm.cpp - normalisations: BatchNormalization (opset 15 schema, inference mode
// only: training_mode = 0, one output), InstanceNormalization (opset 6 schema) and
// LpNormalization (opset 1 schema, p in {1, 2}).
//
// BatchNormalization's scale/B (T1) and mean/var (T2) may have other float types than X
// by the schema; generated models give them X's dtype, which every runtime implements.
// The variance is kept positive. Instance and Lp normalisation divide by a statistic of
// the data: they are unstable when it is tiny but not zero.
#include <cmath>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

constexpr double kDefaultEpsilon = 1e-5;

bool readEpsilon(const Attributes& attrs, double& eps, std::string& err) {
  if (!readFloat(attrs, "epsilon", kDefaultEpsilon, eps, err)) return false;
  if (eps < 0) {
    err = "epsilon must be >= 0";
    return false;
  }
  return true;
}

void sampleEpsilon(OpDraft& d) {
  if (d.rng->bernoulli(0.5)) d.attrs.setFloat("epsilon", std::pow(10.0, d.rng->uniformReal(-6, -2)));
}

// Shared check of per-channel vectors: operand i must be a float vector of C elements;
// `dtype` pins its dtype when set.
bool channelVector(const InferArgs& a, size_t i, int64_t c, std::optional<DType> dtype, std::string& err) {
  const TensorType* t = i < a.inputs.size() ? a.inputs[i] : nullptr;
  if (!t) {
    err = "input " + std::to_string(i) + " is required";
    return false;
  }
  if (!contains(kFloatTypes, t->dtype) || (dtype && t->dtype != *dtype) || t->shape != Shape{c}) {
    err = "input " + std::to_string(i) + " must be a float vector of C elements" + (dtype ? " of X's dtype" : "");
    return false;
  }
  return true;
}

// ---- BatchNormalization ----

InferResult inferBatchNorm(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"epsilon", "momentum", "training_mode"});
  if (!err.empty()) return InferResult::fail(err);
  double eps = 0, momentum = 0;
  int64_t training = 0;
  if (!readEpsilon(a.attrs, eps, err) || !readFloat(a.attrs, "momentum", 0.9, momentum, err) ||
      !readInt(a.attrs, "training_mode", 0, 1, 0, training, err))
    return InferResult::fail(err);
  if (training != 0) return InferResult::fail("training_mode = 1 is not modelled");
  const TensorType& x = *a.inputs[0];
  const int64_t c = x.shape[1];
  for (size_t i = 1; i < 5; ++i)
    if (!channelVector(a, i, c, std::nullopt, err)) return InferResult::fail(err);
  // scale and B share type T1, mean and var share T2.
  if (a.inputs[1]->dtype != a.inputs[2]->dtype || a.inputs[3]->dtype != a.inputs[4]->dtype)
    return InferResult::fail("scale/B and mean/var must pairwise share a dtype");
  return {{x}, {}};
}

void sampleBatchNormAttrs(OpDraft& d) {
  sampleEpsilon(d);
  if (d.rng->bernoulli(0.3)) d.attrs.setFloat("momentum", d.rng->uniformReal(0.0, 1.0));
  if (d.rng->bernoulli(0.2)) d.attrs.setInt("training_mode", 0);
}

InputPattern nextBatchNormInput(const OpDraft& d) {
  const TensorType& x = d.first();
  ValueRange range = defaultRange(x.dtype);
  if (d.inputTypes.size() == 4) range = {0.05, 2.0, 0.0};  // input_var
  return InputPattern::exactly(TensorType{x.dtype, Shape{x.shape[1]}}, range);
}

void batchNormKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const auto& scale = a.inputs[1]->data;
  const auto& bias = a.inputs[2]->data;
  const auto& mean = a.inputs[3]->data;
  const auto& var = a.inputs[4]->data;
  const double eps = a.attrs.getFloat("epsilon", kDefaultEpsilon);
  const int64_t c = x.type.shape[1], size = product(x.type.shape, 2);
  Tensor& y = a.outputs[0];
  for (int64_t i = 0; i < x.numel(); ++i) {
    const auto ch = static_cast<size_t>((i / size) % c);
    y.data[static_cast<size_t>(i)] =
        scale[ch] * (x.data[static_cast<size_t>(i)] - mean[ch]) / std::sqrt(var[ch] + eps) + bias[ch];
  }
}

// ---- InstanceNormalization ----

InferResult inferInstanceNorm(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"epsilon"});
  double eps = 0;
  if (!err.empty() || !readEpsilon(a.attrs, eps, err)) return InferResult::fail(err);
  const TensorType& x = *a.inputs[0];
  for (size_t i = 1; i < 3; ++i)
    if (!channelVector(a, i, x.shape[1], x.dtype, err)) return InferResult::fail(err);
  return {{x}, {}};
}

InputPattern nextInstanceNormInput(const OpDraft& d) {
  const TensorType& x = d.first();
  return InputPattern::exactly(TensorType{x.dtype, Shape{x.shape[1]}}, defaultRange(x.dtype));
}

// Calls f(plane start, mean, variance) for each N x C plane.
template <typename F>
void forEachPlane(const Tensor& x, F f) {
  const int64_t planes = x.type.shape[0] * x.type.shape[1], size = product(x.type.shape, 2);
  for (int64_t k = 0; k < planes; ++k) {
    const int64_t start = k * size;
    double mean = 0, var = 0;
    for (int64_t i = 0; i < size; ++i) mean += x.data[static_cast<size_t>(start + i)];
    mean /= static_cast<double>(size);
    for (int64_t i = 0; i < size; ++i) var += std::pow(x.data[static_cast<size_t>(start + i)] - mean, 2);
    f(k, start, size, mean, var / static_cast<double>(size));
  }
}

void instanceNormKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const auto& scale = a.inputs[1]->data;
  const auto& bias = a.inputs[2]->data;
  const double eps = a.attrs.getFloat("epsilon", kDefaultEpsilon);
  const int64_t c = x.type.shape[1];
  Tensor& y = a.outputs[0];
  forEachPlane(x, [&](int64_t k, int64_t start, int64_t size, double mean, double var) {
    const auto ch = static_cast<size_t>(k % c);
    for (int64_t i = start; i < start + size; ++i)
      y.data[static_cast<size_t>(i)] =
          scale[ch] * (x.data[static_cast<size_t>(i)] - mean) / std::sqrt(var + eps) + bias[ch];
    if (var == 0 && scale[ch] * mean != 0) y.noisy = true;
  });
}

// Over a constant plane (one element, or equal ones) the result is exactly the bias, but
// engines fold scale / sqrt(var + epsilon) into an affine map and cancel two terms of size
// |scale * mean| / sqrt(epsilon) (316 |scale * mean| at the default epsilon): the result is
// off by ulps of those terms (ONNX Runtime returned a bias of 5.6e-4 as 6.1e-4).
// The kernel marks such results noisy; here they are unstable outright once a few float32
// ulps of the cancelled terms reach the comparison's tolerance (the stability margin,
// relative to the bias beyond 1).
bool instanceNormUnstable(const KernelArgs& a) {
  const auto& scale = a.inputs[1]->data;
  const auto& bias = a.inputs[2]->data;
  const double eps = a.attrs.getFloat("epsilon", kDefaultEpsilon);
  const int64_t c = a.inputs[0]->type.shape[1];
  bool unstable = false;
  forEachPlane(*a.inputs[0], [&](int64_t k, int64_t, int64_t, double mean, double var) {
    const auto ch = static_cast<size_t>(k % c);
    const double cancelled = std::abs(scale[ch] * mean) / std::sqrt(eps);
    // A tiny non-zero variance is dominated by float32 rounding of the statistics.
    if (var > 0 && var < 1e-4 * (1 + mean * mean)) unstable = true;
    if (var == 0 && cancelled * std::ldexp(1.0, -21) > kStabilityMargin * (1 + std::abs(bias[ch]))) unstable = true;
  });
  return unstable;
}

// ---- LpNormalization ----

InferResult inferLpNorm(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"axis", "p"});
  int64_t axis = -1, p = 2;
  if (!err.empty() || !readInt(a.attrs, "axis", INT64_MIN, INT64_MAX, -1, axis, err) ||
      !readInt(a.attrs, "p", 1, 2, 2, p, err))
    return InferResult::fail(err);
  const TensorType& x = *a.inputs[0];
  if (!normalizeAxis(axis, x.rank())) return InferResult::fail("axis out of range");
  return {{x}, {}};
}

void sampleLpNormAttrs(OpDraft& d) {
  const int rank = d.first().rank();
  if (d.rng->bernoulli(0.7)) d.attrs.setInt("axis", d.rng->uniformInt(-rank, rank - 1));
  if (d.rng->bernoulli(0.6)) d.attrs.setInt("p", d.rng->uniformInt(1, 2));
}

// Calls f(first offset, stride, norm) for each line along the axis.
template <typename F>
void forEachLine(const Tensor& x, const Attributes& attrs, F f) {
  const int axis = *normalizeAxis(attrs.getInt("axis", -1), x.type.rank());
  const int64_t p = attrs.getInt("p", 2);
  const int64_t len = x.type.shape[static_cast<size_t>(axis)];
  const int64_t inner = product(x.type.shape, static_cast<size_t>(axis) + 1);
  if (x.numel() == 0) return;  // empty tensors (imported models)
  const int64_t outer = x.numel() / (len * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t first = o * len * inner + in;
      double norm = 0;
      for (int64_t j = 0; j < len; ++j) {
        const double v = std::abs(x.data[static_cast<size_t>(first + j * inner)]);
        norm += p == 1 ? v : v * v;
      }
      f(first, inner, len, p == 1 ? norm : std::sqrt(norm));
    }
}

void lpNormKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  Tensor& y = a.outputs[0];
  forEachLine(x, a.attrs, [&](int64_t first, int64_t stride, int64_t len, double norm) {
    for (int64_t j = 0; j < len; ++j) {
      const auto i = static_cast<size_t>(first + j * stride);
      y.data[i] = norm == 0 ? 0.0 : x.data[i] / norm;  // an all-zero line stays zero
    }
  });
}

bool lpNormUnstable(const KernelArgs& a) {
  bool unstable = false;
  forEachLine(*a.inputs[0], a.attrs, [&](int64_t, int64_t, int64_t, double norm) {
    if (norm < kStabilityMargin) unstable = true;
  });
  return unstable;
}

}  // namespace

const OpSpec& opBatchNormalization() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "BatchNormalization";
    s.sinceVersion = 15;
    s.minInputs = s.maxInputs = 5;
    s.dtypes = kFloatTypes;
    s.minRank = 2;
    s.maxRank = 5;
    s.attrs = {floatAttr("epsilon", 0, 0.1), floatAttr("momentum", 0, 1), intAttr("training_mode", 0, 1)};
    s.sampleAttrs = sampleBatchNormAttrs;
    s.nextInput = nextBatchNormInput;
    s.infer = inferBatchNorm;
    s.reference = batchNormKernel;
    return s;
  }();
  return s;
}

const OpSpec& opInstanceNormalization() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "InstanceNormalization";
    s.sinceVersion = 6;
    s.minInputs = s.maxInputs = 3;
    s.dtypes = kFloatTypes;
    s.minRank = 3;
    s.maxRank = 5;
    s.attrs = {floatAttr("epsilon", 0, 0.1)};
    s.sampleAttrs = sampleEpsilon;
    s.nextInput = nextInstanceNormInput;
    s.infer = inferInstanceNorm;
    s.reference = instanceNormKernel;
    s.unstable = instanceNormUnstable;
    return s;
  }();
  return s;
}

const OpSpec& opLpNormalization() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "LpNormalization";
    s.sinceVersion = 1;
    s.dtypes = kFloatTypes;
    s.minRank = 1;
    s.maxRank = 5;
    s.attrs = {intAttr("axis", -5, 4), intAttr("p", 1, 2)};
    s.sampleAttrs = sampleLpNormAttrs;
    s.infer = inferLpNorm;
    s.reference = lpNormKernel;
    s.unstable = lpNormUnstable;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
