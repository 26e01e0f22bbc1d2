// gelu_mish.cpp - the smooth activations added after opset 17: Mish (opset 18),
// x * tanh(softplus(x)), and Gelu (opset 20), x * Phi(x) with `approximate` "none" (the
// exact erf form, default) or "tanh" (0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))).
//
// Both are continuous: nothing is unstable. Inputs span the saturating range, where
// kernels switch formulas (softplus overflow, tanh saturation, erf tails).
#include <cmath>
#include <numbers>

#include "ops/elem_util.h"
#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;

namespace {

double softplusOf(double x) { return x > 30 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
double mishOf(double x) { return x * std::tanh(softplusOf(x)); }

bool tanhApproximation(const Attributes& attrs) { return attrs.getString("approximate", "none") == "tanh"; }

void geluKernel(KernelArgs& a) {
  const bool tanhForm = tanhApproximation(a.attrs);
  const double root2OverPi = std::sqrt(2.0 / std::numbers::pi);
  for (size_t i = 0; i < a.inputs[0]->data.size(); ++i) {
    const double x = a.inputs[0]->data[i];
    a.outputs[0].data[i] = tanhForm ? 0.5 * x * (1.0 + std::tanh(root2OverPi * (x + 0.044715 * x * x * x)))
                                    : 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2));
  }
}

void sampleGelu(OpDraft& d) {
  const double u = d.rng->uniformReal(0, 1);
  if (u < 0.3) return;  // the default, none
  d.attrs.setString("approximate", u < 0.5 ? "none" : "tanh");
}

InferResult inferGelu(const InferArgs& a) {
  if (std::string e = nnsupport::unknownAttr(a.attrs, {"approximate"}); !e.empty()) return InferResult::fail(e);
  const std::string mode = a.attrs.getString("approximate", "none");
  if (a.attrs.hasWrongKind<std::string>("approximate") || (mode != "none" && mode != "tanh"))
    return InferResult::fail("approximate must be none or tanh");
  return inferSameAsFirst(a);
}

}  // namespace

const OpSpec& opMish() {
  static const OpSpec s = saturating(unarySpec("Mish", 18, kFloatTypes, mapKernel<mishOf>));
  return s;
}

const OpSpec& opGelu() {
  static const OpSpec s = [] {
    OpSpec t = saturating(unarySpec("Gelu", 20, kFloatTypes, geluKernel));
    t.attrs = {stringAttr("approximate", {"none", "tanh"})};
    t.sampleAttrs = sampleGelu;
    t.infer = inferGelu;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
