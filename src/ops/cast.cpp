// cast.cpp - Cast-13 (to any of nnfuzz's dtypes), CastLike-15 (to the dtype of a second
// operand, whose values are not read) and Identity-16.
//
// The kernel only copies: the interpreter's rounding to the output dtype is exactly
// Cast's conversion (float rounding, truncation toward zero with wrap-around between
// integers, x != 0 for bool). Float -> integer is unstable within a hair of an integer
// (truncation jumps there) and undefined when the truncated value does not fit the
// target type; float -> bool is unstable for tiny non-zero inputs. Integers and zeros of an
// exact tensor (ops/exactness.h: Floor, Relu, data movement, ...) are trusted; elsewhere a
// 0 or an integer may be a SUT's few ulps either side.
#include <cmath>

#include "ops/elem_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace elemutil;

namespace {

std::optional<DType> targetOf(const Attributes& attrs) {
  if (!attrs.has("to") || attrs.hasWrongKind<int64_t>("to")) return std::nullopt;
  return dtypeFromOnnx(static_cast<int>(attrs.getInt("to", 0)));
}

void sampleCast(OpDraft& d) {
  d.attrs.setInt("to", onnxElemType(sampleDType(*d.rng, *d.limits, kAllTypes)));
}

InferResult inferCast(const InferArgs& args) {
  if (!args.attrs.has("to")) return InferResult::fail("attribute to is required");
  if (args.attrs.hasWrongKind<int64_t>("to")) return InferResult::fail("attribute to must be an int");
  auto to = targetOf(args.attrs);
  if (!to) return InferResult::fail("unsupported target type " + std::to_string(args.attrs.getInt("to", 0)));
  return {{TensorType{*to, args.inputs[0]->shape}}, {}};
}

void copyKernel(KernelArgs& a) { a.outputs[0].data = a.inputs[0]->data; }

// Whether the truncation of x fits the integer dtype (else C++ conversion is undefined).
bool fits(DType to, double x) {
  const double t = std::trunc(x);
  switch (to) {
    case DType::Int8: return t >= -128 && t <= 127;
    case DType::UInt8: return t >= 0 && t <= 255;
    case DType::Int32: return t >= -2147483648.0 && t <= 2147483647.0;
    case DType::Int64: return std::abs(t) < 9.2e18;
    default: return true;
  }
}

bool castUnstableTo(const KernelArgs& a, std::optional<DType> to) {
  const DType from = a.inputs[0]->type.dtype;
  if (!isFloat(from) || !to || isFloat(*to)) return false;
  const bool exact = a.inputs[0]->exact;
  for (double x : a.inputs[0]->data) {
    if (*to == DType::Bool) {
      if ((x != 0 || !exact) && std::abs(x) < kStabilityMargin) return true;
      continue;
    }
    const double d = distanceToInteger(x);
    if (((d != 0 || !exact) && d < kStabilityMargin) || !fits(*to, x)) return true;
  }
  return false;
}

bool castUnstable(const KernelArgs& a) { return castUnstableTo(a, targetOf(a.attrs)); }
bool castLikeUnstable(const KernelArgs& a) { return castUnstableTo(a, a.inputs[1]->type.dtype); }

// The target: any dtype the generator may create, any small shape (only its dtype counts).
InputPattern castLikeTarget(const OpDraft& d) {
  InputPattern p;
  const Limits limits = *d.limits;
  p.accepts = [](const TensorType&) { return true; };
  p.sample = [limits](Rng& rng) {
    return TensorType{sampleDType(rng, limits, kAllTypes), sampleShape(rng, limits, static_cast<int>(rng.uniformInt(0, 2)))};
  };
  return p;
}

InferResult inferCastLike(const InferArgs& args) {
  if (!args.attrs.empty()) return InferResult::fail("CastLike takes no attributes");
  if (!args.inputs[1]) return InferResult::fail("target_type is missing");
  return {{TensorType{args.inputs[1]->dtype, args.inputs[0]->shape}}, {}};
}

}  // namespace

const OpSpec& opCast() {
  static const OpSpec s = [] {
    OpSpec t = unarySpec("Cast", 13, kAllTypes, copyKernel);
    t.attrs = {intAttr("to", 1, 16)};
    t.sampleAttrs = sampleCast;
    t.infer = inferCast;
    t.unstable = castUnstable;
    return t;
  }();
  return s;
}

const OpSpec& opCastLike() {
  static const OpSpec s = [] {
    OpSpec t = unarySpec("CastLike", 15, kAllTypes, copyKernel);
    t.minInputs = t.maxInputs = 2;
    t.nextInput = castLikeTarget;
    t.infer = inferCastLike;
    t.unstable = castLikeUnstable;
    return t;
  }();
  return s;
}

const OpSpec& opIdentity() {
  static const OpSpec s = unarySpec("Identity", 16, kAllTypes, copyKernel);
  return s;
}

}  // namespace nnfuzz
