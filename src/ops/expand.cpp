// expand.cpp - Expand (opset 13): broadcasts the input against a constant int64 `shape`
// in both directions (a 1 in `shape` keeps the input's dim; `shape` may be shorter or
// longer than the input's rank).
#include "ops/shape_util.h"

#include <algorithm>

namespace nnfuzz {

using namespace opsupport;
using namespace shapeops;

namespace {

InputPattern expandShape(const OpDraft& d) {
  Rng& rng = *d.rng;
  const Shape& in = d.first().shape;
  const int r = d.first().rank();
  const int maxRank = std::max(1, d.limits->maxRank);
  const int len = static_cast<int>(rng.uniformInt(1, std::max(maxRank, r)));
  const int64_t maxDim = std::min(d.limits->maxDim, maxResultDim(*d.limits));
  std::vector<int64_t> shape(static_cast<size_t>(len));
  for (int j = 0; j < len; ++j) {
    // Right-aligned against the input.
    const int i = j - (len - r);
    auto& v = shape[static_cast<size_t>(j)];
    if (i < 0) v = rng.uniformInt(1, maxDim);  // a new leading dim
    else if (in[static_cast<size_t>(i)] == 1) v = rng.bernoulli(0.3) ? 1 : rng.uniformInt(1, maxDim);
    else v = rng.bernoulli(0.5) ? 1 : in[static_cast<size_t>(i)];
  }
  return InputPattern::constantTensor(int64Tensor(shape));
}

InferResult inferExpand(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {}); !e.empty()) return InferResult::fail(e);
  if (auto e = checkIndexVector(args, 1, "shape"); !e.empty()) return InferResult::fail(e);
  const auto shape = intsOf(*args.constants[1]);
  for (int64_t v : shape)
    if (v < 0 || v > (int64_t{1} << 40)) return InferResult::fail("shape holds " + std::to_string(v));
  auto out = broadcastShapes(args.inputs[0]->shape, Shape(shape.begin(), shape.end()));
  if (!out) return InferResult::fail("shape does not broadcast with the input");
  return {{TensorType{args.inputs[0]->dtype, *out}}, {}};
}

void expandKernel(KernelArgs& args) {
  const Tensor& in = *args.inputs[0];
  Tensor& out = args.outputs[0];
  if (out.numel() == 0) return;
  if (in.type.shape == out.type.shape) {  // nothing to broadcast
    std::copy(in.data.begin(), in.data.end(), out.data.begin());
    return;
  }
  const Shape* shapes[] = {&in.type.shape};
  BroadcastWalk walk(out.type.shape, shapes);
  int64_t flat = 0;
  do {
    out.data[static_cast<size_t>(flat++)] = in.data[static_cast<size_t>(walk.offset(0))];
  } while (walk.next());
}

}  // namespace

const OpSpec& opExpand() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Expand";
    s.sinceVersion = 13;
    s.minInputs = s.maxInputs = 2;
    s.dtypes = kAllTypes;
    s.constantInputs = 0b10;
    s.nextInput = expandShape;
    s.infer = inferExpand;
    s.reference = expandKernel;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
