// compare_logic.cpp - comparisons Equal Less Greater LessOrEqual GreaterOrEqual (bool
// result), logic And Or Xor Not on bools, and Where(condition, X, Y); every binary op
// broadcasts multidirectionally, Where broadcasts all three operands together.
//
// A float comparison is unstable when its operands are nearly equal: float32 rounding
// upstream may flip it. Operands that are the same tensor compare exactly, and so do equal
// values of exact tensors (ops/exactness.h: inputs, Floor, Cast, data movement, ...).
#include <cmath>

#include "ops/elem_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace elemutil;

namespace {

const std::vector<DType> kBool{DType::Bool};

template <bool (*F)(double, double)>
void compareKernel(KernelArgs& a) {
  broadcastKernel(a, [](const std::vector<double>& v) { return F(v[0], v[1]) ? 1.0 : 0.0; });
}

bool eqOf(double x, double y) { return x == y; }
bool ltOf(double x, double y) { return x < y; }
bool gtOf(double x, double y) { return x > y; }
bool leOf(double x, double y) { return x <= y; }
bool geOf(double x, double y) { return x >= y; }
bool andOf(double x, double y) { return x != 0 && y != 0; }
bool orOf(double x, double y) { return x != 0 || y != 0; }
bool xorOf(double x, double y) { return (x != 0) != (y != 0); }

bool compareUnstable(const KernelArgs& a) {
  if (!isFloat(a.inputs[0]->type.dtype) || a.inputs[0] == a.inputs[1]) return false;
  const bool exact = a.inputs[0]->exact && a.inputs[1]->exact;
  return anyBroadcastPair(a, 0, 1, [exact](double x, double y) { return !(exact && x == y) && nearlyEqual(x, y); });
}

InputPattern comparableOperand(const OpDraft& d) {
  return broadcastOperand(d.first().shape, d.first().dtype, *d.limits, defaultRange(d.first().dtype));
}

InferResult inferToBool(const InferArgs& args) { return inferBroadcast(args, DType::Bool); }

OpSpec binaryToBool(std::string_view name, int since, std::vector<DType> dtypes, void (*kernel)(KernelArgs&),
                    bool (*unstable)(const KernelArgs&)) {
  OpSpec s;
  s.name = name;
  s.sinceVersion = since;
  s.minInputs = s.maxInputs = 2;
  s.dtypes = std::move(dtypes);
  s.nextInput = comparableOperand;
  s.infer = inferToBool;
  s.reference = kernel;
  s.unstable = unstable;
  return s;
}

// ---- Where -----------------------------------------------------------------------------

// X takes any dtype (chosen here so its fresh values get that dtype's range); Y matches X.
InputPattern whereOperand(const OpDraft& d) {
  const Shape with = broadcastSoFar(d);
  const DType dtype = d.inputTypes.size() == 1 ? sampleDType(*d.rng, *d.limits, kAllTypes) : d.inputTypes[1].dtype;
  return broadcastOperand(with, dtype, *d.limits, defaultRange(dtype));
}

InferResult inferWhere(const InferArgs& args) {
  if (!args.inputs[1] || !args.inputs[2]) return InferResult::fail("X and Y are required");
  if (args.inputs[1]->dtype != args.inputs[2]->dtype) return InferResult::fail("X and Y differ in dtype");
  Shape shape = args.inputs[0]->shape;
  for (size_t k = 1; k < 3; ++k) {
    auto b = broadcastShapes(shape, args.inputs[k]->shape);
    if (!b) return InferResult::fail("shapes do not broadcast");
    shape = *b;
  }
  return {{TensorType{args.inputs[1]->dtype, shape}}, {}};
}

void whereKernel(KernelArgs& a) {
  broadcastKernel(a, [](const std::vector<double>& v) { return v[0] != 0 ? v[1] : v[2]; });
}

void notKernel(KernelArgs& a) {
  for (size_t i = 0; i < a.inputs[0]->data.size(); ++i) a.outputs[0].data[i] = a.inputs[0]->data[i] != 0 ? 0.0 : 1.0;
}

}  // namespace

const OpSpec& opEqual() {
  static const OpSpec s = binaryToBool("Equal", 13, kAllTypes, compareKernel<eqOf>, compareUnstable);
  return s;
}
const OpSpec& opLess() {
  static const OpSpec s = binaryToBool("Less", 13, kNumericTypes, compareKernel<ltOf>, compareUnstable);
  return s;
}
const OpSpec& opGreater() {
  static const OpSpec s = binaryToBool("Greater", 13, kNumericTypes, compareKernel<gtOf>, compareUnstable);
  return s;
}
const OpSpec& opLessOrEqual() {
  static const OpSpec s = binaryToBool("LessOrEqual", 16, kNumericTypes, compareKernel<leOf>, compareUnstable);
  return s;
}
const OpSpec& opGreaterOrEqual() {
  static const OpSpec s = binaryToBool("GreaterOrEqual", 16, kNumericTypes, compareKernel<geOf>, compareUnstable);
  return s;
}
const OpSpec& opAnd() {
  static const OpSpec s = binaryToBool("And", 7, kBool, compareKernel<andOf>, nullptr);
  return s;
}
const OpSpec& opOr() {
  static const OpSpec s = binaryToBool("Or", 7, kBool, compareKernel<orOf>, nullptr);
  return s;
}
const OpSpec& opXor() {
  static const OpSpec s = binaryToBool("Xor", 7, kBool, compareKernel<xorOf>, nullptr);
  return s;
}
const OpSpec& opNot() {
  static const OpSpec s = unarySpec("Not", 1, kBool, notKernel);
  return s;
}
const OpSpec& opWhere() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "Where";
    t.sinceVersion = 16;
    t.minInputs = t.maxInputs = 3;
    t.dtypes = kBool;
    t.typeOperand = 1;  // ONNX's T is X's dtype; the condition is always bool
    t.nextInput = whereOperand;
    t.infer = inferWhere;
    t.reference = whereKernel;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
