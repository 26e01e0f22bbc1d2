// exactness.cpp - the rules of exactness.h.
#include "ops/exactness.h"

#include <cmath>
#include <string_view>
#include <vector>

#include "support/name_table.h"

namespace nnfuzz {

namespace {

enum class Rule : uint8_t { None, Selecting, Integral, IntegerArithmetic };

// Each operator's rule, looked up once a result (the three lists are disjoint).
const NameTable<Rule>& rules() {
  static const NameTable<Rule> table = [] {
    std::vector<std::pair<std::string_view, Rule>> entries;
    // Results are operand elements (or fixed values) moved, selected or negated.
    for (std::string_view op :
         {"Abs",        "CastLike",     "Clip",         "Compress",   "Concat",        "ConstantOfShape", "DepthToSpace",
          "Dropout",    "Expand",       "EyeLike",      "Flatten",    "Gather",        "GatherElements",  "GatherND",
          "GlobalMaxPool", "Identity",  "Max",          "MaxPool",    "Min",           "Neg",             "Pad",
          "ReduceMax",  "ReduceMin",    "Relu",         "Reshape",    "ReverseSequence", "ScatterElements", "ScatterND",
          "Slice",      "SpaceToDepth", "Split",        "Squeeze",    "Tile",          "TopK",            "Transpose",
          "Trilu",      "Unsqueeze",    "Where",        "Shape",         "Size",            "MaxUnpool",
          "Cast"})
      entries.emplace_back(op, Rule::Selecting);
    // Integral results of a checked discontinuity (Cast's conversions are correctly rounded).
    for (std::string_view op : {"Floor", "Ceil", "Round", "Sign", "Hardmax"}) entries.emplace_back(op, Rule::Integral);
    // Exact while every element and every partial result is an integer the dtype holds.
    for (std::string_view op : {"Add", "Sub", "Mul", "Sum", "ReduceSum", "CumSum"})
      entries.emplace_back(op, Rule::IntegerArithmetic);
    return NameTable<Rule>(entries);
  }();
  return table;
}

double integerLimit(DType dtype) { return dtype == DType::Float64 ? 9007199254740992.0 : 16777216.0; }

bool integerValued(const Tensor& t) {
  for (double x : t.data)
    if (x != std::trunc(x)) return false;
  return true;
}

/// Integer-valued operands and result with the sum of all operand magnitudes (a bound on
/// every partial sum) and every element below the dtype's integer limit.
bool exactIntegerArithmetic(std::span<const Tensor* const> inputs, const Tensor& result) {
  const double limit = integerLimit(result.type.dtype);
  double total = 0;
  for (const Tensor* t : inputs) {
    if (!t || !isFloat(t->type.dtype)) continue;
    if (!integerValued(*t)) return false;
    for (double x : t->data) total += std::abs(x);
  }
  if (!(total < limit) || !integerValued(result)) return false;
  for (double x : result.data)
    if (!(std::abs(x) < limit)) return false;
  return true;
}

}  // namespace

bool allExact(std::span<const Tensor* const> inputs) {
  for (const Tensor* t : inputs)
    if (t && !t->exact) return false;
  return true;
}

bool anyNoisy(std::span<const Tensor* const> inputs) {
  for (const Tensor* t : inputs)
    if (t && t->noisy) return true;
  return false;
}

bool unstableCall(const OpSpec& spec, const KernelArgs& call) {
  return spec.unstable && (anyNoisy(call.inputs) || spec.unstable(call));
}

bool exactResult(const OpSpec& spec, std::span<const Tensor* const> inputs, const Tensor& result) {
  if (!isFloat(result.type.dtype)) return true;
  const Rule* found = rules().find(spec.name);
  const Rule rule = found ? *found : Rule::None;
  if (rule == Rule::Integral) return true;
  if (!allExact(inputs)) return false;
  if (rule == Rule::Selecting) return true;
  if (rule == Rule::IntegerArithmetic) return exactIntegerArithmetic(inputs, result);
  return false;
}

}  // namespace nnfuzz
