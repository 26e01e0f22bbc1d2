// variadic.cpp - Max Min Mean Sum: 1..N operands of one dtype, all broadcast together
// (multidirectional). Generation caps the arity at 4; the checker takes any number.
#include <algorithm>
#include <limits>

#include "ops/elem_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace elemutil;

namespace {

// Each further operand broadcasts with the result of all earlier ones.
InputPattern nextOperand(const OpDraft& d) {
  return broadcastOperand(broadcastSoFar(d), d.first().dtype, *d.limits, defaultRange(d.first().dtype));
}

void maxKernel(KernelArgs& a) {
  broadcastKernel(a, [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); });
}
void minKernel(KernelArgs& a) {
  broadcastKernel(a, [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
}
void sumKernel(KernelArgs& a) {
  broadcastKernel(a, [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s;
  });
}
void meanKernel(KernelArgs& a) {
  broadcastKernel(a, [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return s / static_cast<double>(v.size());
  });
}

InferResult inferVariadic(const InferArgs& args) {
  for (size_t k = 1; k < args.inputs.size(); ++k)
    if (!args.inputs[k]) return InferResult::fail("operand " + std::to_string(k) + " may not be omitted");
  return inferBroadcast(args);
}

OpSpec variadicSpec(std::string_view name, std::vector<DType> dtypes, void (*kernel)(KernelArgs&)) {
  OpSpec s;
  s.name = name;
  s.sinceVersion = 13;
  s.minInputs = 1;
  s.maxInputs = std::numeric_limits<int>::max();
  s.maxGenInputs = 4;
  s.dtypes = std::move(dtypes);
  s.nextInput = nextOperand;
  s.infer = inferVariadic;
  s.reference = kernel;
  return s;
}

}  // namespace

const OpSpec& opMax() {
  static const OpSpec s = variadicSpec("Max", kNumericTypes, maxKernel);
  return s;
}
const OpSpec& opMin() {
  static const OpSpec s = variadicSpec("Min", kNumericTypes, minKernel);
  return s;
}
const OpSpec& opMean() {
  static const OpSpec s = variadicSpec("Mean", kFloatTypes, meanKernel);
  return s;
}
const OpSpec& opSum() {
  static const OpSpec s = variadicSpec("Sum", kFloatTypes, sumKernel);
  return s;
}

}  // namespace nnfuzz
