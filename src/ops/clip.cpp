// clip.cpp - Clip-13: X limited to [min, max], where min and max are optional scalar
// inputs of X's dtype (absent: the dtype's lowest / highest value).
//
// When min > max every element becomes max (the ONNX text says so); the sampled ranges
// of min and max overlap, so that corner, where implementations disagree, gets tested.
#include <algorithm>
#include <limits>

#include "ops/elem_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace elemutil;

namespace {

// min is drawn from the lower 60% of the dtype's default range, max from the upper 60%
// (unless min is absent: then anywhere).
ValueRange boundRange(DType dtype, double from, double to) {
  const ValueRange r = defaultRange(dtype);
  return {r.lo + from * (r.hi - r.lo), r.lo + to * (r.hi - r.lo), 0.0};
}

InputPattern clipInput(const OpDraft& d) {
  const size_t k = d.inputTypes.size();
  if (d.rng->bernoulli(0.25)) return InputPattern::omitted();
  const DType dtype = d.first().dtype;
  const bool minGiven = k == 2 && !d.omitted[1];
  const ValueRange range = k == 1 ? boundRange(dtype, 0.0, 0.6) : minGiven ? boundRange(dtype, 0.4, 1.0)
                                                                              : defaultRange(dtype);
  return InputPattern::exactly(TensorType{dtype, {}}, range);
}

InferResult inferClip(const InferArgs& args) {
  for (size_t k = 1; k < args.inputs.size(); ++k) {
    const TensorType* t = args.inputs[k];
    if (!t) continue;
    const char* which = k == 1 ? "min" : "max";
    if (t->dtype != args.inputs[0]->dtype) return InferResult::fail(std::string(which) + " differs in dtype from input");
    if (t->rank() != 0) return InferResult::fail(std::string(which) + " must be a scalar");
  }
  return inferSameAsFirst(args);
}

void clipKernel(KernelArgs& a) {
  const double inf = std::numeric_limits<double>::infinity();
  const double lo = a.inputs.size() > 1 && a.inputs[1] ? a.inputs[1]->data[0] : -inf;
  const double hi = a.inputs.size() > 2 && a.inputs[2] ? a.inputs[2]->data[0] : inf;
  const Tensor& x = *a.inputs[0];
  for (size_t i = 0; i < x.data.size(); ++i) a.outputs[0].data[i] = std::min(std::max(x.data[i], lo), hi);
}

}  // namespace

const OpSpec& opClip() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "Clip";
    t.sinceVersion = 13;
    t.minInputs = 1;
    t.maxInputs = 3;
    t.dtypes = kNumericTypes;
    t.nextInput = clipInput;
    t.infer = inferClip;
    t.reference = clipKernel;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
