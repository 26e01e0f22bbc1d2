// float_class.cpp - IsInf (opset 10: detect_negative, detect_positive, default 1 each) and
// IsNaN (opset 13): a bool per element of a float tensor.
//
// Generated data is always finite, so generated models see all-false results; the ops
// still matter there because optimizers fold and fuse them, and imported models (the ONNX
// node tests) exercise the true cases.
#include <cmath>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

InferResult inferIsInf(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"detect_negative", "detect_positive"});
  int64_t v = 0;
  if (!err.empty() || !readInt(a.attrs, "detect_negative", 0, 1, 1, v, err) ||
      !readInt(a.attrs, "detect_positive", 0, 1, 1, v, err))
    return InferResult::fail(err);
  return {{TensorType{DType::Bool, a.inputs[0]->shape}}, {}};
}

InferResult inferIsNaN(const InferArgs& a) {
  if (std::string err = unknownAttr(a.attrs, {}); !err.empty()) return InferResult::fail(err);
  return {{TensorType{DType::Bool, a.inputs[0]->shape}}, {}};
}

void sampleIsInf(OpDraft& d) {
  for (auto name : {"detect_negative", "detect_positive"})
    if (d.rng->bernoulli(0.5)) d.attrs.setInt(name, d.rng->uniformInt(0, 1));
}

void isInfKernel(KernelArgs& a) {
  const bool negative = a.attrs.getInt("detect_negative", 1) == 1, positive = a.attrs.getInt("detect_positive", 1) == 1;
  for (size_t i = 0; i < a.inputs[0]->data.size(); ++i) {
    const double x = a.inputs[0]->data[i];
    a.outputs[0].data[i] = std::isinf(x) && ((x < 0 && negative) || (x > 0 && positive)) ? 1.0 : 0.0;
  }
}

void isNaNKernel(KernelArgs& a) {
  for (size_t i = 0; i < a.inputs[0]->data.size(); ++i) a.outputs[0].data[i] = std::isnan(a.inputs[0]->data[i]) ? 1 : 0;
}

}  // namespace

const OpSpec& opIsInf() {
  static const OpSpec s = [] {
    OpSpec t = unarySpec("IsInf", 10, kFloatTypes, isInfKernel);
    t.attrs = {intAttr("detect_negative", 0, 1), intAttr("detect_positive", 0, 1)};
    t.sampleAttrs = sampleIsInf;
    t.infer = inferIsInf;
    return t;
  }();
  return s;
}

const OpSpec& opIsNaN() {
  static const OpSpec s = [] {
    OpSpec t = unarySpec("IsNaN", 13, kFloatTypes, isNaNKernel);
    t.infer = inferIsNaN;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
