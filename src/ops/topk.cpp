// topk.cpp - TopK (opset 11): the k largest (or smallest) elements along `axis` (default
// -1) and their int64 indices, K a constant 1-D int64 tensor of one element.
//
// Only sorted = 1 is generated and accepted: with sorted = 0 the order of the results is
// unspecified, so no two engines need agree. Equal values come lower index first (as the
// schema says). On floats a near tie among the k + 1 best values of a line is unstable:
// float32 rounding upstream could swap the pair (and so the indices, or which one makes
// the cut), like ArgMax's ties.
#include <algorithm>
#include <numeric>

#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

const std::vector<DType> kTopKTypes{DType::Float32, DType::Float64, DType::Int32, DType::Int64,
                                    DType::Int8,    DType::UInt8};

size_t topkAxis(const Attributes& attrs, int rank) { return static_cast<size_t>(*normalizeAxis(attrs.getInt("axis", -1), rank)); }

void sampleTopK(OpDraft& d) {
  const int rank = d.first().rank();
  if (d.rng->bernoulli(0.6)) d.attrs.setInt("axis", d.rng->uniformInt(-rank, rank - 1));
  if (d.rng->bernoulli(0.5)) d.attrs.setInt("largest", d.rng->uniformInt(0, 1));
  if (d.rng->bernoulli(0.3)) d.attrs.setInt("sorted", 1);
}

InputPattern topkK(const OpDraft& d) {
  const int64_t n = d.first().shape[topkAxis(d.attrs, d.first().rank())];
  return InputPattern::constantTensor(int64Tensor({d.rng->uniformInt(1, n)}));
}

InferResult inferTopK(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"axis", "largest", "sorted"});
  int64_t axis = -1, v = 0;
  if (!err.empty() || !readInt(a.attrs, "axis", INT64_MIN, INT64_MAX, -1, axis, err) ||
      !readInt(a.attrs, "largest", 0, 1, 1, v, err) || !readInt(a.attrs, "sorted", 1, 1, 1, v, err))
    return InferResult::fail(err.find("sorted") != std::string::npos ? "sorted = 0 (unspecified order) is not modelled" : err);
  const TensorType& x = *a.inputs[0];
  auto ax = normalizeAxis(axis, x.rank());
  if (!ax) return InferResult::fail("axis out of range");
  if (auto e = shapeops::checkIndexVector(a, 1, "K"); !e.empty()) return InferResult::fail(e);
  if (a.constants[1]->data.size() != 1) return InferResult::fail("K must hold one element");
  const auto k = static_cast<int64_t>(a.constants[1]->data[0]);
  Shape out = x.shape;
  if (k < 0 || k > out[static_cast<size_t>(*ax)]) return InferResult::fail("K is out of range");
  out[static_cast<size_t>(*ax)] = k;
  return {{TensorType{x.dtype, out}, TensorType{DType::Int64, out}}, {}};
}

// Positions of a line in result order: best first, equal values lower index first.
void rankLine(const double* p, int64_t stride, int64_t len, bool largest, std::vector<int64_t>& order) {
  order.resize(static_cast<size_t>(len));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) {
    return largest ? p[i * stride] > p[j * stride] : p[i * stride] < p[j * stride];
  });
}

void topkKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const size_t axis = topkAxis(a.attrs, x.type.rank());
  const bool largest = a.attrs.getInt("largest", 1) == 1;
  const int64_t k = a.outputs[0].type.shape[axis], n = x.type.shape[axis];
  const int64_t inner = product(x.type.shape, axis + 1);
  std::vector<int64_t> order;
  forEachLine(x.type.shape, axis, [&](int64_t start, int64_t stride, int64_t len, int64_t) {
    rankLine(x.data.data() + start, stride, len, largest, order);
    // The output line starts where the input's does, with k instead of n along the axis.
    const int64_t outStart = (start / (n * inner)) * k * inner + start % inner;
    for (int64_t j = 0; j < k; ++j) {
      const auto at = static_cast<size_t>(outStart + j * stride);
      a.outputs[0].data[at] = x.data[static_cast<size_t>(start + order[static_cast<size_t>(j)] * stride)];
      a.outputs[1].data[at] = static_cast<double>(order[static_cast<size_t>(j)]);
    }
  });
}

bool topkUnstable(const KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  if (!isFloat(x.type.dtype)) return false;
  const size_t axis = topkAxis(a.attrs, x.type.rank());
  const bool largest = a.attrs.getInt("largest", 1) == 1;
  const auto k = static_cast<int64_t>(a.inputs[1]->data[0]);
  bool unstable = false;
  std::vector<int64_t> order;
  forEachLine(x.type.shape, axis, [&](int64_t start, int64_t stride, int64_t len, int64_t) {
    const double* p = x.data.data() + start;
    rankLine(p, stride, len, largest, order);
    for (int64_t j = 0; j + 1 < std::min(k + 1, len); ++j) {
      const double u = p[order[static_cast<size_t>(j)] * stride], v = p[order[static_cast<size_t>(j + 1)] * stride];
      if (std::abs(u - v) < kStabilityMargin * std::max({1.0, std::abs(u), std::abs(v)})) unstable = true;
    }
  });
  return unstable;
}

}  // namespace

const OpSpec& opTopK() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "TopK";
    t.sinceVersion = 11;
    t.minInputs = t.maxInputs = 2;
    t.dtypes = kTopKTypes;
    t.minRank = 1;
    t.constantInputs = 0b10;
    t.attrs = {intAttr("axis", -5, 4), intAttr("largest", 0, 1), intAttr("sorted", 1, 1)};
    t.sampleAttrs = sampleTopK;
    t.nextInput = topkK;
    t.infer = inferTopK;
    t.reference = topkKernel;
    t.unstable = topkUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
