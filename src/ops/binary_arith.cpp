// binary_arith.cpp - Add Sub Mul Div Pow Mod: binary arithmetic with multidirectional
// (numpy) broadcasting.
//
// Integer semantics are C's / ONNX Runtime's: wrap-around on overflow (the interpreter's
// rounding), Div truncating toward zero, Mod with fmod=0 taking the divisor's sign
// (Python %) and with fmod=1 the dividend's (C fmod). Divisors keep |y| >= 0.5 (non-zero
// for integers). Pow's exponent may have another dtype than the base; float bases stay
// positive so any exponent is defined, integer bases take exponents >= 0.
#include <cmath>

#include "ops/elem_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace elemutil;

namespace {

/// Computed divisors below this size are too close to 0 to divide by across SUTs.
constexpr double kTinyDivisor = 1e-6;

double addOf(double x, double y) { return x + y; }
double subOf(double x, double y) { return x - y; }
double mulOf(double x, double y) { return x * y; }
double divOf(double x, double y) { return x / y; }  // integers: the rounding truncates toward zero
double powOf(double x, double y) { return std::pow(x, y); }
double fmodOf(double x, double y) { return std::fmod(x, y); }
double pyModOf(double x, double y) {
  double r = std::fmod(x, y);
  if (r != 0 && (r < 0) != (y < 0)) r += y;
  return r;
}

// The second operand: same dtype, broadcasting with the first.
InputPattern sameTypeOperand(const OpDraft& d) {
  return broadcastOperand(d.first().shape, d.first().dtype, *d.limits, defaultRange(d.first().dtype));
}
InputPattern divisorOperand(const OpDraft& d) {
  ValueRange r = defaultRange(d.first().dtype);
  r.minMagnitude = 0.5;
  return broadcastOperand(d.first().shape, d.first().dtype, *d.limits, r);
}

OpSpec binarySpec(std::string_view name, int since, std::vector<DType> dtypes, void (*kernel)(KernelArgs&),
                  InputPattern (*next)(const OpDraft&) = sameTypeOperand) {
  OpSpec s;
  s.name = name;
  s.sinceVersion = since;
  s.minInputs = s.maxInputs = 2;
  s.dtypes = std::move(dtypes);
  s.nextInput = next;
  s.infer = [](const InferArgs& args) { return inferBroadcast(args); };
  s.reference = kernel;
  return s;
}

// ---- Pow -------------------------------------------------------------------------------

const std::vector<DType> kPowBaseTypes{DType::Float32, DType::Float64, DType::Int32, DType::Int64};

ValueRange powBaseRange(DType dtype) {
  if (isFloat(dtype)) return {0.1, 3.0, 0.0};
  return defaultRange(dtype);
}

ValueRange powExponentRange(DType base, DType exponent) {
  if (isFloat(base)) {
    if (isFloat(exponent)) return {-2.0, 2.0, 0.0};
    return exponent == DType::UInt8 ? ValueRange{0.0, 3.0, 0.0} : ValueRange{-2.0, 3.0, 0.0};
  }
  // Integer bases: no negative exponents (1/x^n truncates to 0 or divides by zero).
  return isFloat(exponent) ? ValueRange{0.0, 2.5, 0.0} : ValueRange{0.0, 3.0, 0.0};
}

InputPattern powExponent(const OpDraft& d) {
  const DType base = d.first().dtype;
  const DType exponent = d.rng->bernoulli(0.5) ? base : sampleDType(*d.rng, *d.limits, kNumericTypes);
  return broadcastOperand(d.first().shape, exponent, *d.limits, powExponentRange(base, exponent));
}

InferResult inferPow(const InferArgs& args) {
  const TensorType& x = *args.inputs[0];
  if (!args.inputs[1]) return InferResult::fail("exponent is missing");
  const TensorType& y = *args.inputs[1];
  if (!contains(kNumericTypes, y.dtype)) return InferResult::fail("exponent may not be " + std::string(dtypeName(y.dtype)));
  auto shape = broadcastShapes(x.shape, y.shape);
  if (!shape) return InferResult::fail("shapes do not broadcast");
  return {{TensorType{x.dtype, *shape}}, {}};
}

// An integer base with a fractional exponent: the result is truncated, so it jumps at
// integers (perfect powers such as 4^0.5 come out as 1.9999 in exp/log implementations),
// and a negative base gives NaN. An exponent of exactly 0 or 1 is trusted only from an
// exact tensor (ops/exactness.h): a window's 0 may be a SUT's 1e-8, and 0^y jumps at y = 0.
// 0 to a negative power is infinite, which no integer holds (ONNX Runtime gives INT64_MIN);
// the samplers never draw it, but neuri's records reuse any float exponent.
bool powUnstable(const KernelArgs& a) {
  if (isFloat(a.inputs[0]->type.dtype)) return false;
  const bool floatExponent = isFloat(a.inputs[1]->type.dtype), exactExponent = a.inputs[1]->exact;
  return anyBroadcastPair(a, 0, 1, [floatExponent, exactExponent](double x, double y) {
    if (x == 0 && y < 0) return true;
    if (!floatExponent || x == 1) return false;
    if (exactExponent && (y == 0 || y == 1)) return false;
    if (x == 0) return !exactExponent && std::abs(y) < kStabilityMargin;
    if (x < 0) return y != std::trunc(y) || !exactExponent;
    return distanceToInteger(std::pow(x, y)) < kStabilityMargin;
  });
}

// ---- Div -------------------------------------------------------------------------------

// The samplers keep divisors at |y| >= 0.5, but neuri's records and the reducer reuse any
// value: an integer 0 divides by zero, and a tiny computed divisor (2.9e-8 here, 0 in a SUT
// that flushes denormals) makes the quotient noise.
bool divUnstable(const KernelArgs& a) {
  const bool exactDivisor = a.inputs[1]->exact;
  return anyBroadcastPair(a, 0, 1, [exactDivisor](double, double y) {
    return y == 0 || (!exactDivisor && std::abs(y) < kTinyDivisor);
  });
}

// ---- Mod -------------------------------------------------------------------------------

void sampleMod(OpDraft& d) {
  // Floats require fmod=1; integers take both, the default 0 sometimes left implicit.
  if (isFloat(d.first().dtype)) {
    d.attrs.setInt("fmod", 1);
  } else if (d.rng->bernoulli(0.5)) {
    d.attrs.setInt("fmod", 1);
  } else if (d.rng->bernoulli(0.5)) {
    d.attrs.setInt("fmod", 0);
  }
}

InferResult inferMod(const InferArgs& args) {
  if (args.attrs.hasWrongKind<int64_t>("fmod")) return InferResult::fail("attribute fmod must be an int");
  const int64_t fmod = args.attrs.getInt("fmod", 0);
  if (fmod != 0 && fmod != 1) return InferResult::fail("fmod must be 0 or 1");
  if (fmod == 0 && isFloat(args.inputs[0]->dtype)) return InferResult::fail("float inputs need fmod=1");
  return inferBroadcast(args);
}

void modKernel(KernelArgs& a) {
  if (a.attrs.getInt("fmod", 0) == 1)
    binaryKernel<fmodOf>(a);
  else
    binaryKernel<pyModOf>(a);
}

// Float fmod jumps where x/y crosses a non-zero integer. An exact integer quotient is
// trusted only between integer-valued operands of exact tensors (ops/exactness.h):
// y = x computed another way (a Resize that copies, say) may land a hair either side.
bool modUnstable(const KernelArgs& a) {
  if (!isFloat(a.inputs[0]->type.dtype)) return false;
  const bool exact = a.inputs[0]->exact && a.inputs[1]->exact;
  return anyBroadcastPair(a, 0, 1, [exact](double x, double y) {
    const double q = x / y;
    const double dist = distanceToInteger(q);
    if (std::abs(q) < 0.5 || dist >= kStabilityMargin) return false;
    return !(dist == 0 && exact && x == std::round(x) && y == std::round(y));
  });
}

}  // namespace

