// squeeze.cpp - Squeeze and Unsqueeze (opset 13: axes as a constant int64 input;
// Squeeze without axes drops every dim of size 1; negative axes count from the end, for
// Unsqueeze from the end of the result).
//
// Both keep the row-major data as is. Squeeze's first input is sampled with more size-1
// dims than usual so there is something to squeeze; Unsqueeze needs room to grow the rank.
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace shapeops;

namespace {

void copyKernel(KernelArgs& a) { a.outputs[0].data = a.inputs[0]->data; }

bool anyFirst(const TensorType&, const Limits&) { return true; }

TensorType sampleWithOnes(Rng& rng, const Limits& limits, DType dtype) {
  const int rank = static_cast<int>(rng.uniformInt(0, limits.maxRank));
  Shape s = sampleShape(rng, limits, rank);
  if (limits.minDim <= 1)
    for (auto& d : s)
      if (rng.bernoulli(0.35)) d = 1;
  return {dtype, s};
}

InputPattern squeezeAxes(const OpDraft& d) {
  Rng& rng = *d.rng;
  const Shape& in = d.first().shape;
  std::vector<int64_t> ones;
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i] == 1) ones.push_back(static_cast<int64_t>(i));
  if (ones.empty() || rng.bernoulli(0.25)) return InputPattern::omitted();
  std::vector<int64_t> axes;
  for (int64_t a : ones)
    if (rng.bernoulli(0.5)) axes.push_back(a);
  if (axes.empty()) axes.push_back(rng.pick(ones));
  // Any order, either sign.
  const auto perm = randomPermutation(rng, static_cast<int>(axes.size()));
  std::vector<int64_t> out;
  for (int64_t p : perm) out.push_back(maybeNegative(rng, axes[static_cast<size_t>(p)], d.first().rank()));
  return InputPattern::constantTensor(int64Tensor(out));
}

InferResult inferSqueeze(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {}); !e.empty()) return InferResult::fail(e);
  const Shape& in = args.inputs[0]->shape;
  std::vector<bool> drop(in.size(), false);
  std::vector<int64_t> axes;
  if (args.inputs.size() > 1 && args.inputs[1]) {
    if (auto e = checkIndexVector(args, 1, "axes"); !e.empty()) return InferResult::fail(e);
    axes = intsOf(*args.constants[1]);
    // An empty axes tensor is read two ways (ONNX shape inference squeezes nothing, an
    // omitted axes input squeezes every 1), so it is not a valid test.
    if (axes.empty()) return InferResult::fail("an empty axes tensor is ambiguous; omit the input instead");
  }
  if (axes.empty()) {
    for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  } else {
    auto norm = normalizeAxes(axes, args.inputs[0]->rank());
    if (!norm) return InferResult::fail("axes are out of range or repeat");
    for (int a : *norm) {
      if (in[static_cast<size_t>(a)] != 1)
        return InferResult::fail("cannot squeeze dim " + std::to_string(a) + " of size " +
                                 std::to_string(in[static_cast<size_t>(a)]));
      drop[static_cast<size_t>(a)] = true;
    }
  }
  Shape out;
  for (size_t i = 0; i < in.size(); ++i)
    if (!drop[i]) out.push_back(in[i]);
  return {{TensorType{args.inputs[0]->dtype, out}}, {}};
}

bool roomToGrow(const TensorType& t, const Limits& limits) { return t.rank() < limits.maxRank; }

TensorType sampleBelowMaxRank(Rng& rng, const Limits& limits, DType dtype) {
  const int rank = static_cast<int>(rng.uniformInt(0, std::max(0, limits.maxRank - 1)));
  return {dtype, sampleShape(rng, limits, rank)};
}

InputPattern unsqueezeAxes(const OpDraft& d) {
  Rng& rng = *d.rng;
  const int r = d.first().rank();
  const int k = static_cast<int>(rng.uniformInt(1, std::max(1, d.limits->maxRank - r)));
  const int outRank = r + k;
  auto positions = randomPermutation(rng, outRank);
  positions.resize(static_cast<size_t>(k));
  std::vector<int64_t> axes;
  for (int64_t p : positions) axes.push_back(maybeNegative(rng, p, outRank));
  return InputPattern::constantTensor(int64Tensor(axes));
}

InferResult inferUnsqueeze(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {}); !e.empty()) return InferResult::fail(e);
  if (auto e = checkIndexVector(args, 1, "axes"); !e.empty()) return InferResult::fail(e);
  const Shape& in = args.inputs[0]->shape;
  const auto axes = intsOf(*args.constants[1]);
  const int outRank = args.inputs[0]->rank() + static_cast<int>(axes.size());
  auto norm = normalizeAxes(axes, outRank);
  if (!norm) return InferResult::fail("axes are out of range or repeat");
  std::vector<bool> isNew(static_cast<size_t>(outRank), false);
  for (int a : *norm) isNew[static_cast<size_t>(a)] = true;
  Shape out;
  size_t next = 0;
  for (int i = 0; i < outRank; ++i) out.push_back(isNew[static_cast<size_t>(i)] ? 1 : in[next++]);
  return {{TensorType{args.inputs[0]->dtype, out}}, {}};
}

}  // namespace

const OpSpec& opSqueeze() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Squeeze";
    s.sinceVersion = 13;
    s.minInputs = 1;
    s.maxInputs = 2;
    s.dtypes = kAllTypes;
    s.constantInputs = 0b10;
    s.acceptsFirst = anyFirst;
    s.sampleFirst = sampleWithOnes;
    s.nextInput = squeezeAxes;
    s.infer = inferSqueeze;
    s.reference = copyKernel;
    return s;
  }();
  return s;
}

const OpSpec& opUnsqueeze() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Unsqueeze";
    s.sinceVersion = 13;
    s.minInputs = s.maxInputs = 2;
    s.dtypes = kAllTypes;
    s.constantInputs = 0b10;
    s.acceptsFirst = roomToGrow;
    s.sampleFirst = sampleBelowMaxRank;
    s.nextInput = unsqueezeAxes;
    s.infer = inferUnsqueeze;
    s.reference = copyKernel;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
