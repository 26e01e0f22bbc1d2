// layer_norm.cpp - LayerNormalization (opset 17) and MeanVarianceNormalization (opset 13):
// normalisation by the mean and variance over a set of axes.
//
// LayerNormalization normalises over the trailing axes from `axis` (default -1), adds
// epsilon (default 1e-5) to the variance, then applies Scale and the optional B, both
// unidirectionally broadcastable to the normalised shape. The optional results Mean and
// InvStdDev (1 / sqrt(variance + epsilon)) are float32 (stash_type 1, the only one) with
// X's leading dims and 1s from `axis` on. MeanVarianceNormalization normalises over `axes` (default [0, 2, 3]) with no
// epsilon in the schema; float32 only, because ONNX's function body of MVN-13 adds a
// float32 constant and so fails type inference on float64; axes always written, because
// that body fails inference on the default too. Both amplify float32 rounding when a group's variance is tiny
// next to its mean, so such data is unstable (for MVN an exactly constant group too:
// engines divide x - mean, a float32 rounding error, by a near-zero deviation).
#include <cmath>

#include "ops/elem_util.h"
#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {


// Mean and (biased) variance of every group of elements that differ only on reduced axes;
// group[i] is element i's group.
struct GroupStats {
  std::vector<size_t> group;
  std::vector<double> mean, var;
};

GroupStats groupStats(const Tensor& x, const std::vector<bool>& reduced) {
  const Shape& shape = x.type.shape;
  Shape kept = shape;
  for (size_t i = 0; i < shape.size(); ++i)
    if (reduced[i]) kept[i] = 1;
  GroupStats s;
  s.mean.assign(static_cast<size_t>(product(kept)), 0.0);
  s.var.assign(s.mean.size(), 0.0);
  std::vector<double> count(s.mean.size(), 0.0);
  s.group.resize(x.data.size());
  if (x.data.empty()) return s;
  std::vector<int64_t> index(shape.size(), 0);
  size_t flat = 0;
  do {
    s.group[flat] = static_cast<size_t>(broadcastOffset(kept, shape, index));
    s.mean[s.group[flat]] += x.data[flat];
    count[s.group[flat]] += 1;
    ++flat;
  } while (nextIndex(index, shape));
  for (size_t g = 0; g < s.mean.size(); ++g) s.mean[g] /= count[g];
  for (size_t i = 0; i < x.data.size(); ++i) {
    const double d = x.data[i] - s.mean[s.group[i]];
    s.var[s.group[i]] += d * d;
  }
  for (size_t g = 0; g < s.var.size(); ++g) s.var[g] /= count[g];
  return s;
}

bool tinyVariance(const GroupStats& s, bool zeroToo) {
  for (size_t g = 0; g < s.var.size(); ++g)
    if ((zeroToo || s.var[g] > 0) && s.var[g] < 1e-4 * (1 + s.mean[g] * s.mean[g])) return true;
  return false;
}

// ---- LayerNormalization ----

size_t layerAxis(const Attributes& attrs, int rank) { return static_cast<size_t>(*normalizeAxis(attrs.getInt("axis", -1), rank)); }

std::vector<bool> trailingFrom(size_t axis, size_t rank) {
  std::vector<bool> reduced(rank, false);
  for (size_t i = axis; i < rank; ++i) reduced[i] = true;
  return reduced;
}

void sampleLayerNorm(OpDraft& d) {
  const int rank = d.first().rank();
  if (d.rng->bernoulli(0.6)) d.attrs.setInt("axis", d.rng->uniformInt(-rank, rank - 1));
  if (d.rng->bernoulli(0.4)) d.attrs.setFloat("epsilon", d.rng->bernoulli(0.5) ? kDefaultNormEpsilon : d.rng->uniformReal(1e-5, 1e-2));
  if (d.rng->bernoulli(0.3)) d.attrs.setInt("stash_type", 1);
}

