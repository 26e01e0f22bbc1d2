// one_hot.cpp - OneHot (opset 11): indices, depth (a one-element constant, so the result
// shape is static) and values [off, on]; the result has a new axis of length depth at
// `axis` (default -1, counted in the result's rank) holding `on` where the index is, `off`
// elsewhere. Negative indices count from depth; indices outside [-depth, depth - 1] give
// all-off rows. Float indices and depth are truncated toward zero, so a float index within
// a hair of an integer is unstable (as Floor's input is).
//
// The schema allows every numeric type for all three operands; generated nodes use the
// (indices, depth, values) combinations ONNX Runtime has kernels for (int64/int32/float
// indices; see kOrtCombos), because an avoid rule cannot pair operands.
#include <cmath>

#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

using DT = DType;
struct Combo {
  DType indices, depth, values;
};
constexpr Combo kOrtCombos[] = {{DT::Int64, DT::Int64, DT::Float32}, {DT::Int64, DT::Int64, DT::Int64},
                                {DT::Int64, DT::Int32, DT::Float32}, {DT::Int64, DT::Float32, DT::Float32},
                                {DT::Int64, DT::Float32, DT::Int32}, {DT::Int32, DT::Int32, DT::Float32},
                                {DT::Int32, DT::Float32, DT::Float32}, {DT::Float32, DT::Int64, DT::Int64},
                                {DT::Float32, DT::Float32, DT::Float32}};

const std::vector<DType> kIndexTypes{DT::Float32, DT::Float64, DT::Int32, DT::Int64, DT::Int8, DT::UInt8};

std::vector<Combo> combosFor(DType indices) {
  std::vector<Combo> out;
  for (const Combo& c : kOrtCombos)
    if (c.indices == indices) out.push_back(c);
  return out;
}

// The result has one axis more: the indices' rank stays below the limit.
bool acceptsIndices(const TensorType& t, const Limits& limits) { return t.rank() < limits.maxRank; }
TensorType sampleIndices(Rng& rng, const Limits& limits, DType dtype) {
  return {dtype, sampleShape(rng, limits, static_cast<int>(rng.uniformInt(1, std::max(1, std::min(4, limits.maxRank - 1)))))};
}

ValueRange indexRange(DType dtype) { return dtype == DT::UInt8 ? ValueRange{0, 6, 0} : ValueRange{-6, 6, 0}; }

void sampleOneHot(OpDraft& d) {
  const int rank = d.first().rank();
  if (d.rng->bernoulli(0.6)) d.attrs.setInt("axis", d.rng->uniformInt(-rank - 1, rank));
}

// depth: a scalar or one-element 1-D constant; values: [off, on] of a type ONNX Runtime pairs
// with the indices' and depth's.
InputPattern oneHotOperand(const OpDraft& d) {
  Rng& rng = *d.rng;
  const std::vector<Combo> combos = combosFor(d.first().dtype);
  if (d.inputTypes.size() == 1) {
    const DType dtype = combos.empty() ? DT::Int64 : rng.pick(combos).depth;
    const Shape shape = rng.bernoulli(0.7) ? Shape{} : Shape{1};
    return InputPattern::constantTensor(Tensor(TensorType{dtype, shape}, {static_cast<double>(rng.uniformInt(1, 2 * d.limits->maxDim))}));
  }
  DType values = DT::Float32;
  for (const Combo& c : combos)
    if (c.depth == d.inputTypes[1].dtype && (values == DT::Float32 || rng.bernoulli(0.5))) values = c.values;
  return InputPattern::exactly(TensorType{values, {2}}, defaultRange(values));
}

InferResult inferOneHot(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"axis"});
  int64_t axis = -1;
  if (!err.empty() || !readInt(a.attrs, "axis", INT64_MIN, INT64_MAX, -1, axis, err)) return InferResult::fail(err);
  const TensorType& indices = *a.inputs[0];
  auto ax = normalizeAxis(axis, indices.rank() + 1);
  if (!ax) return InferResult::fail("axis out of range");
  if (a.inputs.size() < 3 || !a.inputs[1] || !a.inputs[2]) return InferResult::fail("depth and values are required");
  const TensorType& depth = *a.inputs[1];
  if (depth.dtype == DT::Bool || depth.rank() > 1 || depth.numel() != 1) return InferResult::fail("depth must hold one number");
  if (!a.constants[1]) return InferResult::fail("depth must be a constant");
  const auto n = static_cast<int64_t>(std::trunc(a.constants[1]->data[0]));
  if (n < 1 || n > (int64_t{1} << 20)) return InferResult::fail("depth must be in [1, 2^20]");
  const TensorType& values = *a.inputs[2];
  if (values.rank() != 1 || values.shape[0] != 2) return InferResult::fail("values must be [off, on]");
  Shape out = indices.shape;
  out.insert(out.begin() + *ax, n);
  return {{TensorType{values.dtype, out}}, {}};
}

void oneHotKernel(KernelArgs& a) {
  const Tensor& indices = *a.inputs[0];
  const auto depth = static_cast<int64_t>(std::trunc(a.inputs[1]->data[0]));
  const double off = a.inputs[2]->data[0], on = a.inputs[2]->data[1];
  const Shape& out = a.outputs[0].type.shape;
  const size_t ax = static_cast<size_t>(*normalizeAxis(a.attrs.getInt("axis", -1), static_cast<int>(out.size())));
  const int64_t inner = product(out, ax + 1);
  for (double& v : a.outputs[0].data) v = off;
  for (size_t i = 0; i < indices.data.size(); ++i) {
    auto k = static_cast<int64_t>(std::trunc(indices.data[i]));
    if (k < 0) k += depth;
    if (k < 0 || k >= depth) continue;
    const int64_t outer = static_cast<int64_t>(i) / inner, rest = static_cast<int64_t>(i) % inner;
    a.outputs[0].data[static_cast<size_t>((outer * depth + k) * inner + rest)] = on;
  }
}

bool oneHotUnstable(const KernelArgs& a) {
  if (!isFloat(a.inputs[0]->type.dtype)) return false;
  for (double x : a.inputs[0]->data)
    if (distanceToInteger(x) < kStabilityMargin) return true;
  return false;
}

}  // namespace

const OpSpec& opOneHot() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "OneHot";
    t.sinceVersion = 11;
    t.minInputs = t.maxInputs = 3;
    t.dtypes = kIndexTypes;
    t.minRank = 1;  // ONNX's shape inference rejects scalar indices
    t.maxRank = 4;
    t.constantInputs = 0b010;
    t.attrs = {intAttr("axis", -5, 4)};
    t.acceptsFirst = acceptsIndices;
    t.sampleFirst = sampleIndices;
    t.firstRange = indexRange;
    t.sampleAttrs = sampleOneHot;
    t.nextInput = oneHotOperand;
    t.infer = inferOneHot;
    t.reference = oneHotKernel;
    t.unstable = oneHotUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
