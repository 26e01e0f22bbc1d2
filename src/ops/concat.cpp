// concat.cpp - Concat (opset 13): 1..N inputs of one dtype and rank, equal dims except
// along `axis` (required, negative allowed). Generation caps the arity at 4 and keeps the
// joined dim within the growth bound.
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace shapeops;

namespace {

void concatAttrs(OpDraft& d) {
  const int r = d.first().rank();
  d.attrs.setInt("axis", d.rng->uniformInt(-r, r - 1));
}

InputPattern concatNext(const OpDraft& d) {
  const TensorType first = d.first();
  const int r = first.rank();
  const auto axis = static_cast<size_t>(*normalizeAxis(d.attrs.getInt("axis", 0), r));
  int64_t used = 0;
  for (const auto& t : d.inputTypes) used += t.shape[axis];
  const int64_t laterInputs = d.arity - 1 - static_cast<int64_t>(d.inputTypes.size());
  // The most this operand may add so the result stays bounded (at least 1: an oversized
  // reused first input cannot be undone).
  const int64_t budget = std::max<int64_t>(1, maxResultDim(*d.limits) - used - laterInputs);
  const Limits limits = *d.limits;
  InputPattern p;
  p.accepts = [first, axis, budget](const TensorType& t) {
    if (t.dtype != first.dtype || t.rank() != first.rank()) return false;
    for (size_t i = 0; i < t.shape.size(); ++i)
      if (i != axis && t.shape[i] != first.shape[i]) return false;
    return t.shape[axis] <= budget;
  };
  p.sample = [first, axis, budget, limits](Rng& rng) {
    TensorType t = first;
    t.shape[axis] = rng.uniformInt(std::min(limits.minDim, budget), std::min(limits.maxDim, budget));
    return t;
  };
  p.range = defaultRange(first.dtype);
  return p;
}

InferResult inferConcat(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {"axis"}); !e.empty()) return InferResult::fail(e);
  if (!args.attrs.has("axis")) return InferResult::fail("axis is required");
  if (args.attrs.hasWrongKind<int64_t>("axis")) return InferResult::fail("axis must be an int");
  const TensorType& first = *args.inputs[0];
  auto axis = normalizeAxis(args.attrs.getInt("axis", 0), first.rank());
  if (!axis) return InferResult::fail("axis is out of range");
  const auto a = static_cast<size_t>(*axis);
  Shape out = first.shape;
  for (size_t k = 1; k < args.inputs.size(); ++k) {
    const TensorType* t = args.inputs[k];
    if (!t) return InferResult::fail("input " + std::to_string(k) + " is missing");
    if (t->dtype != first.dtype) return InferResult::fail("inputs differ in dtype");
    if (t->rank() != first.rank()) return InferResult::fail("inputs differ in rank");
    for (size_t i = 0; i < out.size(); ++i)
      if (i != a && t->shape[i] != first.shape[i]) return InferResult::fail("inputs differ in dim " + std::to_string(i));
    out[a] += t->shape[a];
  }
  return {{TensorType{first.dtype, out}}, {}};
}

void concatKernel(KernelArgs& args) {
  Tensor& out = args.outputs[0];
  const Shape& shape = out.type.shape;
  const auto a = static_cast<size_t>(*normalizeAxis(args.attrs.getInt("axis", 0), out.type.rank()));
  const int64_t outer = product(shape, 0, a), inner = product(shape, a + 1, shape.size());
  size_t pos = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor* in : args.inputs) {
      const int64_t block = in->type.shape[a] * inner;
      const auto* src = in->data.data() + o * block;
      for (int64_t i = 0; i < block; ++i) out.data[pos++] = src[i];
    }
}

}  // namespace

const OpSpec& opConcat() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Concat";
    s.sinceVersion = 13;
    s.minInputs = 1;
    s.maxInputs = 1 << 30;
    s.maxGenInputs = 4;
    s.dtypes = kAllTypes;
    s.minRank = 1;
    s.attrs = {intAttr("axis", -5, 4)};
    s.sampleAttrs = concatAttrs;
    s.nextInput = concatNext;
    s.infer = inferConcat;
    s.reference = concatKernel;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