// Scale (operand 1) and B (operand 2, optional): the normalised shape, sometimes with 1s
// or leading dims dropped.
InputPattern layerNormParam(const OpDraft& d) {
  if (d.inputTypes.size() == 2 && d.rng->bernoulli(0.3)) return InputPattern::omitted();
  const Shape& x = d.first().shape;
  const Shape normalized(x.begin() + static_cast<ptrdiff_t>(layerAxis(d.attrs, d.first().rank())), x.end());
  InputPattern p = elemutil::unidirectionalOperand(normalized, d.first().dtype, defaultRange(d.first().dtype));
  if (d.rng->bernoulli(0.7)) p.sample = [t = TensorType{d.first().dtype, normalized}](Rng&) { return t; };
  return p;
}

InferResult inferLayerNorm(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"axis", "epsilon", "stash_type"});
  int64_t axis = -1, stash = 1;
  double epsilon = kDefaultNormEpsilon;
  if (!err.empty() || !readInt(a.attrs, "axis", INT64_MIN, INT64_MAX, -1, axis, err) ||
      !readFloat(a.attrs, "epsilon", kDefaultNormEpsilon, epsilon, err) || !readInt(a.attrs, "stash_type", 1, 1, 1, stash, err))
    return InferResult::fail(err);
  const TensorType& x = *a.inputs[0];
  auto ax = normalizeAxis(axis, x.rank());
  if (!ax) return InferResult::fail("axis out of range");
  if (!(epsilon > 0)) return InferResult::fail("epsilon must be positive");
  const Shape normalized(x.shape.begin() + *ax, x.shape.end());
  for (size_t k = 1; k < a.inputs.size(); ++k) {
    if (!a.inputs[k]) {
      if (k == 1) return InferResult::fail("Scale is missing");
      continue;
    }
    if (a.inputs[k]->dtype != x.dtype) return InferResult::fail("Scale and B must have X's dtype");
    if (!elemutil::unidirectional(a.inputs[k]->shape, normalized))
      return InferResult::fail("Scale and B must broadcast to the normalised shape");
  }
  Shape stats = x.shape;
  for (size_t i = static_cast<size_t>(*ax); i < stats.size(); ++i) stats[i] = 1;
  return {{x, TensorType{DType::Float32, stats}, TensorType{DType::Float32, stats}}, {}};
}

void layerNormKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const size_t axis = layerAxis(a.attrs, x.type.rank());
  const double eps = a.attrs.getFloat("epsilon", kDefaultNormEpsilon);
  const GroupStats s = groupStats(x, trailingFrom(axis, x.type.shape.size()));
  const Shape normalized(x.type.shape.begin() + static_cast<ptrdiff_t>(axis), x.type.shape.end());
  const int64_t n = product(normalized);
  std::vector<int64_t> index(normalized.size(), 0);
  auto param = [&](size_t k, const std::vector<int64_t>& at, double fallback) {
    if (k >= a.inputs.size() || !a.inputs[k]) return fallback;
    return a.inputs[k]->data[static_cast<size_t>(broadcastOffset(a.inputs[k]->type.shape, normalized, at))];
  };
  for (size_t i = 0; i < x.data.size(); ++i) {
    // Position within the normalised shape (the trailing dims of row-major order).
    int64_t r = static_cast<int64_t>(i) % n;
    for (size_t d = normalized.size(); d-- > 0;) {
      index[d] = r % normalized[d];
      r /= normalized[d];
    }
    const size_t g = s.group[i];
    a.outputs[0].data[i] = (x.data[i] - s.mean[g]) / std::sqrt(s.var[g] + eps) * param(1, index, 1.0) + param(2, index, 0.0);
    // A constant group gives exactly the bias here; an engine's float32 mean may miss the
    // elements by an ulp, which 1 / sqrt(epsilon) magnifies (as in InstanceNormalization).
    if (s.var[g] == 0 && s.mean[g] != 0) a.outputs[0].noisy = true;
  }
  // Groups are the leading (kept) dims in row-major order: group g is Mean/InvStdDev entry g.
  for (size_t g = 0; g < s.mean.size() && a.outputs.size() > 2; ++g) {
    a.outputs[1].data[g] = s.mean[g];
    a.outputs[2].data[g] = 1.0 / std::sqrt(s.var[g] + eps);
  }
}

