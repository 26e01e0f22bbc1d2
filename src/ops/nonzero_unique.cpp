// nonzero_unique.cpp - NonZero (opset 13: the int64 [rank, count] indices of the non-zero
// elements, row-major order) and Unique (opset 11: the distinct elements, or with `axis`
// the distinct slices, sorted ascending when `sorted` = 1 (default) or in order of first
// occurrence, with the first-occurrence indices, each element's index into the result
// (inverse_indices) and the counts).
//
// Their result shapes depend on the input's values, and GraphIR shapes are static: the
// input must be a constant (an initializer) so the shape is known when the model is
// generated. The generator draws it with zeros and repeats on purpose (small integers,
// quarter steps for floats); a constant with no non-zero element is not drawn (the
// generator makes no empty values).
#include <algorithm>
#include <map>
#include <numeric>

#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

// A constant of a random type and shape whose elements repeat: integers of [-2, 2] (bool
// 0/1), floats on a grid of 1/2; at least one element is non-zero.
Tensor sampleRepeating(Rng& rng, const Limits& limits, const std::vector<DType>& types) {
  const DType dtype = sampleDType(rng, limits, types);
  const int rank = static_cast<int>(rng.uniformInt(1, std::min(3, limits.maxRank)));
  Tensor t(TensorType{dtype, sampleShape(rng, limits, rank)});
  const int64_t lo = dtype == DType::Bool || dtype == DType::UInt8 ? 0 : -2, hi = dtype == DType::Bool ? 1 : 2;
  for (double& v : t.data) v = static_cast<double>(rng.uniformInt(lo, hi)) * (isFloat(dtype) ? 0.5 : 1.0);
  t.data[static_cast<size_t>(rng.uniformInt(0, t.numel() - 1))] = 1;
  return t;
}

// ---- NonZero ----

Tensor sampleNonZeroInput(Rng& rng, const Limits& limits) { return sampleRepeating(rng, limits, kAllTypes); }

InferResult inferNonZero(const InferArgs& a) {
  if (std::string err = unknownAttr(a.attrs, {}); !err.empty()) return InferResult::fail(err);
  if (!a.constants[0]) return InferResult::fail("the input must be a constant (the result's shape depends on its values)");
  int64_t count = 0;
  for (double v : a.constants[0]->data) count += v != 0;
  return {{TensorType{DType::Int64, {a.inputs[0]->rank(), count}}}, {}};
}

void nonZeroKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const Shape& s = x.type.shape;
  const int64_t count = a.outputs[0].type.shape[1];
  std::vector<int64_t> index(s.size(), 0);
  int64_t k = 0;
  for (size_t flat = 0; flat < x.data.size(); ++flat, nextIndex(index, s)) {
    if (x.data[flat] == 0) continue;
    for (size_t d = 0; d < s.size(); ++d) a.outputs[0].data[static_cast<size_t>(static_cast<int64_t>(d) * count + k)] = static_cast<double>(index[d]);
    ++k;
  }
}

// ---- Unique ----

const std::vector<DType> kUniqueTypes{DType::Float32, DType::Float64, DType::Int32, DType::Int64, DType::Int8, DType::UInt8};

Tensor sampleUniqueInput(Rng& rng, const Limits& limits) { return sampleRepeating(rng, limits, kUniqueTypes); }

void sampleUnique(OpDraft& d) {
  const int rank = d.first().rank();
  if (d.rng->bernoulli(0.5)) d.attrs.setInt("sorted", d.rng->uniformInt(0, 1));
  if (d.rng->bernoulli(0.5)) d.attrs.setInt("axis", d.rng->uniformInt(-rank, rank - 1));
}

// The slices compared (the elements, or the slices along axis flattened), and for each
// the unique result it maps to; results in output order with first occurrence and count.
struct UniqueResult {
  size_t sliceLength = 1;
  std::vector<size_t> first;  // per unique result: the first slice holding it
  std::vector<int64_t> counts, inverse;
};

