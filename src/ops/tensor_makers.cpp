// tensor_makers.cpp - operators that make a tensor from a description: ConstantOfShape
// (opset 9), EyeLike (opset 9) and Range (opset 11).
//
// ConstantOfShape's shape and Range's start/limit/delta are constants (ONNX infers the
// result shape only from initializers). GraphIR has no tensor-valued attributes, so
// ConstantOfShape is generated without `value` (float32 zeros); a model that sets it does
// not import. Range's operands are multiples of 1/4 and the count (limit - start) / delta
// is an integer or at least 1/4 from one, so the count and every element are exact in
// float32 too.
#include <cmath>

#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

// ---- ConstantOfShape ----

Tensor sampleShapeInput(Rng& rng, const Limits& limits) {
  // Rank 0 (a scalar result) now and then.
  const int rank = static_cast<int>(rng.uniformInt(rng.bernoulli(0.1) ? 0 : 1, limits.maxRank));
  const Shape s = sampleShape(rng, limits, rank);
  return int64Tensor(std::vector<int64_t>(s.begin(), s.end()));
}

InferResult inferConstantOfShape(const InferArgs& a) {
  if (std::string err = unknownAttr(a.attrs, {}); !err.empty()) return InferResult::fail(err);
  if (auto e = shapeops::checkIndexVector(a, 0, "shape"); !e.empty()) return InferResult::fail(e);
  Shape out;
  for (int64_t d : shapeops::intsOf(*a.constants[0])) {
    if (d < 0) return InferResult::fail("shape holds a negative dim");
    out.push_back(d);
  }
  return {{TensorType{DType::Float32, out}}, {}};
}

void zeroKernel(KernelArgs&) {}  // outputs arrive zero-filled

// ---- EyeLike ----

const std::vector<DType> kEyeTypes{DType::Float32, DType::Float64, DType::Int32, DType::Int64,
                                   DType::Int8,    DType::UInt8,   DType::Bool};

std::optional<DType> eyeDType(const Attributes& attrs, DType input) {
  if (!attrs.has("dtype")) return input;
  return dtypeFromOnnx(static_cast<int>(attrs.getInt("dtype", 0)));
}

void sampleEyeLike(OpDraft& d) {
  const Shape& s = d.first().shape;
  if (d.rng->bernoulli(0.6)) d.attrs.setInt("k", d.rng->uniformInt(-s[0], s[1]));
  if (d.rng->bernoulli(0.5)) d.attrs.setInt("dtype", onnxElemType(sampleDType(*d.rng, *d.limits, kEyeTypes)));
}

InferResult inferEyeLike(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"dtype", "k"});
  int64_t v = 0;
  if (!err.empty() || !readInt(a.attrs, "k", INT64_MIN, INT64_MAX, 0, v, err) ||
      !readInt(a.attrs, "dtype", INT64_MIN, INT64_MAX, 0, v, err))
    return InferResult::fail(err);
  auto dtype = eyeDType(a.attrs, a.inputs[0]->dtype);
  if (!dtype) return InferResult::fail("unsupported dtype " + std::to_string(a.attrs.getInt("dtype", 0)));
  return {{TensorType{*dtype, a.inputs[0]->shape}}, {}};
}

void eyeLikeKernel(KernelArgs& a) {
  const Shape& s = a.outputs[0].type.shape;
  const int64_t k = a.attrs.getInt("k", 0);
  for (int64_t i = 0; i < s[0]; ++i)
    if (i + k >= 0 && i + k < s[1]) a.outputs[0].data[static_cast<size_t>(i * s[1] + i + k)] = 1.0;
}

// ---- Range ----

const std::vector<DType> kRangeTypes{DType::Float32, DType::Float64, DType::Int32, DType::Int64};

// Saturated at 2^40 (inference refuses anything over 2^24): a far limit, a tiny delta or a
// NaN must not reach the conversion to int64.
int64_t rangeCount(double start, double limit, double delta) {
  const double n = std::ceil((limit - start) / delta);
  if (!(n > 0)) return 0;
  return n > 0x1p40 ? int64_t{1} << 40 : static_cast<int64_t>(n);
}

double gridOf(DType dtype) { return isFloat(dtype) ? 0.25 : 1.0; }

// start on a grid of 1/4 (1 for integers).
Tensor sampleStart(Rng& rng, const Limits& limits) {
  const DType dtype = sampleDType(rng, limits, kRangeTypes);
  return Tensor(TensorType{dtype, {}}, {static_cast<double>(rng.uniformInt(-8, 8)) * gridOf(dtype)});
}