const OpSpec& opAdd() {
  static const OpSpec s = binarySpec("Add", 14, kNumericTypes, binaryKernel<addOf>);
  return s;
}
const OpSpec& opSub() {
  static const OpSpec s = binarySpec("Sub", 14, kNumericTypes, binaryKernel<subOf>);
  return s;
}
const OpSpec& opMul() {
  static const OpSpec s = binarySpec("Mul", 14, kNumericTypes, binaryKernel<mulOf>);
  return s;
}
const OpSpec& opDiv() {
  static const OpSpec s = [] {
    OpSpec t = binarySpec("Div", 14, kNumericTypes, binaryKernel<divOf>, divisorOperand);
    t.unstable = divUnstable;
    return t;
  }();
  return s;
}
const OpSpec& opPow() {
  static const OpSpec s = [] {
    OpSpec t = binarySpec("Pow", 15, kPowBaseTypes, binaryKernel<powOf>, powExponent);
    t.firstRange = powBaseRange;
    t.infer = inferPow;
    t.unstable = powUnstable;
    return t;
  }();
  return s;
}
const OpSpec& opMod() {
  static const OpSpec s = [] {
    OpSpec t = binarySpec("Mod", 13, kNumericTypes, modKernel, divisorOperand);
    t.attrs = {intAttr("fmod", 0, 1)};
    t.sampleAttrs = sampleMod;
    t.infer = inferMod;
    t.unstable = modUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
