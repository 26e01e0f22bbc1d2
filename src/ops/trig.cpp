// trig.cpp - the trigonometric and hyperbolic family without Sin and Cos (unary_math.cpp):
// Tan Asin Acos Atan (opset 7) and Sinh Cosh Asinh Acosh Atanh (opset 9).
//
// Each keeps its inputs inside a domain where the function is finite and well conditioned:
// Tan away from its poles at ±pi/2, Asin/Acos/Atanh inside (-1, 1) with a margin (their
// slopes blow up at ±1), Acosh above 1 (its slope blows up at 1), Sinh/Cosh where exp
// stays moderate. None has a discontinuity there, so none needs a stability check.
#include <cmath>

#include "ops/common.h"

namespace nnfuzz {

using namespace opsupport;

namespace {

double tanOf(double x) { return std::tan(x); }
double asinOf(double x) { return std::asin(x); }
double acosOf(double x) { return std::acos(x); }
double atanOf(double x) { return std::atan(x); }
double sinhOf(double x) { return std::sinh(x); }
double coshOf(double x) { return std::cosh(x); }
double asinhOf(double x) { return std::asinh(x); }
double acoshOf(double x) { return std::acosh(x); }
double atanhOf(double x) { return std::atanh(x); }

ValueRange awayFromPoles(DType) { return {-1.3, 1.3, 0.0}; }   // |tan| <= 3.6
ValueRange insideUnit(DType) { return {-0.95, 0.95, 0.0}; }    // slope <= 3.2
ValueRange insideUnitAtanh(DType) { return {-0.9, 0.9, 0.0}; }  // slope <= 5.3
ValueRange aboveOne(DType) { return {1.05, 6.0, 0.0}; }        // slope <= 3.2
ValueRange sinhSafe(DType) { return {-5.0, 5.0, 0.0}; }        // |sinh|, cosh <= 75
ValueRange wide(DType) { return {-8.0, 8.0, 0.0}; }

OpSpec trigSpec(std::string_view name, int since, void (*kernel)(KernelArgs&), ValueRange (*range)(DType)) {
  OpSpec s = unarySpec(name, since, kFloatTypes, kernel);
  s.firstRange = range;
  return s;
}

}  // namespace

const OpSpec& opTan() {
  static const OpSpec s = trigSpec("Tan", 7, mapKernel<tanOf>, awayFromPoles);
  return s;
}
const OpSpec& opAsin() {
  static const OpSpec s = trigSpec("Asin", 7, mapKernel<asinOf>, insideUnit);
  return s;
}
const OpSpec& opAcos() {
  static const OpSpec s = trigSpec("Acos", 7, mapKernel<acosOf>, insideUnit);
  return s;
}
const OpSpec& opAtan() {
  static const OpSpec s = trigSpec("Atan", 7, mapKernel<atanOf>, wide);
  return s;
}
const OpSpec& opSinh() {
  static const OpSpec s = trigSpec("Sinh", 9, mapKernel<sinhOf>, sinhSafe);
  return s;
}
const OpSpec& opCosh() {
  static const OpSpec s = trigSpec("Cosh", 9, mapKernel<coshOf>, sinhSafe);
  return s;
}
const OpSpec& opAsinh() {
  static const OpSpec s = trigSpec("Asinh", 9, mapKernel<asinhOf>, wide);
  return s;
}
const OpSpec& opAcosh() {
  static const OpSpec s = trigSpec("Acosh", 9, mapKernel<acoshOf>, aboveOne);
  return s;
}
const OpSpec& opAtanh() {
  static const OpSpec s = trigSpec("Atanh", 9, mapKernel<atanhOf>, insideUnitAtanh);
  return s;
}

}  // namespace nnfuzz