bool layerNormUnstable(const KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  return tinyVariance(groupStats(x, trailingFrom(layerAxis(a.attrs, x.type.rank()), x.type.shape.size())), false);
}

// ---- MeanVarianceNormalization ----

std::vector<int64_t> mvnAxes(const Attributes& attrs) { return attrs.getInts("axes", {0, 2, 3}); }

std::vector<bool> reducedAxes(const std::vector<int64_t>& axes, int rank) {
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t ax : axes) reduced[static_cast<size_t>(*normalizeAxis(ax, rank))] = true;
  return reduced;
}

void sampleMvn(OpDraft& d) {
  const int rank = d.first().rank();
  // Always written: python onnx's function body of MVN-13 fails inference when axes is
  // left to its default [0, 2, 3] (a Constant referring to the absent attribute).
  d.attrs.setInts("axes", rank >= 4 && d.rng->bernoulli(0.2) ? std::vector<int64_t>{0, 2, 3} : sampleAxes(*d.rng, rank));
}

InferResult inferMvn(const InferArgs& a) {
  if (std::string err = unknownAttr(a.attrs, {"axes"}); !err.empty()) return InferResult::fail(err);
  if (a.attrs.hasWrongKind<std::vector<int64_t>>("axes")) return InferResult::fail("axes must be a list of ints");
  // ONNX's function body of MVN-13 fails shape inference (so the official checker) when
  // axes is left to its default, so nnfuzz never writes that form (the blind generators too).
  if (!a.attrs.has("axes")) return InferResult::fail("axes left to its default fails ONNX's own shape inference of MVN-13");
  std::vector<int> axes;
  std::string err;
  if (!normalizeAxes(mvnAxes(a.attrs), a.inputs[0]->rank(), axes, err)) return InferResult::fail(err);
  return {{*a.inputs[0]}, {}};
}

void mvnKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const GroupStats s = groupStats(x, reducedAxes(mvnAxes(a.attrs), x.type.rank()));
  for (size_t i = 0; i < x.data.size(); ++i) {
    const size_t g = s.group[i];
    // A constant group gives 0 (0 / 0 read as 0, as engines that add a tiny epsilon do).
    a.outputs[0].data[i] = s.var[g] > 0 ? (x.data[i] - s.mean[g]) / std::sqrt(s.var[g]) : 0.0;
  }
}

bool mvnUnstable(const KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  return tinyVariance(groupStats(x, reducedAxes(mvnAxes(a.attrs), x.type.rank())), true);
}

}  // namespace

const OpSpec& opLayerNormalization() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "LayerNormalization";
    t.sinceVersion = 17;
    t.minInputs = 2;
    t.maxInputs = 3;
    t.dtypes = kFloatTypes;
    t.minRank = 1;
    t.optionalOutputs = 0b110;
    t.attrs = {intAttr("axis", -5, 4), floatAttr("epsilon", 1e-6, 1e-2), intAttr("stash_type", 1, 1)};
    t.sampleAttrs = sampleLayerNorm;
    t.nextInput = layerNormParam;
    t.infer = inferLayerNorm;
    t.reference = layerNormKernel;
    t.unstable = layerNormUnstable;
    return t;
  }();
  return s;
}

const OpSpec& opMeanVarianceNormalization() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "MeanVarianceNormalization";
    t.sinceVersion = 13;
    t.dtypes = {DType::Float32};
    t.minRank = 1;
    t.attrs = {intsAttr("axes", -5, 4, 1, 5)};
    t.sampleAttrs = sampleMvn;
    t.infer = inferMvn;
    t.reference = mvnKernel;
    t.unstable = mvnUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
