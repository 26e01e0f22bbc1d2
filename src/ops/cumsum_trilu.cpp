// cumsum_trilu.cpp - CumSum (opset 14: axis as a constant 0-D int32/int64 input,
// exclusive and reverse attributes) and Trilu (opset 14: optional constant 0-D int64
// diagonal offset k, upper attribute, on the last two dims).
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace shapeops;

namespace {

// A scalar operand: 0-D, or 1-D with one element (what ONNX Runtime also takes).
bool isScalarLike(const TensorType& t) { return t.rank() == 0 || (t.rank() == 1 && t.shape[0] == 1); }

void cumsumAttrs(OpDraft& d) {
  for (const char* name : {"exclusive", "reverse"}) {
    const double u = d.rng->uniformReal(0, 1);
    if (u < 0.25) d.attrs.setInt(name, 0);
    else if (u < 0.65) d.attrs.setInt(name, 1);
  }
}

InputPattern cumsumAxis(const OpDraft& d) {
  const int r = d.first().rank();
  const int64_t axis = maybeNegative(*d.rng, d.rng->uniformInt(0, r - 1), r);
  Tensor t(TensorType{d.rng->bernoulli(0.3) ? DType::Int32 : DType::Int64, {}}, {static_cast<double>(axis)});
  return InputPattern::constantTensor(std::move(t));
}

std::optional<int> cumsumAxisOf(const Tensor& axis, int rank) {
  return normalizeAxis(saturatingInt(axis.data[0]), rank);
}

InferResult inferCumSum(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {"exclusive", "reverse"}); !e.empty()) return InferResult::fail(e);
  for (const char* name : {"exclusive", "reverse"}) {
    if (args.attrs.hasWrongKind<int64_t>(name)) return InferResult::fail(std::string(name) + " must be an int");
    const int64_t v = args.attrs.getInt(name, 0);
    if (v != 0 && v != 1) return InferResult::fail(std::string(name) + " must be 0 or 1");
  }
  const TensorType* axis = args.inputs[1];
  if (!axis || !isIndexType(axis->dtype) || !isScalarLike(*axis))
    return InferResult::fail("axis must be an int32 or int64 scalar");
  if (!args.constants[1] || !cumsumAxisOf(*args.constants[1], args.inputs[0]->rank()))
    return InferResult::fail("axis is out of range");
  return {{*args.inputs[0]}, {}};
}

void cumsumKernel(KernelArgs& args) {
  const Tensor& x = *args.inputs[0];
  Tensor& out = args.outputs[0];
  const Shape& shape = x.type.shape;
  const auto a = static_cast<size_t>(*cumsumAxisOf(*args.inputs[1], x.type.rank()));
  const bool exclusive = args.attrs.getInt("exclusive", 0) == 1;
  const bool reverse = args.attrs.getInt("reverse", 0) == 1;
  const int64_t outer = product(shape, 0, a), n = shape[a], inner = product(shape, a + 1, shape.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double sum = 0;
      for (int64_t step = 0; step < n; ++step) {
        const int64_t j = reverse ? n - 1 - step : step;
        const auto at = static_cast<size_t>((o * n + j) * inner + i);
        if (exclusive) {
          out.data[at] = sum;
          sum += x.data[at];
        } else {
          sum += x.data[at];
          out.data[at] = sum;
        }
      }
    }
}

void triluAttrs(OpDraft& d) {
  const double u = d.rng->uniformReal(0, 1);
  if (u < 0.3) d.attrs.setInt("upper", 0);
  else if (u < 0.6) d.attrs.setInt("upper", 1);
}

InputPattern triluK(const OpDraft& d) {
  Rng& rng = *d.rng;
  if (rng.bernoulli(0.25)) return InputPattern::omitted();
  const Shape& s = d.first().shape;
  const int64_t rows = s[s.size() - 2], cols = s[s.size() - 1];
  // Mostly within the matrix, sometimes past either corner (all or nothing kept).
  const int64_t k = rng.bernoulli(0.85) ? rng.uniformInt(-rows, cols) : rng.uniformInt(-rows - 3, cols + 3);
  return InputPattern::constantTensor(int64Scalar(k));
}

InferResult inferTrilu(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {"upper"}); !e.empty()) return InferResult::fail(e);
  if (args.attrs.hasWrongKind<int64_t>("upper")) return InferResult::fail("upper must be an int");
  const int64_t upper = args.attrs.getInt("upper", 1);
  if (upper != 0 && upper != 1) return InferResult::fail("upper must be 0 or 1");
  if (args.inputs.size() > 1 && args.inputs[1]) {
    const TensorType& k = *args.inputs[1];
    if (k.dtype != DType::Int64 || !isScalarLike(k)) return InferResult::fail("k must be an int64 scalar");
  }
  return {{*args.inputs[0]}, {}};
}

void triluKernel(KernelArgs& args) {
  const Tensor& x = *args.inputs[0];
  Tensor& out = args.outputs[0];
  const Shape& s = x.type.shape;
  const int64_t rows = s[s.size() - 2], cols = s[s.size() - 1];
  const int64_t k = args.inputs.size() > 1 && args.inputs[1] ? saturatingInt(args.inputs[1]->data[0]) : 0;
  const bool upper = args.attrs.getInt("upper", 1) == 1;
  const int64_t matrices = product(s, 0, s.size() - 2);
  for (int64_t m = 0; m < matrices; ++m)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        const auto at = static_cast<size_t>((m * rows + i) * cols + j);
        // Compared in double: k may be huge.
        const double offset = static_cast<double>(j) - static_cast<double>(i);
        const bool keep = upper ? offset >= static_cast<double>(k) : offset <= static_cast<double>(k);
        out.data[at] = keep ? x.data[at] : 0.0;
      }
}

}  // namespace

const OpSpec& opCumSum() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "CumSum";
    s.sinceVersion = 14;
    s.minInputs = s.maxInputs = 2;
    s.dtypes = {DType::Float32, DType::Float64, DType::Int32, DType::Int64};
    s.minRank = 1;
    s.constantInputs = 0b10;
    s.attrs = {intAttr("exclusive", 0, 1), intAttr("reverse", 0, 1)};
    s.sampleAttrs = cumsumAttrs;
    s.nextInput = cumsumAxis;
    s.infer = inferCumSum;
    s.reference = cumsumKernel;
    return s;
  }();
  return s;
}

const OpSpec& opTrilu() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Trilu";
    s.sinceVersion = 14;
    s.minInputs = 1;
    s.maxInputs = 2;
    s.dtypes = kAllTypes;
    s.minRank = 2;
    s.constantInputs = 0b10;
    s.attrs = {intAttr("upper", 0, 1)};
    s.sampleAttrs = triluAttrs;
    s.nextInput = triluK;
    s.infer = inferTrilu;
    s.reference = triluKernel;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
