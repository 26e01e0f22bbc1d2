// reverse_sequence.cpp - ReverseSequence (opset 10): for each batch entry b, the first
// sequence_lens[b] elements along time_axis reversed, the rest copied. batch_axis and
// time_axis (defaults 1 and 0) are 0 and 1 in some order; the input has rank >= 2.
//
// sequence_lens (int64, one per batch entry) is an ordinary operand kept in [1, T]: a
// runtime input or sometimes a constant. The kernel clamps an out-of-range length.
#include <algorithm>

#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

void sampleReverse(OpDraft& d) {
  if (d.rng->bernoulli(0.5)) return;  // defaults: batch_axis 1, time_axis 0
  const int64_t batch = d.rng->uniformInt(0, 1);
  d.attrs.setInt("batch_axis", batch);
  d.attrs.setInt("time_axis", 1 - batch);
}

InputPattern reverseLens(const OpDraft& d) {
  const Shape& x = d.first().shape;
  const auto batch = static_cast<size_t>(d.attrs.getInt("batch_axis", 1));
  const int64_t time = x[1 - batch];
  const TensorType type{DType::Int64, {x[batch]}};
  if (d.rng->bernoulli(0.4)) {
    Tensor t(type);
    for (double& v : t.data) v = static_cast<double>(d.rng->uniformInt(1, time));
    return InputPattern::constantTensor(std::move(t));
  }
  return InputPattern::exactly(type, ValueRange{1.0, static_cast<double>(time), 0.0});
}

InferResult inferReverse(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"batch_axis", "time_axis"});
  int64_t batch = 1, time = 0;
  if (!err.empty() || !readInt(a.attrs, "batch_axis", 0, 1, 1, batch, err) ||
      !readInt(a.attrs, "time_axis", 0, 1, 0, time, err))
    return InferResult::fail(err);
  if (batch == time) return InferResult::fail("batch_axis and time_axis must differ");
  const TensorType& x = *a.inputs[0];
  if (a.inputs.size() < 2 || !a.inputs[1]) return InferResult::fail("sequence_lens is missing");
  const TensorType& lens = *a.inputs[1];
  if (lens.dtype != DType::Int64 || lens.shape != Shape{x.shape[static_cast<size_t>(batch)]})
    return InferResult::fail("sequence_lens must be int64 with one length per batch entry");
  if (const Tensor* c = a.constants[1])
    for (double v : c->data)
      if (v < 0 || v > static_cast<double>(x.shape[static_cast<size_t>(time)])) return InferResult::fail("a length is out of range");
  return {{x}, {}};
}

void reverseKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const Shape& shape = x.type.shape;
  const auto batchAxis = static_cast<size_t>(a.attrs.getInt("batch_axis", 1));
  const size_t timeAxis = 1 - batchAxis;
  const int64_t time = shape[timeAxis];
  if (x.data.empty()) return;
  std::vector<int64_t> index(shape.size(), 0);
  size_t flat = 0;
  do {
    const int64_t len = std::clamp<int64_t>(static_cast<int64_t>(a.inputs[1]->data[static_cast<size_t>(index[batchAxis])]), 0, time);
    std::vector<int64_t> from = index;
    if (index[timeAxis] < len) from[timeAxis] = len - 1 - index[timeAxis];
    a.outputs[0].data[flat++] = x.data[static_cast<size_t>(shapeops::offsetOf(from, shape))];
  } while (nextIndex(index, shape));
}

}  // namespace

const OpSpec& opReverseSequence() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "ReverseSequence";
    t.sinceVersion = 10;
    t.minInputs = t.maxInputs = 2;
    t.dtypes = kAllTypes;
    t.minRank = 2;
    t.attrs = {intAttr("batch_axis", 0, 1), intAttr("time_axis", 0, 1)};
    t.sampleAttrs = sampleReverse;
    t.nextInput = reverseLens;
    t.infer = inferReverse;
    t.reference = reverseKernel;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
