// unary_math.cpp - elementwise math without attributes: Abs Neg Reciprocal Floor Ceil
// Round Sign Exp Log Sqrt Erf Sin Cos.
//
// Value-domain needs keep reference results finite and well conditioned (Log and Sqrt
// want positive inputs, Reciprocal wants |x| >= 0.1, Exp wants x <= 10); the rounding
// family is unstable when an input sits within a hair of its discontinuities.
#include <cmath>

#include "ops/common.h"

namespace nnfuzz {

using namespace opsupport;

namespace {

double absOf(double x) { return std::abs(x); }
double negOf(double x) { return -x; }
double reciprocalOf(double x) { return 1.0 / x; }
double floorOf(double x) { return std::floor(x); }
double ceilOf(double x) { return std::ceil(x); }
double roundHalfEven(double x) { return std::nearbyint(x); }  // default FE_TONEAREST: ties to even
double signOf(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }
double expOf(double x) { return std::exp(x); }
double logOf(double x) { return std::log(x); }
double sqrtOf(double x) { return std::sqrt(x); }
double erfOf(double x) { return std::erf(x); }
double sinOf(double x) { return std::sin(x); }
double cosOf(double x) { return std::cos(x); }

ValueRange positive(DType) { return {0.05, 4.0, 0.0}; }
ValueRange awayFromZero(DType) { return {-4.0, 4.0, 0.1}; }
ValueRange notHuge(DType) { return {-10.0, 10.0, 0.0}; }
ValueRange moderate(DType) { return {-8.0, 8.0, 0.0}; }

// Floor/Ceil jump at integers, Round at half-integers; Sign at zero.
bool nearInteger(const KernelArgs& a) {
  for (double x : a.inputs[0]->data)
    if (distanceToInteger(x) < kStabilityMargin) return true;
  return false;
}
bool nearHalfInteger(const KernelArgs& a) {
  for (double x : a.inputs[0]->data)
    if (distanceToInteger(x - 0.5) < kStabilityMargin) return true;
  return false;
}
bool nearZero(const KernelArgs& a) {
  const bool exact = a.inputs[0]->exact;  // an inexact 0 may be a SUT's +-1e-8
  for (double x : a.inputs[0]->data)
    if ((x != 0 || !exact) && std::abs(x) < kStabilityMargin) return true;
  return false;
}

OpSpec with(OpSpec s, ValueRange (*range)(DType), bool (*unstable)(const KernelArgs&) = nullptr) {
  s.firstRange = range;
  s.unstable = unstable;
  return s;
}

}  // namespace

const OpSpec& opAbs() {
  static const OpSpec s = unarySpec("Abs", 13, kNumericTypes, mapKernel<absOf>);
  return s;
}
const OpSpec& opNeg() {
  static const OpSpec s = unarySpec("Neg", 13, kSignedTypes, mapKernel<negOf>);
  return s;
}
const OpSpec& opReciprocal() {
  static const OpSpec s = with(unarySpec("Reciprocal", 13, kFloatTypes, mapKernel<reciprocalOf>), awayFromZero);
  return s;
}
const OpSpec& opFloor() {
  static const OpSpec s = with(unarySpec("Floor", 13, kFloatTypes, mapKernel<floorOf>), nullptr, nearInteger);
  return s;
}
const OpSpec& opCeil() {
  static const OpSpec s = with(unarySpec("Ceil", 13, kFloatTypes, mapKernel<ceilOf>), nullptr, nearInteger);
  return s;
}
const OpSpec& opRound() {
  static const OpSpec s = with(unarySpec("Round", 11, kFloatTypes, mapKernel<roundHalfEven>), nullptr, nearHalfInteger);
  return s;
}
const OpSpec& opSign() {
  static const OpSpec s = with(unarySpec("Sign", 13, kNumericTypes, mapKernel<signOf>), nullptr, nearZero);
  return s;
}
const OpSpec& opExp() {
  static const OpSpec s = with(unarySpec("Exp", 13, kFloatTypes, mapKernel<expOf>), notHuge);
  return s;
}
const OpSpec& opLog() {
  static const OpSpec s = with(unarySpec("Log", 13, kFloatTypes, mapKernel<logOf>), positive);
  return s;
}
const OpSpec& opSqrt() {
  static const OpSpec s = with(unarySpec("Sqrt", 13, kFloatTypes, mapKernel<sqrtOf>), positive);
  return s;
}
const OpSpec& opErf() {
  static const OpSpec s = saturating(unarySpec("Erf", 13, kFloatTypes, mapKernel<erfOf>));
  return s;
}
const OpSpec& opSin() {
  static const OpSpec s = with(unarySpec("Sin", 7, kFloatTypes, mapKernel<sinOf>), moderate);
  return s;
}
const OpSpec& opCos() {
  static const OpSpec s = with(unarySpec("Cos", 7, kFloatTypes, mapKernel<cosOf>), moderate);
  return s;
}

}  // namespace nnfuzz