// limit: start plus n steps of a delta drawn here too (on the grid, either sign), less half
// a step (for integers sometimes less, as long as the count stays n); delta: that delta.
InputPattern rangeOperand(const OpDraft& d) {
  const DType dtype = d.first().dtype;
  const double unit = gridOf(dtype);
  Rng& rng = *d.rng;
  if (d.inputTypes.size() == 1) {
    const double start = d.constants[0]->data[0];
    const double delta = static_cast<double>(rng.uniformInt(1, 8)) * unit * (rng.bernoulli(0.3) ? -1 : 1);
    const auto n = static_cast<double>(rng.uniformInt(1, 2 * d.limits->maxDim));
    const double shortBy = isFloat(dtype) ? delta / 2 : static_cast<double>(rng.uniformInt(0, static_cast<int64_t>(std::abs(delta)) - 1)) * (delta > 0 ? 1 : -1);
    return InputPattern::constantTensor(Tensor(TensorType{dtype, {}}, {start + n * delta - shortBy}));
  }
  // delta: any step on the grid giving 1..2*maxDim elements (with float counts away from
  // integers); the one limit was made for is among them.
  const double span = d.constants[1]->data[0] - d.constants[0]->data[0];
  std::vector<double> fits;
  for (int64_t k = -8; k <= 8; ++k) {
    const double delta = static_cast<double>(k) * unit;
    if (k == 0) continue;
    const int64_t n = rangeCount(d.constants[0]->data[0], d.constants[1]->data[0], delta);
    const double q = span / delta;
    const bool exact = !isFloat(dtype) || distanceToInteger(q) == 0 || distanceToInteger(q) >= 0.25;
    if (n >= 1 && n <= 2 * d.limits->maxDim && exact) fits.push_back(delta);
  }
  return InputPattern::constantTensor(Tensor(TensorType{dtype, {}}, {fits.empty() ? (span >= 0 ? unit : -unit) : rng.pick(fits)}));
}

InferResult inferRange(const InferArgs& a) {
  if (std::string err = unknownAttr(a.attrs, {}); !err.empty()) return InferResult::fail(err);
  const DType dtype = a.inputs[0]->dtype;
  for (size_t k = 0; k < 3; ++k) {
    if (k >= a.inputs.size() || !a.inputs[k]) return InferResult::fail("start, limit and delta are required");
    if (a.inputs[k]->dtype != dtype || a.inputs[k]->rank() != 0)
      return InferResult::fail("start, limit and delta must be scalars of one dtype");
    if (!a.constants[k]) return InferResult::fail("start, limit and delta must be constants");
  }
  const double delta = a.constants[2]->data[0];
  if (delta == 0) return InferResult::fail("delta must not be 0");
  const int64_t n = rangeCount(a.constants[0]->data[0], a.constants[1]->data[0], delta);
  if (n > (int64_t{1} << 24)) return InferResult::fail("too many elements");
  return {{TensorType{dtype, {n}}}, {}};
}

void rangeKernel(KernelArgs& a) {
  const double start = a.inputs[0]->data[0], delta = a.inputs[2]->data[0];
  for (size_t i = 0; i < a.outputs[0].data.size(); ++i) a.outputs[0].data[i] = start + static_cast<double>(i) * delta;
}

// Elements and count are exact only if (limit - start) / delta is not within a hair of an
// integer other than exactly (float32 engines compute it in float).
bool rangeUnstable(const KernelArgs& a) {
  if (!isFloat(a.inputs[0]->type.dtype)) return false;
  const double q = (a.inputs[1]->data[0] - a.inputs[0]->data[0]) / a.inputs[2]->data[0];
  const double dist = distanceToInteger(q);
  return dist != 0 && dist < kStabilityMargin;
}

}  // namespace

const OpSpec& opConstantOfShape() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "ConstantOfShape";
    t.sinceVersion = 9;
    t.dtypes = {DType::Int64};
    t.minRank = t.maxRank = 1;
    t.constantInputs = 0b1;
    t.sampleConstantFirst = sampleShapeInput;
    t.infer = inferConstantOfShape;
    t.reference = zeroKernel;
    return t;
  }();
  return s;
}

const OpSpec& opEyeLike() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "EyeLike";
    t.sinceVersion = 9;
    t.dtypes = kEyeTypes;
    t.minRank = t.maxRank = 2;
    t.attrs = {intAttr("k", -5, 5), intAttr("dtype", 1, 11)};
    t.sampleAttrs = sampleEyeLike;
    t.infer = inferEyeLike;
    t.reference = eyeLikeKernel;
    return t;
  }();
  return s;
}

const OpSpec& opRange() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "Range";
    t.sinceVersion = 11;
    t.minInputs = t.maxInputs = 3;
    t.dtypes = kRangeTypes;
    t.minRank = t.maxRank = 0;
    t.constantInputs = 0b111;
    t.sampleConstantFirst = sampleStart;
    t.nextInput = rangeOperand;
    t.infer = inferRange;
    t.reference = rangeKernel;
    t.unstable = rangeUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
