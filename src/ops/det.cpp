// det.cpp - Det (opset 11): the determinant of each trailing M x M matrix of a float
// tensor of shape [*, M, M], by LU decomposition with partial pivoting in double.
//
// A determinant that is small next to Hadamard's bound (the product of the rows' norms)
// comes from cancellation, so float32 rounding of the inputs moves it by a large relative
// amount: such matrices are unstable.
#include <cmath>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

bool acceptsSquare(const TensorType& t, const Limits&) { return t.rank() >= 2 && t.shape[t.shape.size() - 1] == t.shape[t.shape.size() - 2]; }

TensorType sampleSquare(Rng& rng, const Limits& limits, DType dtype) {
  const int rank = static_cast<int>(rng.uniformInt(2, std::max(2, std::min(4, limits.maxRank))));
  Shape s = sampleShape(rng, limits, rank);
  s[s.size() - 1] = s[s.size() - 2] = std::min<int64_t>(s.back(), 4);
  return {dtype, s};
}

InferResult inferDet(const InferArgs& a) {
  if (std::string err = unknownAttr(a.attrs, {}); !err.empty()) return InferResult::fail(err);
  const TensorType& x = *a.inputs[0];
  if (!acceptsSquare(x, Limits{})) return InferResult::fail("the last two dims must be equal");
  return {{TensorType{x.dtype, Shape(x.shape.begin(), x.shape.end() - 2)}}, {}};
}

// Calls f(matrix index, determinant, Hadamard bound) for every matrix.
template <typename F>
void forEachMatrix(const Tensor& x, F f) {
  const auto m = static_cast<size_t>(x.type.shape.back());
  const size_t count = m == 0 ? 0 : x.data.size() / (m * m);
  std::vector<double> lu(m * m);
  for (size_t k = 0; k < count; ++k) {
    std::copy(x.data.begin() + static_cast<ptrdiff_t>(k * m * m), x.data.begin() + static_cast<ptrdiff_t>((k + 1) * m * m), lu.begin());
    double bound = 1.0;
    for (size_t r = 0; r < m; ++r) {
      double norm = 0;
      for (size_t c = 0; c < m; ++c) norm += lu[r * m + c] * lu[r * m + c];
      bound *= std::sqrt(norm);
    }
    double det = 1.0;
    for (size_t c = 0; c < m && det != 0; ++c) {
      size_t pivot = c;
      for (size_t r = c + 1; r < m; ++r)
        if (std::abs(lu[r * m + c]) > std::abs(lu[pivot * m + c])) pivot = r;
      if (lu[pivot * m + c] == 0) {
        det = 0;
        break;
      }
      if (pivot != c) {
        for (size_t j = 0; j < m; ++j) std::swap(lu[pivot * m + j], lu[c * m + j]);
        det = -det;
      }
      det *= lu[c * m + c];
      for (size_t r = c + 1; r < m; ++r) {
        const double factor = lu[r * m + c] / lu[c * m + c];
        for (size_t j = c; j < m; ++j) lu[r * m + j] -= factor * lu[c * m + j];
      }
    }
    f(k, det, bound);
  }
}

void detKernel(KernelArgs& a) {
  forEachMatrix(*a.inputs[0], [&](size_t k, double det, double) { a.outputs[0].data[k] = det; });
}

bool detUnstable(const KernelArgs& a) {
  bool unstable = false;
  forEachMatrix(*a.inputs[0], [&](size_t, double det, double bound) {
    if (bound > 0 && std::abs(det) < 1e-2 * bound) unstable = true;  // an exact 0 from singular rows too
  });
  return unstable;
}

// Elimination on each n x n matrix: n^3 steps.
double eliminationWork(const WorkArgs& a) {
  const TensorType& x = *a.inputs[0];
  return elementCount(x) * static_cast<double>(x.shape.back());
}

}  // namespace

const OpSpec& opDet() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "Det";
    t.sinceVersion = 11;
    t.dtypes = kFloatTypes;
    t.minRank = 2;
    t.acceptsFirst = acceptsSquare;
    t.sampleFirst = sampleSquare;
    t.infer = inferDet;
    t.reference = detKernel;
    t.work = eliminationWork;
    t.unstable = detUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
