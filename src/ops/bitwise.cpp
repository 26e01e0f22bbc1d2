// bitwise.cpp - BitwiseAnd BitwiseOr BitwiseXor BitwiseNot (opset 18) on the integer types
// GraphIR has (int8, uint8, int32, int64); the binary ones broadcast multidirectionally.
//
// Values are held as doubles; the kernels work on their two's-complement int64 bits and
// the interpreter's rounding wraps the result to the dtype, which keeps exactly the low
// bits (~x of a uint8 is -x - 1 in int64, 255 - x once wrapped). Fresh operands span the
// whole 8-bit types and a wide band of the 32/64-bit ones, so high and sign bits are set.
// Results are exact: nothing is unstable.
#include "ops/elem_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;

namespace {

const std::vector<DType> kIntegerTypes{DType::Int32, DType::Int64, DType::Int8, DType::UInt8};

ValueRange bitsRange(DType dtype) {
  switch (dtype) {
    case DType::Int8: return {-128, 127, 0};
    case DType::UInt8: return {0, 255, 0};
    default: return {-100000, 100000, 0};
  }
}

int64_t bitsOf(double x) { return shapeops::saturatingInt(x); }

double bitwiseAndOf(double x, double y) { return static_cast<double>(bitsOf(x) & bitsOf(y)); }
double bitwiseOrOf(double x, double y) { return static_cast<double>(bitsOf(x) | bitsOf(y)); }
double bitwiseXorOf(double x, double y) { return static_cast<double>(bitsOf(x) ^ bitsOf(y)); }
double notOf(double x) { return static_cast<double>(~bitsOf(x)); }

InputPattern bitsOperand(const OpDraft& d) {
  return elemutil::broadcastOperand(d.first().shape, d.first().dtype, *d.limits, bitsRange(d.first().dtype));
}

InferResult inferBinary(const InferArgs& a) {
  if (std::string e = shapeops::unknownAttribute(a.attrs, {}); !e.empty()) return InferResult::fail(e);
  return inferBroadcast(a);
}

OpSpec binarySpec(std::string_view name, void (*kernel)(KernelArgs&)) {
  OpSpec s;
  s.name = name;
  s.sinceVersion = 18;
  s.minInputs = s.maxInputs = 2;
  s.dtypes = kIntegerTypes;
  s.firstRange = bitsRange;
  s.nextInput = bitsOperand;
  s.infer = inferBinary;
  s.reference = kernel;
  return s;
}

}  // namespace

const OpSpec& opBitwiseAnd() {
  static const OpSpec s = binarySpec("BitwiseAnd", binaryKernel<bitwiseAndOf>);
  return s;
}
const OpSpec& opBitwiseOr() {
  static const OpSpec s = binarySpec("BitwiseOr", binaryKernel<bitwiseOrOf>);
  return s;
}
const OpSpec& opBitwiseXor() {
  static const OpSpec s = binarySpec("BitwiseXor", binaryKernel<bitwiseXorOf>);
  return s;
}
const OpSpec& opBitwiseNot() {
  static const OpSpec s = [] {
    OpSpec t = unarySpec("BitwiseNot", 18, kIntegerTypes, mapKernel<notOf>);
    t.firstRange = bitsRange;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
