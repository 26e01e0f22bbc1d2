// prelu.cpp - PRelu-16: x < 0 ? slope * x : x, with slope (X's dtype) unidirectionally
// broadcastable to X: the result always has X's shape.
#include "ops/elem_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace elemutil;

namespace {

const std::vector<DType> kPReluTypes{DType::Float32, DType::Float64, DType::Int32, DType::Int64};

InputPattern slopeOperand(const OpDraft& d) {
  return unidirectionalOperand(d.first().shape, d.first().dtype, defaultRange(d.first().dtype));
}

InferResult inferPRelu(const InferArgs& args) {
  const TensorType* slope = args.inputs[1];
  if (!slope) return InferResult::fail("slope is missing");
  if (slope->dtype != args.inputs[0]->dtype) return InferResult::fail("slope differs in dtype from X");
  if (!unidirectional(slope->shape, args.inputs[0]->shape))
    return InferResult::fail("slope does not broadcast unidirectionally to X");
  return inferSameAsFirst(args);
}

void preluKernel(KernelArgs& a) {
  broadcastKernel(a, [](const std::vector<double>& v) { return v[0] < 0 ? v[1] * v[0] : v[0]; });
}

}  // namespace

const OpSpec& opPRelu() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "PRelu";
    t.sinceVersion = 16;
    t.minInputs = t.maxInputs = 2;
    t.dtypes = kPReluTypes;
    t.nextInput = slopeOperand;
    t.infer = inferPRelu;
    t.reference = preluKernel;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
