// dropout.cpp - Dropout (opset 13) in inference: the output is the input.
//
// ratio (a float scalar in [0, 1)) and training_mode (a bool scalar) are optional inputs;
// nnfuzz writes them as constants or leaves them out, and training_mode, when present, is
// false: training mode draws a random mask, which no two engines reproduce. The mask
// output is not modelled (a model asking for it is not imported).
#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

void sampleDropout(OpDraft& d) {
  if (d.rng->bernoulli(0.3)) d.attrs.setInt("seed", d.rng->uniformInt(0, 1000));
}

InputPattern dropoutOperand(const OpDraft& d) {
  if (d.rng->bernoulli(0.5)) return InputPattern::omitted();
  if (d.inputTypes.size() == 1) {
    const DType t1 = d.rng->bernoulli(0.8) ? d.first().dtype : (d.rng->bernoulli(0.5) ? DType::Float32 : DType::Float64);
    const double ratio = static_cast<float>(d.rng->uniformReal(0.0, 0.9));
    return InputPattern::constantTensor(Tensor(TensorType{t1, {}}, {ratio}));
  }
  return InputPattern::constantTensor(Tensor(TensorType{DType::Bool, {}}, {0.0}));
}

InferResult inferDropout(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"seed"});
  int64_t seed = 0;
  if (!err.empty() || !readInt(a.attrs, "seed", INT64_MIN, INT64_MAX, 0, seed, err)) return InferResult::fail(err);
  if (a.inputs.size() > 1 && a.inputs[1]) {
    if (!isFloat(a.inputs[1]->dtype) || a.inputs[1]->rank() != 0) return InferResult::fail("ratio must be a float scalar");
    if (!a.constants[1]) return InferResult::fail("ratio must be a constant");
    const double ratio = a.constants[1]->data[0];
    if (!(ratio >= 0 && ratio < 1)) return InferResult::fail("ratio must lie in [0, 1)");
  }
  if (a.inputs.size() > 2 && a.inputs[2]) {
    if (a.inputs[2]->dtype != DType::Bool || a.inputs[2]->rank() != 0)
      return InferResult::fail("training_mode must be a bool scalar");
    if (!a.constants[2] || a.constants[2]->data[0] != 0)
      return InferResult::fail("training mode (a random mask) is not modelled");
  }
  return {{*a.inputs[0]}, {}};
}

void copyKernel(KernelArgs& a) { a.outputs[0].data = a.inputs[0]->data; }

}  // namespace

const OpSpec& opDropout() {
  static const OpSpec s = [] {
    OpSpec t = unarySpec("Dropout", 13, kFloatTypes, copyKernel);
    t.maxInputs = 3;
    t.constantInputs = 0b110;
    t.attrs = {intDomain("seed", 0, 1000)};
    t.sampleAttrs = sampleDropout;
    t.nextInput = dropoutOperand;
    t.infer = inferDropout;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
