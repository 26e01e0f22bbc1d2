// shrink.cpp - Shrink (opset 9): x + bias below -lambd, x - bias above lambd, 0 between
// (defaults bias 0, lambd 0.5), on floats and integers.
//
// The result jumps at ±lambd, so a float input within a hair of either is unstable. On
// integer inputs the schema computes in the input type; the sampler keeps bias integral
// there, so no implementation-defined conversion of a fractional result enters.
#include <cmath>

#include "ops/elem_util.h"
#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace elemutil;

namespace {

void sampleShrink(OpDraft& d) {
  const bool integral = !isFloat(d.first().dtype);
  if (d.rng->bernoulli(0.7)) {
    const double lambd = d.rng->uniformReal(0.0, 2.0);
    d.attrs.setFloat("lambd", integral ? std::round(lambd) + 0.5 : lambd);
  }
  if (d.rng->bernoulli(0.7)) {
    const double bias = d.rng->uniformReal(-1.5, 1.5);
    d.attrs.setFloat("bias", integral ? std::round(bias) : bias);
  }
}

InferResult inferShrink(const InferArgs& args) {
  if (auto e = nnsupport::unknownAttr(args.attrs, {"bias", "lambd"}); !e.empty()) return InferResult::fail(e);
  for (auto name : {"bias", "lambd"})
    if (auto e = floatAttrError(args.attrs, name); !e.empty()) return InferResult::fail(e);
  return inferSameAsFirst(args);
}

void shrinkKernel(KernelArgs& a) {
  const double bias = a.attrs.getFloat("bias", 0.0), lambd = a.attrs.getFloat("lambd", 0.5);
  for (size_t i = 0; i < a.inputs[0]->data.size(); ++i) {
    const double x = a.inputs[0]->data[i];
    a.outputs[0].data[i] = x < -lambd ? x + bias : (x > lambd ? x - bias : 0.0);
  }
}

bool nearLambd(const KernelArgs& a) {
  if (!isFloat(a.inputs[0]->type.dtype)) return false;
  const double lambd = a.attrs.getFloat("lambd", 0.5);
  for (double x : a.inputs[0]->data)
    if (nearlyEqual(x, lambd) || nearlyEqual(x, -lambd)) return true;
  return false;
}

}  // namespace

const OpSpec& opShrink() {
  static const OpSpec s = [] {
    OpSpec t = unarySpec("Shrink", 9, kNumericTypes, shrinkKernel);
    t.attrs = {floatAttr("bias", -2, 2), floatAttr("lambd", 0, 2)};
    t.sampleAttrs = sampleShrink;
    t.infer = inferShrink;
    t.unstable = nearLambd;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
