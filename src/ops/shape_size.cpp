// shape_size.cpp - Shape (opset 15: the dims from `start` to `end`, both optional and
// clamped, negative counting from the end) and Size (opset 13: the element count as an
// int64 scalar). Both read only the input's static type, so their results are exact.
#include <algorithm>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

// [start, end) of Shape after clamping to [0, rank].
std::pair<int64_t, int64_t> shapeRange(const Attributes& attrs, int rank) {
  auto clampAxis = [rank](int64_t a) { return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank); };
  return {clampAxis(attrs.getInt("start", 0)), clampAxis(attrs.getInt("end", rank))};
}

void sampleShapeAttrs(OpDraft& d) {
  const int rank = d.first().rank();
  // A non-empty slice, written either way round (negative or not), sometimes out of range.
  const int64_t start = d.rng->uniformInt(0, rank - 1), end = d.rng->uniformInt(start + 1, rank);
  if (d.rng->bernoulli(0.5)) d.attrs.setInt("start", d.rng->bernoulli(0.3) ? start - rank : start);
  if (d.rng->bernoulli(0.5)) {
    // end == rank has no negative form (0 means the front): past the end instead.
    const int64_t other = end == rank ? rank + 3 : end - rank;
    d.attrs.setInt("end", d.rng->bernoulli(0.3) ? other : end);
  }
}

InferResult inferShape(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"start", "end"});
  int64_t v = 0;
  if (!err.empty() || !readInt(a.attrs, "start", INT64_MIN, INT64_MAX, 0, v, err) ||
      !readInt(a.attrs, "end", INT64_MIN, INT64_MAX, 0, v, err))
    return InferResult::fail(err);
  const auto [start, end] = shapeRange(a.attrs, a.inputs[0]->rank());
  return {{TensorType{DType::Int64, {std::max<int64_t>(0, end - start)}}}, {}};
}

void shapeKernel(KernelArgs& a) {
  const Shape& shape = a.inputs[0]->type.shape;
  const auto [start, end] = shapeRange(a.attrs, a.inputs[0]->type.rank());
  for (int64_t i = start; i < end; ++i) a.outputs[0].data[static_cast<size_t>(i - start)] = static_cast<double>(shape[static_cast<size_t>(i)]);
}

InferResult inferSize(const InferArgs& a) {
  if (std::string err = unknownAttr(a.attrs, {}); !err.empty()) return InferResult::fail(err);
  return {{TensorType{DType::Int64, {}}}, {}};
}

void sizeKernel(KernelArgs& a) { a.outputs[0].data[0] = static_cast<double>(a.inputs[0]->numel()); }

}  // namespace

const OpSpec& opShape() {
  static const OpSpec s = [] {
    OpSpec t = unarySpec("Shape", 15, kAllTypes, shapeKernel);
    t.minRank = 1;  // a scalar's shape is empty, and the generator never makes empty values
    t.attrs = {intAttr("start", -6, 5), intAttr("end", -6, 8)};
    t.sampleAttrs = sampleShapeAttrs;
    t.infer = inferShape;
    return t;
  }();
  return s;
}

const OpSpec& opSize() {
  static const OpSpec s = [] {
    OpSpec t = unarySpec("Size", 13, kAllTypes, sizeKernel);
    t.infer = inferSize;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
