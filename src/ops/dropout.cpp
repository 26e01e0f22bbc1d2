// dropout.cpp - Dropout (opset 13) in inference: the output is the input.
//
// ratio (a float scalar in [0, 1)) and training_mode (a bool scalar) are optional inputs;
// nnfuzz writes them as constants or leaves them out, and training_mode, when present, is
// false: training mode draws a random mask, which no two engines reproduce, unless ratio is
// 0 (nothing dropped). The optional mask result is then all true.
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
    const double ratio = d.rng->bernoulli(0.2) ? 0.0 : static_cast<float>(d.rng->uniformReal(0.0, 0.9));
    return InputPattern::constantTensor(Tensor(TensorType{t1, {}}, {ratio}));
  }
  // Training mode only with a ratio of 0 (nothing dropped, so nothing random).
  const bool zeroRatio = d.constants.size() > 1 && d.constants[1] && d.constants[1]->data[0] == 0;
  return InputPattern::constantTensor(Tensor(TensorType{DType::Bool, {}}, {zeroRatio && d.rng->bernoulli(0.7) ? 1.0 : 0.0}));
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
    const bool zeroRatio = a.inputs.size() > 1 && a.inputs[1] && a.constants[1]->data[0] == 0;
    if (!a.constants[2] || (a.constants[2]->data[0] != 0 && !zeroRatio))
      return InferResult::fail("training mode (a random mask) is not modelled, but with a ratio of 0");
  }
  return {{*a.inputs[0], TensorType{DType::Bool, a.inputs[0]->shape}}, {}};
}

void copyKernel(KernelArgs& a) {
  a.outputs[0].data = a.inputs[0]->data;
  if (a.outputs.size() > 1) std::fill(a.outputs[1].data.begin(), a.outputs[1].data.end(), 1.0);
}

}  // namespace

const OpSpec& opDropout() {
  static const OpSpec s = [] {
    OpSpec t = unarySpec("Dropout", 13, kFloatTypes, copyKernel);
    t.maxInputs = 3;
    t.constantInputs = 0b110;
    t.optionalOutputs = 0b10;
    t.attrs = {intAttr("seed", 0, 1000)};
    t.sampleAttrs = sampleDropout;
    t.nextInput = dropoutOperand;
    t.infer = inferDropout;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
