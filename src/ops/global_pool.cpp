// global_pool.cpp - GlobalAveragePool, GlobalMaxPool (opset 1 schemas) and GlobalLpPool
// (opset 2 schema, attribute p): pool every N x C plane of an N x C x D1..Dn input to
// one value, giving N x C x 1 x .. x 1.
#include <algorithm>
#include <cmath>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

enum class Pool { Average, Max, Lp };

template <Pool P>
InferResult inferGlobalPool(const InferArgs& a) {
  std::string err = P == Pool::Lp ? unknownAttr(a.attrs, {"p"}) : unknownAttr(a.attrs, {});
  if (!err.empty()) return InferResult::fail(err);
  int64_t p = 2;
  if (P == Pool::Lp && !readInt(a.attrs, "p", 1, INT64_MAX, 2, p, err)) return InferResult::fail(err);
  const TensorType& x = *a.inputs[0];
  Shape out = x.shape;
  std::fill(out.begin() + 2, out.end(), 1);
  return {{TensorType{x.dtype, out}}, {}};
}

void sampleLpAttrs(OpDraft& d) {
  if (d.rng->bernoulli(0.7)) d.attrs.setInt("p", d.rng->uniformInt(1, 3));
}

template <Pool P>
void globalPoolKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  Tensor& y = a.outputs[0];
  const auto p = static_cast<double>(a.attrs.getInt("p", 2));
  const int64_t planes = x.type.shape[0] * x.type.shape[1];
  const int64_t size = product(x.type.shape, 2);
  if (size == 0) return;  // empty tensors (imported models)
  for (int64_t k = 0; k < planes; ++k) {
    const double* v = x.data.data() + k * size;
    double acc = P == Pool::Max ? v[0] : 0.0;
    for (int64_t i = 0; i < size; ++i) {
      if (P == Pool::Max) acc = std::max(acc, v[i]);
      if (P == Pool::Average) acc += v[i];
      if (P == Pool::Lp) acc += std::pow(std::abs(v[i]), p);
    }
    if (P == Pool::Average) acc /= static_cast<double>(size);
    if (P == Pool::Lp) acc = std::pow(acc, 1.0 / p);
    y.data[static_cast<size_t>(k)] = acc;
  }
}

template <Pool P>
OpSpec globalSpec(std::string_view name, int version) {
  OpSpec s;
  s.name = name;
  s.sinceVersion = version;
  s.dtypes = kFloatTypes;
  s.minRank = 3;
  s.maxRank = 5;
  if (P == Pool::Lp) {
    s.attrs = {intAttr("p", 1, 3)};
    s.sampleAttrs = sampleLpAttrs;
  }
  s.infer = inferGlobalPool<P>;
  s.reference = globalPoolKernel<P>;
  return s;
}

}  // namespace

const OpSpec& opGlobalAveragePool() {
  static const OpSpec s = globalSpec<Pool::Average>("GlobalAveragePool", 1);
  return s;
}
const OpSpec& opGlobalMaxPool() {
  static const OpSpec s = globalSpec<Pool::Max>("GlobalMaxPool", 1);
  return s;
}
const OpSpec& opGlobalLpPool() {
  static const OpSpec s = globalSpec<Pool::Lp>("GlobalLpPool", 2);
  return s;
}

}  // namespace nnfuzz
