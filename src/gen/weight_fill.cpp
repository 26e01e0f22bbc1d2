// weight_fill.cpp - see weight_fill.h.
#include "gen/weight_fill.h"

#include <cmath>

#include "ops/registry.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

bool allows(const ValueRange& r, double v) {
  return v >= r.lo && v <= r.hi && std::fabs(v) >= r.minMagnitude;
}

}  // namespace

WeightFills parseWeightFills(const nlohmann::json& json) {
  if (!json.is_object()) throw Error("config: weight_fill: expected an object like {\"Conv\": {\"sparsity\": 0.5}}");
  WeightFills fills;
  for (const auto& [op, rule] : json.items()) {
    const std::string where = "config: weight_fill." + op + ": ";
    if (op != "*" && !findOp(op)) throw Error(where + "unknown operator");
    if (!rule.is_object()) throw Error(where + "expected an object with constant and/or sparsity");
    WeightFill f{op, std::nullopt, 0.0};
    for (const auto& [key, value] : rule.items()) {
      if (!value.is_number()) throw Error(where + key + " must be a number");
      if (key == "constant") f.constant = value.get<double>();
      else if (key == "sparsity") f.sparsity = value.get<double>();
      else throw Error(where + "unknown field '" + key + "' (known: constant, sparsity)");
    }
    if (!(f.sparsity >= 0 && f.sparsity <= 1)) throw Error(where + "sparsity must be in [0, 1]");
    fills.push_back(std::move(f));
  }
  return fills;
}

nlohmann::json weightFillsToJson(const WeightFills& fills) {
  nlohmann::json j = nlohmann::json::object();
  for (const WeightFill& f : fills) {
    nlohmann::json rule = {{"sparsity", f.sparsity}};
    if (f.constant) rule["constant"] = *f.constant;
    j[f.op] = rule;
  }
  return j;
}

void fillWeights(const WeightFills& fills, std::string_view op, const Instantiation& inst,
                 const std::vector<bool>& isWeight, std::vector<Tensor>& fresh, Rng& rng) {
  const WeightFill* rule = nullptr;
  for (const WeightFill& f : fills)
    if (f.op == op || (!rule && f.op == "*")) rule = &f;
  if (!rule) return;
  for (size_t k = 0; k < inst.operands.size(); ++k) {
    const Operand& operand = inst.operands[k];
    if (operand.omitted || operand.existing != kNoValue || operand.constant || !isWeight[k]) continue;
    if (!isFloat(operand.type.dtype)) continue;
    Tensor& t = fresh[k];
    if (rule->constant && allows(operand.range, *rule->constant))
      for (double& v : t.data) v = static_cast<double>(static_cast<float>(*rule->constant));
    if (rule->sparsity > 0 && allows(operand.range, 0.0))
      for (double& v : t.data)
        if (rng.bernoulli(rule->sparsity)) v = 0.0;
  }
}

}  // namespace nnfuzz
