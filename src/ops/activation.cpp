// activation.cpp - elementwise activations: Sigmoid Tanh Relu LeakyRelu Elu Selu
// HardSigmoid Softplus Softsign Celu ThresholdedRelu HardSwish (opset-17 schemas).
//
// Float attributes are sampled over wide ranges, negative and > 1 included, because
// rewrites such as LeakyRelu -> max(x, alpha*x) only hold for alpha in [0, 1]. All are
// continuous except ThresholdedRelu, which is unstable when an input sits next to alpha.
#include <cmath>

#include "ops/elem_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace elemutil;

namespace {

double sigmoidOf(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double tanhOf(double x) { return std::tanh(x); }
double reluOf(double x) { return x > 0 ? x : 0.0; }
double softplusOf(double x) { return x > 30 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
double softsignOf(double x) { return x / (1.0 + std::abs(x)); }
double hardSwishOf(double x) { return x * std::max(0.0, std::min(1.0, x / 6.0 + 0.5)); }

// Defaults as in the ONNX schemas (float32 values, as a SUT reads them).
constexpr double kSeluAlpha = static_cast<float>(1.67326319217681884765625);
constexpr double kSeluGamma = static_cast<float>(1.05070102214813232421875);

double alphaOf(const KernelArgs& a, double fallback) { return a.attrs.getFloat("alpha", fallback); }

void leakyReluKernel(KernelArgs& a) {
  const double alpha = alphaOf(a, 0.01f);
  for (size_t i = 0; i < a.inputs[0]->data.size(); ++i) {
    const double x = a.inputs[0]->data[i];
    a.outputs[0].data[i] = x < 0 ? alpha * x : x;
  }
}
void eluKernel(KernelArgs& a) {
  const double alpha = alphaOf(a, 1.0);
  for (size_t i = 0; i < a.inputs[0]->data.size(); ++i) {
    const double x = a.inputs[0]->data[i];
    a.outputs[0].data[i] = x < 0 ? alpha * (std::exp(x) - 1.0) : x;
  }
}
void seluKernel(KernelArgs& a) {
  const double alpha = alphaOf(a, kSeluAlpha);
  const double gamma = a.attrs.getFloat("gamma", kSeluGamma);
  for (size_t i = 0; i < a.inputs[0]->data.size(); ++i) {
    const double x = a.inputs[0]->data[i];
    a.outputs[0].data[i] = gamma * (x <= 0 ? alpha * (std::exp(x) - 1.0) : x);
  }
}
void hardSigmoidKernel(KernelArgs& a) {
  const double alpha = alphaOf(a, 0.2f);
  const double beta = a.attrs.getFloat("beta", 0.5);
  for (size_t i = 0; i < a.inputs[0]->data.size(); ++i)
    a.outputs[0].data[i] = std::max(0.0, std::min(1.0, alpha * a.inputs[0]->data[i] + beta));
}
void celuKernel(KernelArgs& a) {
  const double alpha = alphaOf(a, 1.0);
  for (size_t i = 0; i < a.inputs[0]->data.size(); ++i) {
    const double x = a.inputs[0]->data[i];
    a.outputs[0].data[i] = std::max(0.0, x) + std::min(0.0, alpha * (std::exp(x / alpha) - 1.0));
  }
}
void thresholdedReluKernel(KernelArgs& a) {
  const double alpha = alphaOf(a, 1.0);
  for (size_t i = 0; i < a.inputs[0]->data.size(); ++i) {
    const double x = a.inputs[0]->data[i];
    a.outputs[0].data[i] = x > alpha ? x : 0.0;
  }
}

// The step of ThresholdedRelu at alpha.
bool nearThreshold(const KernelArgs& a) {
  const double alpha = alphaOf(a, 1.0);
  for (double x : a.inputs[0]->data)
    if (nearlyEqual(x, alpha)) return true;
  return false;
}

InferResult inferFloatAttrs(const InferArgs& args, std::initializer_list<std::string_view> names) {
  for (auto name : names)
    if (auto e = floatAttrError(args.attrs, name); !e.empty()) return InferResult::fail(e);
  return inferSameAsFirst(args);
}
InferResult inferAlpha(const InferArgs& args) { return inferFloatAttrs(args, {"alpha"}); }
InferResult inferSelu(const InferArgs& args) { return inferFloatAttrs(args, {"alpha", "gamma"}); }
InferResult inferHardSigmoid(const InferArgs& args) { return inferFloatAttrs(args, {"alpha", "beta"}); }
InferResult inferCelu(const InferArgs& args) {
  InferResult r = inferAlpha(args);
  // Celu divides by alpha.
  if (r.ok() && args.attrs.getFloat("alpha", 1.0) == 0.0) return InferResult::fail("alpha must not be 0");
  return r;
}

void sampleLeakyRelu(OpDraft& d) { sampleFloatAttr(d, "alpha", 0.01, -1.5, 1.5); }
void sampleElu(OpDraft& d) { sampleFloatAttr(d, "alpha", 1.0, -2.0, 3.0); }
void sampleSelu(OpDraft& d) {
  sampleFloatAttr(d, "alpha", kSeluAlpha, 0.0, 3.0);
  sampleFloatAttr(d, "gamma", kSeluGamma, 0.0, 3.0);
}
void sampleHardSigmoid(OpDraft& d) {
  sampleFloatAttr(d, "alpha", 0.2, -1.0, 1.0);
  sampleFloatAttr(d, "beta", 0.5, -1.0, 1.5);
}
void sampleCelu(OpDraft& d) {
  // Negative alpha is legal (the formula holds); keep |alpha| away from 0 so exp(x/alpha) stays finite.
  if (d.rng->bernoulli(0.15))
    d.attrs.setFloat("alpha", d.rng->uniformReal(-3.0, -0.5));
  else
    sampleFloatAttr(d, "alpha", 1.0, 0.25, 3.0);
}
void sampleThresholdedRelu(OpDraft& d) { sampleFloatAttr(d, "alpha", 1.0, -2.0, 2.0); }

OpSpec withAttrs(OpSpec s, std::vector<AttrSpec> attrs, void (*sample)(OpDraft&), InferResult (*infer)(const InferArgs&)) {
  s.attrs = std::move(attrs);
  s.sampleAttrs = sample;
  s.infer = infer;
  return s;
}

const std::vector<DType> kCeluTypes{DType::Float32};

}  // namespace

const OpSpec& opSigmoid() {
  static const OpSpec s = saturating(unarySpec("Sigmoid", 13, kFloatTypes, mapKernel<sigmoidOf>));
  return s;
}
const OpSpec& opTanh() {
  static const OpSpec s = saturating(unarySpec("Tanh", 13, kFloatTypes, mapKernel<tanhOf>));
  return s;
}
const OpSpec& opRelu() {
  // Relu-14 takes the signed integer types too.
  static const OpSpec s = unarySpec("Relu", 14, kSignedTypes, mapKernel<reluOf>);
  return s;
}
const OpSpec& opSoftplus() {
  static const OpSpec s = saturating(unarySpec("Softplus", 1, kFloatTypes, mapKernel<softplusOf>));
  return s;
}
const OpSpec& opSoftsign() {
  static const OpSpec s = saturating(unarySpec("Softsign", 1, kFloatTypes, mapKernel<softsignOf>));
  return s;
}
const OpSpec& opHardSwish() {
  static const OpSpec s = saturating(unarySpec("HardSwish", 14, kFloatTypes, mapKernel<hardSwishOf>));
  return s;
}
const OpSpec& opLeakyRelu() {
  static const OpSpec s = withAttrs(unarySpec("LeakyRelu", 16, kFloatTypes, leakyReluKernel),
                                    {floatAttr("alpha", -2, 2)}, sampleLeakyRelu, inferAlpha);
  return s;
}
const OpSpec& opElu() {
  static const OpSpec s =
      saturating(withAttrs(unarySpec("Elu", 6, kFloatTypes, eluKernel), {floatAttr("alpha", -2, 3)}, sampleElu, inferAlpha));
  return s;
}
const OpSpec& opSelu() {
  static const OpSpec s =
      saturating(withAttrs(unarySpec("Selu", 6, kFloatTypes, seluKernel),
                {floatAttr("alpha", 0, 3), floatAttr("gamma", 0, 3)}, sampleSelu, inferSelu));
  return s;
}
const OpSpec& opHardSigmoid() {
  static const OpSpec s =
      saturating(withAttrs(unarySpec("HardSigmoid", 6, kFloatTypes, hardSigmoidKernel),
                {floatAttr("alpha", -1, 1), floatAttr("beta", -1, 1.5)}, sampleHardSigmoid,
                inferHardSigmoid));
  return s;
}
const OpSpec& opCelu() {
  static const OpSpec s = saturating(withAttrs(unarySpec("Celu", 12, kCeluTypes, celuKernel), {floatAttr("alpha", -3, 3)},
                                    sampleCelu, inferCelu));
  return s;
}
const OpSpec& opThresholdedRelu() {
  static const OpSpec s = [] {
    OpSpec t = withAttrs(unarySpec("ThresholdedRelu", 10, kFloatTypes, thresholdedReluKernel),
                         {floatAttr("alpha", -2, 2)}, sampleThresholdedRelu, inferAlpha);
    t.unstable = nearThreshold;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
