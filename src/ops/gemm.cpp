// gemm.cpp - Gemm (opset 13 schema): Y = alpha * A' B' + beta * C with A' = A or A^T
// (transA), B' = B or B^T (transB), and an optional C unidirectionally broadcastable to
// the M x N result. Integer Gemm gets integral alpha/beta so results stay exact.
#include <cmath>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

const std::vector<DType> kGemmTypes{DType::Float32, DType::Float64, DType::Int32, DType::Int64};

// True when `c` broadcasts to M x N without changing it (right-aligned, dims equal or 1).
bool broadcastsTo(const Shape& c, int64_t m, int64_t n) {
  if (c.size() > 2) return false;
  const Shape target{m, n};
  for (size_t i = 0; i < c.size(); ++i) {
    const int64_t t = target[2 - c.size() + i];
    if (c[i] != t && c[i] != 1) return false;
  }
  return true;
}

InferResult inferGemm(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"alpha", "beta", "transA", "transB"});
  int64_t ta = 0, tb = 0;
  double alpha = 1, beta = 1;
  if (!err.empty() || !readInt(a.attrs, "transA", 0, 1, 0, ta, err) || !readInt(a.attrs, "transB", 0, 1, 0, tb, err) ||
      !readFloat(a.attrs, "alpha", 1.0, alpha, err) || !readFloat(a.attrs, "beta", 1.0, beta, err))
    return InferResult::fail(err);
  const TensorType& at = *a.inputs[0];
  if (a.inputs.size() < 2 || !a.inputs[1]) return InferResult::fail("B is required");
  const TensorType& bt = *a.inputs[1];
  if (bt.dtype != at.dtype || bt.rank() != 2) return InferResult::fail("B must be a matrix of A's dtype");
  const int64_t m = ta ? at.shape[1] : at.shape[0], k = ta ? at.shape[0] : at.shape[1];
  const int64_t kb = tb ? bt.shape[1] : bt.shape[0], n = tb ? bt.shape[0] : bt.shape[1];
  if (k != kb) return InferResult::fail("inner dimensions differ");
  if (a.inputs.size() > 2 && a.inputs[2]) {
    const TensorType& c = *a.inputs[2];
    if (c.dtype != at.dtype) return InferResult::fail("C must have A's dtype");
    if (!broadcastsTo(c.shape, m, n)) return InferResult::fail("C does not broadcast to M x N");
  }
  return {{TensorType{at.dtype, Shape{m, n}}}, {}};
}

void sampleGemmAttrs(OpDraft& d) {
  Rng& rng = *d.rng;
  for (const char* name : {"transA", "transB"}) {
    const int64_t t = rng.uniformInt(0, 1);
    if (t == 1 || rng.bernoulli(0.4)) d.attrs.setInt(name, t);
  }
  const bool integral = isInteger(d.first().dtype);
  for (const char* name : {"alpha", "beta"})
    if (rng.bernoulli(0.5)) d.attrs.setFloat(name, integral ? static_cast<double>(rng.uniformInt(-2, 2)) : rng.uniformReal(-2, 2));
}

InputPattern nextGemmInput(const OpDraft& d) {
  const TensorType a = d.first();
  const bool ta = d.attrs.getInt("transA", 0) == 1, tb = d.attrs.getInt("transB", 0) == 1;
  const int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
  const Limits limits = *d.limits;
  InputPattern p;
  p.range = defaultRange(a.dtype);
  if (d.inputTypes.size() == 1) {  // B: K x N or N x K
    p.accepts = [a, k, tb](const TensorType& t) {
      return t.dtype == a.dtype && t.rank() == 2 && (tb ? t.shape[1] : t.shape[0]) == k;
    };
    p.sample = [a, k, tb, limits](Rng& rng) {
      const int64_t n = rng.uniformInt(limits.minDim, limits.maxDim);
      return TensorType{a.dtype, tb ? Shape{n, k} : Shape{k, n}};
    };
    return p;
  }
  const int64_t n = tb ? d.inputTypes[1].shape[0] : d.inputTypes[1].shape[1];
  p.accepts = [a, m, n](const TensorType& t) { return t.dtype == a.dtype && broadcastsTo(t.shape, m, n); };
  p.sample = [a, m, n](Rng& rng) {
    const auto rank = rng.uniformInt(0, 2);
    Shape s;
    if (rank == 2) s.push_back(rng.bernoulli(0.3) ? 1 : m);
    if (rank >= 1) s.push_back(rng.bernoulli(0.3) ? 1 : n);
    return TensorType{a.dtype, s};
  };
  return p;
}

void gemmKernel(KernelArgs& args) {
  const Tensor& a = *args.inputs[0];
  const Tensor& b = *args.inputs[1];
  const Tensor* c = args.inputs.size() > 2 ? args.inputs[2] : nullptr;
  const bool ta = args.attrs.getInt("transA", 0) == 1, tb = args.attrs.getInt("transB", 0) == 1;
  const double alpha = args.attrs.getFloat("alpha", 1.0), beta = args.attrs.getFloat("beta", 1.0);
  Tensor& y = args.outputs[0];
  const int64_t m = y.type.shape[0], n = y.type.shape[1], k = ta ? a.type.shape[0] : a.type.shape[1];
  const int64_t lda = a.type.shape[1], ldb = b.type.shape[1];
  std::vector<int64_t> index(2);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t l = 0; l < k; ++l)
        acc += a.data[static_cast<size_t>(ta ? l * lda + i : i * lda + l)] *
               b.data[static_cast<size_t>(tb ? j * ldb + l : l * ldb + j)];
      double v = alpha * acc;
      if (c) {
        index[0] = i;
        index[1] = j;
        v += beta * c->data[static_cast<size_t>(broadcastOffset(c->type.shape, y.type.shape, index))];
      }
      y.data[static_cast<size_t>(i * n + j)] = v;
    }
}

// Each result element sums over K (A has K x M when transposed).
double gemmWork(const WorkArgs& a) {
  const TensorType& x = *a.inputs[0];
  const int64_t k = x.shape[a.attrs.getInt("transA", 0) ? 0 : 1];
  return elementCount(a.outputs[0]) * static_cast<double>(k);
}

}  // namespace

const OpSpec& opGemm() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Gemm";
    s.sinceVersion = 13;
    s.minInputs = 2;
    s.maxInputs = 3;
    s.dtypes = kGemmTypes;
    s.minRank = s.maxRank = 2;
    s.attrs = {floatAttr("alpha", -2, 2), floatAttr("beta", -2, 2), intAttr("transA", 0, 1),
               intAttr("transB", 0, 1)};
    s.sampleAttrs = sampleGemmAttrs;
    s.nextInput = nextGemmInput;
    s.infer = inferGemm;
    s.reference = gemmKernel;
    s.work = gemmWork;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