UniqueResult uniqueOf(const Tensor& x, const Attributes& attrs) {
  const Shape& s = x.type.shape;
  std::optional<size_t> axis;
  if (attrs.has("axis")) axis = static_cast<size_t>(*normalizeAxis(attrs.getInt("axis", 0), x.type.rank()));
  const int64_t n = axis ? s[*axis] : x.numel(), inner = axis ? product(s, *axis + 1) : 1, outer = axis ? product(s, 0, *axis) : 1;
  std::vector<std::vector<double>> slices(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k)
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) slices[static_cast<size_t>(k)].push_back(x.data[static_cast<size_t>((o * n + k) * inner + i)]);
  UniqueResult r;
  r.sliceLength = static_cast<size_t>(outer * inner);
  std::map<std::vector<double>, size_t> firstOf;  // ordered: ascending lexicographic
  for (size_t k = 0; k < slices.size(); ++k) firstOf.emplace(slices[k], k);
  std::vector<size_t> order;
  for (const auto& [slice, k] : firstOf) order.push_back(k);
  if (attrs.getInt("sorted", 1) == 0) std::sort(order.begin(), order.end());
  std::map<std::vector<double>, int64_t> position;
  for (size_t u = 0; u < order.size(); ++u) position[slices[order[u]]] = static_cast<int64_t>(u);
  r.first = order;
  r.counts.assign(order.size(), 0);
  for (const auto& slice : slices) {
    const int64_t u = position[slice];
    r.inverse.push_back(u);
    ++r.counts[static_cast<size_t>(u)];
  }
  return r;
}

InferResult inferUnique(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"axis", "sorted"});
  int64_t axis = 0, sorted = 1;
  if (!err.empty() || !readInt(a.attrs, "axis", INT64_MIN, INT64_MAX, 0, axis, err) || !readInt(a.attrs, "sorted", 0, 1, 1, sorted, err))
    return InferResult::fail(err);
  const TensorType& x = *a.inputs[0];
  if (a.attrs.has("axis") && !normalizeAxis(axis, x.rank())) return InferResult::fail("axis out of range");
  if (!a.constants[0]) return InferResult::fail("the input must be a constant (the result's shape depends on its values)");
  const UniqueResult r = uniqueOf(*a.constants[0], a.attrs);
  const auto u = static_cast<int64_t>(r.first.size());
  Shape y{u};
  if (a.attrs.has("axis")) {
    y = x.shape;
    y[static_cast<size_t>(*normalizeAxis(axis, x.rank()))] = u;
  }
  return {{TensorType{x.dtype, y}, TensorType{DType::Int64, {u}}, TensorType{DType::Int64, {static_cast<int64_t>(r.inverse.size())}},
           TensorType{DType::Int64, {u}}},
          {}};
}

void uniqueKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const UniqueResult r = uniqueOf(x, a.attrs);
  const Shape& s = x.type.shape;
  std::optional<size_t> axis;
  if (a.attrs.has("axis")) axis = static_cast<size_t>(*normalizeAxis(a.attrs.getInt("axis", 0), x.type.rank()));
  const int64_t n = axis ? s[*axis] : x.numel(), inner = axis ? product(s, *axis + 1) : 1, outer = axis ? product(s, 0, *axis) : 1;
  const auto u = static_cast<int64_t>(r.first.size());
  for (int64_t j = 0; j < u; ++j) {
    const auto k = static_cast<int64_t>(r.first[static_cast<size_t>(j)]);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i)
        a.outputs[0].data[static_cast<size_t>((o * u + j) * inner + i)] = x.data[static_cast<size_t>((o * n + k) * inner + i)];
    a.outputs[1].data[static_cast<size_t>(j)] = static_cast<double>(k);
    a.outputs[3].data[static_cast<size_t>(j)] = static_cast<double>(r.counts[static_cast<size_t>(j)]);
  }
  for (size_t k = 0; k < r.inverse.size(); ++k) a.outputs[2].data[k] = static_cast<double>(r.inverse[k]);
}

OpSpec constantInputSpec(std::string_view name, int since, std::vector<DType> dtypes, Tensor (*sample)(Rng&, const Limits&)) {
  OpSpec t;
  t.name = name;
  t.sinceVersion = since;
  t.dtypes = std::move(dtypes);
  t.minRank = 1;
  t.constantInputs = 0b1;
  t.sampleConstantFirst = sample;
  return t;
}

}  // namespace

const OpSpec& opNonZero() {
  static const OpSpec s = [] {
    OpSpec t = constantInputSpec("NonZero", 13, kAllTypes, sampleNonZeroInput);
    t.infer = inferNonZero;
    t.reference = nonZeroKernel;
    return t;
  }();
  return s;
}

const OpSpec& opUnique() {
  static const OpSpec s = [] {
    OpSpec t = constantInputSpec("Unique", 11, kUniqueTypes, sampleUniqueInput);
    t.attrs = {intAttr("sorted", 0, 1), intAttr("axis", -3, 2)};
    t.sampleAttrs = sampleUnique;
    t.infer = inferUnique;
    t.reference = uniqueKernel;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
