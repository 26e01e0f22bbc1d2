// neuri_config.cpp - the "neuri" object of a config, and where its rules come from.
#include <cstdlib>
#include <map>
#include <mutex>

#include "gen/neuri.h"
#include "ops/registry.h"
#include "support/error.h"

namespace nnfuzz {

using nlohmann::json;

namespace {

double share(const json& j, const std::string& field) {
  if (!j.is_number()) throw Error("config field 'neuri." + field + "': expected a number");
  const double v = j.get<double>();
  if (!(v >= 0)) throw Error("config field 'neuri." + field + "': must be >= 0");
  return v;
}

std::filesystem::path rulesDir(const NeuriSettings& s) {
  if (!s.rules.empty()) return s.rules;
  const char* root = std::getenv("NNFUZZ_ROOT");
  return std::filesystem::path(root && *root ? root : NNFUZZ_SOURCE_DIR) / "rules";
}

}  // namespace

NeuriSettings applyNeuriJson(NeuriSettings s, const json& j) {
  if (!j.is_object()) throw Error("config field 'neuri': expected an object like {\"symbolic\": 1, \"concrete\": 1}");
  for (const auto& [key, value] : j.items()) {
    if (key == "rules") {
      if (!value.is_string()) throw Error("config field 'neuri.rules': expected a folder name");
      s.rules = value.get<std::string>();
    } else if (key == "symbolic") {
      s.symbolic = share(value, key);
    } else if (key == "concrete") {
      s.concrete = share(value, key);
    } else if (key == "rule_rate") {
      s.ruleRate = share(value, key);
      if (s.ruleRate > 1) throw Error("config field 'neuri.rule_rate': must be in [0, 1]");
    } else if (key == "domains") {
      if (!value.is_array()) throw Error("config field 'neuri.domains': expected a list like [\"com.microsoft\"]");
      s.domains.clear();
      for (const auto& d : value) {
        if (!d.is_string() || d.get<std::string>().empty() || d.get<std::string>() == "ai.onnx")
          throw Error("config field 'neuri.domains': expected names of domains other than the default, like \"com.microsoft\"");
        s.domains.push_back(d.get<std::string>());
      }
    } else {
      throw Error("config field 'neuri': unknown field '" + key + "' (known: rules, symbolic, concrete, rule_rate, domains)");
    }
  }
  if (s.symbolic + s.concrete <= 0) throw Error("config field 'neuri': symbolic and concrete shares are both 0");
  return s;
}

json neuriSettingsToJson(const NeuriSettings& s) {
  json j = {{"rules", s.rules}, {"symbolic", s.symbolic}, {"concrete", s.concrete}, {"rule_rate", s.ruleRate}};
  if (!s.domains.empty()) j["domains"] = s.domains;  // absent by default: older configs hash as before
  return j;
}

std::shared_ptr<const infer::RuleBank> neuriRuleBank(const GenConfig& config) {
  // Generators are made per case; reading a hundred rule files each time would dominate.
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const infer::RuleBank>> loaded;
  std::string key = rulesDir(config.neuri).string() + "|" + std::to_string(config.opset);
  for (DType d : config.limits.dtypes) key += "|" + std::string(dtypeName(d));
  for (const std::string& d : config.neuri.domains) key += "|" + d;
  std::lock_guard lock(mu);
  auto& bank = loaded[key];
  if (!bank)
    bank = std::make_shared<const infer::RuleBank>(
        infer::RuleBank::load(rulesDir(config.neuri), config.opset, config.limits.dtypes, config.neuri.domains,
                              [](const std::string& op) { return findOp(op) != nullptr; }));
  return bank;
}

void validateNeuri(const GenConfig& config) {
  const auto bank = neuriRuleBank(config);
  if (config.neuri.concrete > 0 && bank->allOperands().empty() && config.neuri.symbolic == 0)
    throw Error("config field 'neuri': no record in " + rulesDir(config.neuri).string() +
                " can be inserted at this opset with these dtypes, and the symbolic share is 0");
}

}  // namespace nnfuzz
