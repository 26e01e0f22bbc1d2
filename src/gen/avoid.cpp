#include "gen/avoid.h"

#include <algorithm>

#include "ops/registry.h"
#include "support/error.h"

namespace nnfuzz {

using nlohmann::json;

namespace {

// The ONNX Runtime profile lives in config/onnxruntime_avoid.json (written by
// tools/probe_ort_kernels.py plus hand-written rules with a "why") and is compiled in.
constexpr const char* kOnnxRuntimeRules =
#include "onnxruntime_avoid.inc"
    ;

template <typename T>
bool containsValue(const std::vector<T>& list, const T& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

[[noreturn]] void bad(size_t index, const std::string& why) {
  throw Error("config field 'avoid' entry " + std::to_string(index) + ": " + why);
}

}  // namespace

bool AvoidRule::matches(const OpSpec& spec, std::span<const TensorType* const> operands,
                        const Attributes& attributes) const {
  if (&spec != op) return false;
  for (int k : omitted)
    if (static_cast<size_t>(k) < operands.size() && operands[static_cast<size_t>(k)]) return false;
  for (int k : empty) {
    const auto at = static_cast<size_t>(k);
    if (at >= operands.size() || operands[at]) return false;
    for (size_t later = at + 1; later < operands.size(); ++later)
      if (operands[later]) return false;  // a middle empty name: not this rule's case
  }
  if (!dtypes.empty() || !ranks.empty()) {
    const auto k = static_cast<size_t>(operand >= 0 ? operand : spec.typeOperand);
    if (k >= operands.size() || !operands[k]) return false;
    if (!dtypes.empty() && !containsValue(dtypes, operands[k]->dtype)) return false;
    if (!ranks.empty() && !containsValue(ranks, operands[k]->rank())) return false;
  }
  for (const auto& [attrName, values] : attrs) {
    const std::string& name = attrName;  // clang 14 cannot capture a structured binding
    auto it = std::find_if(attributes.begin(), attributes.end(), [&](const auto& kv) { return kv.first == name; });
    if (it == attributes.end()) return false;
    if (containsValue(values, std::string("*"))) continue;
    const auto* s = std::get_if<std::string>(&it->second);
    if (!containsValue(values, s ? *s : attrText(it->second))) return false;
  }
  return true;
}

std::vector<AvoidRule> parseAvoidRules(const json& j) {
  if (!j.is_array()) throw Error("config field 'avoid': expected a list of rules like {\"op\": \"Mean\", \"dtypes\": [\"f64\"]}");
  std::vector<AvoidRule> rules;
  for (size_t i = 0; i < j.size(); ++i) {
    const json& r = j[i];
    if (!r.is_object() || !r.contains("op") || !r["op"].is_string()) bad(i, "needs an \"op\" name");
    AvoidRule rule;
    rule.op = findOp(r["op"].get<std::string>());
    if (!rule.op) bad(i, "unknown operator '" + r["op"].get<std::string>() + "'");
    for (const auto& [key, value] : r.items()) {
      if (key == "op") continue;
      if (key == "operand") {
        if (!value.is_number_integer() || value.get<int>() < 0 || value.get<int>() >= rule.op->maxInputs)
          bad(i, "operand must be an input index of " + std::string(rule.op->name));
        rule.operand = value.get<int>();
      } else if (key == "why") {
        rule.why = value.is_string() ? value.get<std::string>() : value.dump();
      } else if (key == "dtypes") {
        if (!value.is_array()) bad(i, "dtypes must be a list");
        for (const json& d : value) {
          auto dtype = d.is_string() ? dtypeFromName(d.get<std::string>()) : std::nullopt;
          if (!dtype) bad(i, "unknown dtype " + d.dump());
          rule.dtypes.push_back(*dtype);
        }
      } else if (key == "ranks") {
        if (!value.is_array()) bad(i, "ranks must be a list");
        for (const json& k : value) {
          if (!k.is_number_integer()) bad(i, "ranks must be integers");
          rule.ranks.push_back(k.get<int>());
        }
      } else if (key == "opsets") {
        if (!value.is_array()) bad(i, "opsets must be a list");
        for (const json& k : value) {
          if (!k.is_number_integer()) bad(i, "opsets must be integers");
          rule.opsets.push_back(k.get<int>());
        }
      } else if (key == "omitted" || key == "empty") {
        if (!value.is_array()) bad(i, key + " must be a list of operand indices");
        for (const json& k : value) {
          if (!k.is_number_integer() || k.get<int>() < 0 || k.get<int>() >= rule.op->maxInputs)
            bad(i, key + " must hold input indices of " + std::string(rule.op->name));
          (key == "empty" ? rule.empty : rule.omitted).push_back(k.get<int>());
        }
      } else if (key == "attrs") {
        if (!value.is_object()) bad(i, "attrs must map names to lists of values");
        for (const auto& [name, list] : value.items()) {
          if (!list.is_array()) bad(i, "attrs." + name + " must be a list");
          std::vector<std::string> texts;
          for (const json& v : list) texts.push_back(v.is_string() ? v.get<std::string>() : v.dump());
          rule.attrs.emplace_back(name, std::move(texts));
        }
      } else {
        bad(i, "unknown key '" + key + "'");
      }
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

json avoidRulesToJson(const std::vector<AvoidRule>& rules) {
  json out = json::array();
  for (const AvoidRule& rule : rules) {
    json r;
    r["op"] = std::string(rule.op->name);
    if (rule.operand >= 0) r["operand"] = rule.operand;
    if (!rule.dtypes.empty()) {
      r["dtypes"] = json::array();
      for (DType d : rule.dtypes) r["dtypes"].push_back(std::string(dtypeName(d)));
    }
    if (!rule.ranks.empty()) r["ranks"] = rule.ranks;
    if (!rule.opsets.empty()) r["opsets"] = rule.opsets;
    if (!rule.omitted.empty()) r["omitted"] = rule.omitted;
    if (!rule.empty.empty()) r["empty"] = rule.empty;
    if (!rule.attrs.empty()) {
      r["attrs"] = json::object();
      for (const auto& [name, values] : rule.attrs) r["attrs"][name] = values;
    }
    if (!rule.why.empty()) r["why"] = rule.why;
    out.push_back(r);
  }
  return out;
}

std::vector<AvoidRule> onnxRuntimeAvoidRules() { return parseAvoidRules(json::parse(kOnnxRuntimeRules)); }

}  // namespace nnfuzz
