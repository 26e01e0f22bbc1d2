// scatter_elements.cpp - ScatterElements (opset 16; reduction max and min from 18): a
// copy of the data with `updates` written (reduction none, add, mul, max or min) at the positions whose coordinate along `axis`
// (default 0) comes from `indices` and whose other coordinates are the update's own.
//
// indices (int32/int64, in [-n, n-1]) are constants with the updates' shape, no larger
// than the data; for reduction none no two updates of a line hit the same element (the
// result would be undefined), which the sampler ensures by drawing distinct positions per
// line and inference checks.
#include <algorithm>

#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

const std::vector<std::string_view> kReductions{"none", "add", "mul", "max", "min"};

size_t axisOf(const Attributes& attrs, int rank) { return static_cast<size_t>(*normalizeAxis(attrs.getInt("axis", 0), rank)); }

// Calls f(flat index into indices/updates, flat index into data) for every update.
template <typename F>
void forEachTarget(const Shape& data, const Tensor& idx, size_t axis, F f) {
  const Shape& shape = idx.type.shape;
  if (idx.data.empty()) return;
  const auto strides = stridesOf(data);
  std::vector<int64_t> index(shape.size(), 0);
  int64_t flat = 0;
  do {
    int64_t off = 0;
    for (size_t i = 0; i < shape.size(); ++i)
      off += (i == axis ? shapeops::indexWithin(idx.data[static_cast<size_t>(flat)], data[axis]) : index[i]) * strides[i];
    f(flat++, off);
  } while (nextIndex(index, shape));
}

void sampleScatter(OpDraft& d) {
  const int r = d.first().rank();
  if (d.rng->bernoulli(0.7)) d.attrs.setInt("axis", d.rng->uniformInt(-r, r - 1));
  if (d.first().dtype != DType::Bool && d.rng->bernoulli(0.5))
    d.attrs.setString("reduction", std::string(d.rng->pick(kReductions)));
}

InputPattern scatterOperand(const OpDraft& d) {
  Rng& rng = *d.rng;
  const Shape& data = d.first().shape;
  const size_t axis = axisOf(d.attrs, d.first().rank());
  if (d.inputTypes.size() == 1) {
    Shape shape = data;
    for (size_t i = 0; i < shape.size(); ++i)
      if (rng.bernoulli(0.3)) shape[i] = rng.uniformInt(1, data[i]);
    const int64_t n = data[axis], len = shape[axis];
    Tensor t(TensorType{rng.bernoulli(0.5) ? DType::Int32 : DType::Int64, shape});
    // Line by line along the axis: distinct positions (a permutation prefix), some negative.
    const int64_t inner = product(shape, axis + 1, shape.size());
    const int64_t outer = t.numel() / (len * inner);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        const auto perm = shapeops::randomPermutation(rng, static_cast<int>(n));
        for (int64_t j = 0; j < len; ++j) {
          int64_t v = perm[static_cast<size_t>(j)];
          if (rng.bernoulli(0.2)) v -= n;
          t.data[static_cast<size_t>((o * len + j) * inner + in)] = static_cast<double>(v);
        }
      }
    return InputPattern::constantTensor(std::move(t));
  }
  return InputPattern::exactly(TensorType{d.first().dtype, d.inputTypes[1].shape}, defaultRange(d.first().dtype));
}

InferResult inferScatter(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"axis", "reduction"});
  int64_t axis = 0;
  if (!err.empty() || !readInt(a.attrs, "axis", INT64_MIN, INT64_MAX, 0, axis, err)) return InferResult::fail(err);
  if (a.attrs.hasWrongKind<std::string>("reduction")) return InferResult::fail("reduction must be a string");
  const std::string reduction = a.attrs.getString("reduction", "none");
  if (std::find(kReductions.begin(), kReductions.end(), reduction) == kReductions.end())
    return InferResult::fail("unknown reduction " + reduction);
  const TensorType& x = *a.inputs[0];
  auto ax = normalizeAxis(axis, x.rank());
  if (!ax) return InferResult::fail("axis out of range");
  if (a.inputs.size() < 3 || !a.inputs[1] || !a.inputs[2]) return InferResult::fail("indices and updates are required");
  const TensorType& idx = *a.inputs[1];
  if (!shapeops::isIndexType(idx.dtype)) return InferResult::fail("indices must be int32 or int64");
  if (idx.rank() != x.rank()) return InferResult::fail("indices must have the data's rank");
  for (size_t i = 0; i < idx.shape.size(); ++i)
    if (idx.shape[i] > x.shape[i]) return InferResult::fail("indices are larger than the data");
  if (a.inputs[2]->dtype != x.dtype || a.inputs[2]->shape != idx.shape)
    return InferResult::fail("updates must have the data's dtype and the indices' shape");
  if (reduction != "none" && x.dtype == DType::Bool) return InferResult::fail("bool data takes reduction none only");
  if (const Tensor* c = a.constants[1]) {
    const auto n = static_cast<double>(x.shape[static_cast<size_t>(*ax)]);
    for (double v : c->data)
      if (v < -n || v > n - 1) return InferResult::fail("an index is out of range");
    if (reduction == "none") {
      std::vector<int64_t> targets;
      forEachTarget(x.shape, *c, static_cast<size_t>(*ax), [&](int64_t, int64_t off) { targets.push_back(off); });
      std::sort(targets.begin(), targets.end());
      if (std::adjacent_find(targets.begin(), targets.end()) != targets.end())
        return InferResult::fail("repeated targets with reduction none");
    }
  }
  return {{x}, {}};
}

void scatterKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const std::string reduction = a.attrs.getString("reduction", "none");
  a.outputs[0].data = x.data;
  forEachTarget(x.type.shape, *a.inputs[1], axisOf(a.attrs, x.type.rank()), [&](int64_t from, int64_t to) {
    double& out = a.outputs[0].data[static_cast<size_t>(to)];
    const double u = a.inputs[2]->data[static_cast<size_t>(from)];
    out = combineScatter(reduction, out, u);
  });
}

}  // namespace

const OpSpec& opScatterElements() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "ScatterElements";
    t.sinceVersion = 16;
    t.minInputs = t.maxInputs = 3;
    t.dtypes = kAllTypes;
    t.minRank = 1;
    t.constantInputs = 0b010;
    t.attrs = {intAttr("axis", -5, 4), stringAttr("reduction", kReductions)};
    t.sampleAttrs = sampleScatter;
    t.nextInput = scatterOperand;
    t.infer = inferScatter;
    t.reference = scatterKernel;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
