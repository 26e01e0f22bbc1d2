// matmul.cpp - MatMul (opset 13 schema) with numpy semantics: a 1-D operand on either
// side is promoted to a matrix (a row on the left, a column on the right) and the
// promoted dim dropped from the result; leading (batch) dims broadcast.
#include <algorithm>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

const std::vector<DType> kMatMulTypes{DType::Float32, DType::Float64, DType::Int32, DType::Int64};

// The operands as batch x M x K and batch x K x N.
struct Product {
  Shape batchA, batchB, batch;
  int64_t m = 1, k = 1, n = 1;
  bool rowVector = false, columnVector = false;  // A, B were 1-D
  Shape out;
};

bool plan(const Shape& a, const Shape& b, Product& p, std::string& err) {
  p.rowVector = a.size() == 1;
  p.columnVector = b.size() == 1;
  p.batchA = p.rowVector ? Shape{} : Shape(a.begin(), a.end() - 2);
  p.batchB = p.columnVector ? Shape{} : Shape(b.begin(), b.end() - 2);
  p.m = p.rowVector ? 1 : a[a.size() - 2];
  p.k = a.back();
  p.n = p.columnVector ? 1 : b.back();
  const int64_t kb = p.columnVector ? b[0] : b[b.size() - 2];
  if (p.k != kb) {
    err = "inner dimensions differ";
    return false;
  }
  auto batch = broadcastShapes(p.batchA, p.batchB);
  if (!batch) {
    err = "batch dimensions do not broadcast";
    return false;
  }
  p.batch = *batch;
  p.out = p.batch;
  if (!p.rowVector) p.out.push_back(p.m);
  if (!p.columnVector) p.out.push_back(p.n);
  return true;
}

InferResult inferMatMul(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {});
  if (!err.empty()) return InferResult::fail(err);
  const TensorType& x = *a.inputs[0];
  if (a.inputs.size() < 2 || !a.inputs[1]) return InferResult::fail("B is required");
  const TensorType& y = *a.inputs[1];
  if (y.dtype != x.dtype || y.rank() < 1) return InferResult::fail("B must have A's dtype and rank >= 1");
  Product p;
  if (!plan(x.shape, y.shape, p, err)) return InferResult::fail(err);
  return {{TensorType{x.dtype, p.out}}, {}};
}

InputPattern nextMatMulInput(const OpDraft& d) {
  const TensorType a = d.first();
  const Limits limits = *d.limits;
  InputPattern p;
  p.range = defaultRange(a.dtype);
  p.accepts = [a, limits](const TensorType& t) {
    return t.rank() <= limits.maxRank && inferAccepts(inferMatMul, {a}, t, Attributes{});
  };
  p.sample = [a, limits](Rng& rng) {
    const int64_t k = a.shape.back();
    if (rng.bernoulli(0.2)) return TensorType{a.dtype, Shape{k}};
    const Shape batchA = a.rank() == 1 ? Shape{} : Shape(a.shape.begin(), a.shape.end() - 2);
    const auto rank = static_cast<size_t>(rng.uniformInt(2, std::max(2, limits.maxRank)));
    Shape s(rank);
    // Batch dims right-aligned against A's: equal, 1, or anything where A has 1 or nothing.
    const size_t nb = rank - 2;
    for (size_t i = 0; i < nb; ++i) {
      const size_t fromEnd = nb - i;  // 1 = last batch dim
      const bool paired = fromEnd <= batchA.size();
      const int64_t ad = paired ? batchA[batchA.size() - fromEnd] : 1;
      if (paired && ad != 1)
        s[i] = rng.bernoulli(0.25) ? 1 : ad;
      else
        s[i] = rng.uniformInt(limits.minDim, limits.maxDim);
    }
    s[nb] = k;
    s[nb + 1] = rng.uniformInt(limits.minDim, limits.maxDim);
    return TensorType{a.dtype, s};
  };
  return p;
}

void matMulKernel(KernelArgs& args) {
  const Tensor& a = *args.inputs[0];
  const Tensor& b = *args.inputs[1];
  Tensor& y = args.outputs[0];
  Product p;
  std::string err;
  plan(a.type.shape, b.type.shape, p, err);
  const int64_t m = p.m, k = p.k, n = p.n;
  if (y.numel() == 0) return;  // empty tensors (imported models)
  std::vector<int64_t> index(p.batch.size(), 0);
  int64_t flat = 0;
  do {
    const double* pa = a.data.data() + broadcastOffset(p.batchA, p.batch, index) * m * k;
    const double* pb = b.data.data() + broadcastOffset(p.batchB, p.batch, index) * k * n;
    double* py = y.data.data() + flat * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t l = 0; l < k; ++l) acc += pa[i * k + l] * pb[l * n + j];
        py[i * n + j] = acc;
      }
    ++flat;
  } while (nextIndex(index, p.batch));
}

// Each result element sums over A's last dim.
double rowWork(const WorkArgs& a) {
  const TensorType& x = *a.inputs[0];
  return elementCount(a.outputs[0]) * static_cast<double>(x.shape.empty() ? 1 : x.shape.back());
}

}  // namespace

const OpSpec& opMatMul() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "MatMul";
    s.sinceVersion = 13;
    s.minInputs = s.maxInputs = 2;
    s.dtypes = kMatMulTypes;
    s.minRank = 1;
    s.maxRank = 5;
    s.nextInput = nextMatMulInput;
    s.infer = inferMatMul;
    s.reference = matMulKernel;
    s.work = rowWork;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
