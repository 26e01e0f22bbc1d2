// center_crop_pad.cpp - CenterCropPad (opset 18): each dim listed in `axes` (default:
// all) becomes shape[i] long (shape: a constant int32/int64 vector, one value per listed
// axis), centred: a longer dim is cropped from (dim - target) / 2 on, a shorter one is
// placed at (target - dim) / 2 in zeros (both rounded down, so an odd difference leaves
// the extra element at the end). Any dtype. Data movement only: nothing is unstable.
#include <algorithm>

#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace shapeops;

namespace {

// The listed axes, normalised (all axes when `axes` is absent).
std::vector<int> axesOf(const Attributes& attrs, int rank) {
  std::vector<int64_t> raw(static_cast<size_t>(rank));
  std::iota(raw.begin(), raw.end(), 0);
  return *normalizeAxes(attrs.getInts("axes", raw), rank);
}

void sampleCenterCropPad(OpDraft& d) {
  if (d.rng->bernoulli(0.5)) d.attrs.setInts("axes", nnsupport::sampleAxes(*d.rng, d.first().rank()));
}

InputPattern targetShape(const OpDraft& d) {
  Rng& rng = *d.rng;
  const TensorType& x = d.first();
  const int64_t largest = std::min(maxResultDim(*d.limits), std::max(d.limits->maxDim, int64_t{1}) + 3);
  std::vector<int64_t> target;
  for (int axis : axesOf(d.attrs, x.rank())) {
    const int64_t dim = x.shape[static_cast<size_t>(axis)];
    target.push_back(rng.bernoulli(0.2) ? dim : rng.uniformInt(1, std::max(largest, dim)));
  }
  return InputPattern::constantTensor(indexTensor(rng.bernoulli(0.25) ? DType::Int32 : DType::Int64, target));
}

InferResult inferCenterCropPad(const InferArgs& a) {
  if (auto e = unknownAttribute(a.attrs, {"axes"}); !e.empty()) return InferResult::fail(e);
  if (a.attrs.hasWrongKind<std::vector<int64_t>>("axes")) return InferResult::fail("axes must be a list of ints");
  const TensorType& x = *a.inputs[0];
  if (a.inputs.size() < 2 || !a.inputs[1]) return InferResult::fail("shape is required");
  if (auto e = checkIndexVector(a, 1, "shape", true); !e.empty()) return InferResult::fail(e);
  std::vector<int64_t> all(static_cast<size_t>(x.rank()));
  std::iota(all.begin(), all.end(), 0);
  const auto axes = normalizeAxes(a.attrs.getInts("axes", all), x.rank());
  if (!axes) return InferResult::fail("axes out of range or repeated");
  const std::vector<int64_t> target = intsOf(*a.constants[1]);
  if (target.size() != axes->size()) return InferResult::fail("shape needs one value per axis");
  Shape out = x.shape;
  for (size_t i = 0; i < axes->size(); ++i) {
    if (target[i] < 0 || target[i] > (int64_t{1} << 40)) return InferResult::fail("shape values must be >= 0 and not huge");
    out[static_cast<size_t>((*axes)[i])] = target[i];
  }
  return {{TensorType{x.dtype, out}}, {}};
}

void centerCropPadKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  Tensor& out = a.outputs[0];
  if (out.numel() == 0 || x.numel() == 0) return;
  const Shape& in = x.type.shape;
  // out index i reads input index i - shift (negative shift: a crop).
  std::vector<int64_t> shift(in.size(), 0);
  for (int axis : axesOf(a.attrs, x.type.rank())) {
    const auto i = static_cast<size_t>(axis);
    const int64_t dim = in[i], target = out.type.shape[i];
    shift[i] = target >= dim ? (target - dim) / 2 : -((dim - target) / 2);
  }
  std::vector<int64_t> index(in.size(), 0), from(in.size());
  size_t flat = 0;
  do {
    bool inside = true;
    for (size_t i = 0; i < in.size() && inside; ++i) {
      from[i] = index[i] - shift[i];
      inside = from[i] >= 0 && from[i] < in[i];
    }
    if (inside) out.data[flat] = x.data[static_cast<size_t>(offsetOf(from, in))];
    ++flat;
  } while (nextIndex(index, out.type.shape));
}

}  // namespace

const OpSpec& opCenterCropPad() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "CenterCropPad";
    t.sinceVersion = 18;
    t.minInputs = t.maxInputs = 2;
    t.dtypes = kAllTypes;
    t.minRank = 1;
    t.constantInputs = 0b10;
    t.attrs = {intsAttr("axes", -5, 4, 1, 5)};
    t.sampleAttrs = sampleCenterCropPad;
    t.nextInput = targetShape;
    t.infer = inferCenterCropPad;
    t.reference = centerCropPadKernel;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
