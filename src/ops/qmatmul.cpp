// qmatmul.cpp - MatMulInteger (opset 10: int32 result of (A - a_zero_point) x
// (B - b_zero_point)) and QLinearMatMul (opset 10: the same product scaled by
// a_scale * b_scale / y_scale, rounded half to even, plus y_zero_point, saturated), on
// 2-D int8/uint8 operands: A is M x K, B is K x N.
//
// Zero points and scales are constants. MatMulInteger's zero points are scalars or, for
// b, one per column; QLinearMatMul's are scalars. B is uint8 or int8 for a uint8 A and
// int8 for an int8 A (the combinations engines implement). QLinearMatMul's multiplier is
// formed in float32 as engines do, and a result within a hair of .5 is unstable.
#include "ops/nn_util.h"
#include "ops/quant_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;
using namespace quantsupport;

namespace {

// B: K x N, dtype from A's.
InputPattern rightOperand(const OpDraft& d) {
  const TensorType& a = d.first();
  const DType dtype = a.dtype == DType::UInt8 && d.rng->bernoulli(0.4) ? DType::Int8 : a.dtype;
  const TensorType type{dtype, {a.shape[1], d.rng->uniformInt(d.limits->minDim, d.limits->maxDim)}};
  return InputPattern::exactly(type, fullRange(dtype));
}

Tensor zeroPoints(Rng& rng, DType dtype, Shape shape) {
  return filled(dtype, std::move(shape), [&] { return sampleZeroPoint(rng, dtype); });
}

// The int32 product of row i of A and column j of B with zero points subtracted.
double dot(const Tensor& a, const Tensor& b, int64_t i, int64_t j, double azp, double bzp) {
  const int64_t k = a.type.shape[1], n = b.type.shape[1];
  double acc = 0;
  for (int64_t l = 0; l < k; ++l)
    acc += (a.data[static_cast<size_t>(i * k + l)] - azp) * (b.data[static_cast<size_t>(l * n + j)] - bzp);
  return acc;
}

// Checks A and B: 2-D, quantized, inner dims equal, B's dtype allowed for A's.
std::string checkOperands(const TensorType& a, const TensorType* b) {
  if (!b) return "B is missing";
  if (!isQuantType(b->dtype) || (a.dtype == DType::Int8 && b->dtype != DType::Int8)) return "B has the wrong dtype";
  if (b->rank() != 2 || b->shape[0] != a.shape[1]) return "B must be K x N";
  return "";
}

// A zero point (or scale) operand: present, of the dtype, scalar or (when allowed) 1-D of len.
double paramAt(const KernelArgs& a, size_t k, int64_t i) {
  if (k >= a.inputs.size() || !a.inputs[k]) return 0.0;
  const Tensor& t = *a.inputs[k];
  return t.data.size() == 1 ? t.data[0] : t.data[static_cast<size_t>(i)];
}

// ---- MatMulInteger ----

InputPattern matMulIntegerOperand(const OpDraft& d) {
  Rng& rng = *d.rng;
  switch (d.inputTypes.size()) {
    case 1: return rightOperand(d);
    case 2: return rng.bernoulli(0.3) ? InputPattern::omitted() : InputPattern::constantTensor(zeroPoints(rng, d.first().dtype, {}));
    default: {
      if (rng.bernoulli(0.3)) return InputPattern::omitted();
      const TensorType& b = d.inputTypes[1];
      return InputPattern::constantTensor(zeroPoints(rng, b.dtype, rng.bernoulli(0.3) ? Shape{b.shape[1]} : Shape{}));
    }
  }
}

InferResult inferMatMulInteger(const InferArgs& a) {
  if (std::string err = unknownAttr(a.attrs, {}); !err.empty()) return InferResult::fail(err);
  const TensorType& x = *a.inputs[0];
  const TensorType* b = a.inputs.size() > 1 ? a.inputs[1] : nullptr;
  if (auto e = checkOperands(x, b); !e.empty()) return InferResult::fail(e);
  if (auto e = checkQuantParam(a, 2, x.dtype, 0, "a_zero_point"); !e.empty()) return InferResult::fail(e);
  if (auto e = checkQuantParam(a, 3, b->dtype, b->shape[1], "b_zero_point"); !e.empty()) return InferResult::fail(e);
  return {{TensorType{DType::Int32, {x.shape[0], b->shape[1]}}}, {}};
}

void matMulIntegerKernel(KernelArgs& a) {
  const int64_t m = a.inputs[0]->type.shape[0], n = a.inputs[1]->type.shape[1];
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      a.outputs[0].data[static_cast<size_t>(i * n + j)] =
          dot(*a.inputs[0], *a.inputs[1], i, j, paramAt(a, 2, i), paramAt(a, 3, j));
}

// ---- QLinearMatMul ----
// Operands: 0 a, 1 a_scale, 2 a_zero_point, 3 b, 4 b_scale, 5 b_zero_point, 6 y_scale, 7 y_zero_point.

InputPattern qlinearOperand(const OpDraft& d) {
  Rng& rng = *d.rng;
  const size_t k = d.inputTypes.size();
  switch (k) {
    case 1:
    case 4: return InputPattern::constantTensor(filled(DType::Float32, {}, [&] { return sampleScale(rng, 0.005, 0.05); }));
    case 2: return InputPattern::constantTensor(zeroPoints(rng, d.first().dtype, {}));
    case 3: return rightOperand(d);
    case 5: return InputPattern::constantTensor(zeroPoints(rng, d.inputTypes[3].dtype, {}));
    case 6: {
      // A y_scale putting typical products well inside the output range.
      const double ab = d.constants[1]->data[0] * d.constants[4]->data[0];
      return InputPattern::constantTensor(filled(DType::Float32, {}, [&] { return sampleScale(rng, ab * 50, ab * 1000); }));
    }
    default: return InputPattern::constantTensor(zeroPoints(rng, d.first().dtype, {}));
  }
}

InferResult inferQLinearMatMul(const InferArgs& a) {
  if (std::string err = unknownAttr(a.attrs, {}); !err.empty()) return InferResult::fail(err);
  for (size_t k = 1; k < 8; ++k)
    if (k >= a.inputs.size() || !a.inputs[k]) return InferResult::fail("all eight operands are required");
  const TensorType& x = *a.inputs[0];
  const TensorType& b = *a.inputs[3];
  if (auto e = checkOperands(x, &b); !e.empty()) return InferResult::fail(e);
  for (size_t k : {1, 4, 6}) {
    if (auto e = checkQuantParam(a, k, DType::Float32, 0, "a scale"); !e.empty()) return InferResult::fail(e);
    if (a.constants[k] && !(a.constants[k]->data[0] > 0)) return InferResult::fail("scales must be positive");
  }
  if (auto e = checkQuantParam(a, 2, x.dtype, 0, "a_zero_point"); !e.empty()) return InferResult::fail(e);
  if (auto e = checkQuantParam(a, 5, b.dtype, 0, "b_zero_point"); !e.empty()) return InferResult::fail(e);
  if (!isQuantType(a.inputs[7]->dtype) || a.inputs[7]->numel() != 1 || a.inputs[7]->rank() > 1)
    return InferResult::fail("y_zero_point must be an int8/uint8 scalar");
  return {{TensorType{a.inputs[7]->dtype, {x.shape[0], b.shape[1]}}}, {}};
}

// a_scale * b_scale / y_scale in float32, as engines form the requantization multiplier.
double multiplier(const KernelArgs& a) {
  const auto ab = static_cast<float>(a.inputs[1]->data[0]) * static_cast<float>(a.inputs[4]->data[0]);
  return ab / static_cast<float>(a.inputs[6]->data[0]);
}

template <typename F>
void forEachQLinearResult(const KernelArgs& a, F f) {
  const int64_t m = a.inputs[0]->type.shape[0], n = a.inputs[3]->type.shape[1];
  const double scale = multiplier(a);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      f(static_cast<size_t>(i * n + j), dot(*a.inputs[0], *a.inputs[3], i, j, a.inputs[2]->data[0], a.inputs[5]->data[0]) * scale);
}

void qlinearMatMulKernel(KernelArgs& a) {
  const DType to = a.outputs[0].type.dtype;
  const double zp = a.inputs[7]->data[0];
  forEachQLinearResult(a, [&](size_t at, double real) { a.outputs[0].data[at] = requantize(static_cast<float>(real), zp, to); });
}

bool qlinearMatMulUnstable(const KernelArgs& a) {
  const DType to = a.inputs[7]->type.dtype;
  bool unstable = false;
  forEachQLinearResult(a, [&](size_t, double real) { unstable = unstable || nearRoundingBoundary(real, a.inputs[7]->data[0], to); });
  return unstable;
}

OpSpec qmatmulSpec(std::string_view name, int inputs, uint32_t constants) {
  OpSpec t;
  t.name = name;
  t.sinceVersion = 10;
  t.minInputs = name == "MatMulInteger" ? 2 : inputs;
  t.maxInputs = inputs;
  t.dtypes = kQuantTypes;
  t.minRank = t.maxRank = 2;
  t.constantInputs = constants;
  t.firstRange = fullRange;
  return t;
}

// Each result element sums over A's last dim.
double rowWork(const WorkArgs& a) {
  const TensorType& x = *a.inputs[0];
  return elementCount(a.outputs[0]) * static_cast<double>(x.shape.empty() ? 1 : x.shape.back());
}

}  // namespace

const OpSpec& opMatMulInteger() {
  static const OpSpec s = [] {
    OpSpec t = qmatmulSpec("MatMulInteger", 4, 0b1100);
    t.nextInput = matMulIntegerOperand;
    t.infer = inferMatMulInteger;
    t.reference = matMulIntegerKernel;
    t.work = rowWork;
    return t;
  }();
  return s;
}

const OpSpec& opQLinearMatMul() {
  static const OpSpec s = [] {
    OpSpec t = qmatmulSpec("QLinearMatMul", 8, 0b11110110);
    t.nextInput = qlinearOperand;
    t.infer = inferQLinearMatMul;
    t.reference = qlinearMatMulKernel;
    t.work = rowWork;
    t.unstable = qlinearMatMulUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
