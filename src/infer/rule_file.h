// rule_file.h - rule files: one human-readable JSON file per operator (rules/<op>.json).
//
//   {"op": "Conv", "domain": "", "labelled_by": "...",
//    "partial_operators": [{"signature": "Conv in=4,4 kernel_shape[2] out=4",
//      "symbols": ["i0_0", ..., "a.kernel_shape_0"], "outputs": ["o0_0", ...],
//      "output_ranks": [4], "shape": ["i0_0", "i1_0", "i0_2 - i1_2 + 1", null, ...],
//      "constraints": ["0 < i0_2 - i1_2"], "constraint_status": "passing-only",
//      "records": [{"source": "debian:test_conv...", "opset": 11, "passing": true,
//                   "inputs": [{"dtype": 1, "shape": [1, 1, 5, 5]}, null], ...}]}]}
// "shape" holds one expression per output dim (null: not inferred). The records are the
// provenance and the concrete examples a generator may insert as they are.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "infer/synth.h"

namespace nnfuzz::infer {

struct PartialRule {
  std::string signature;
  std::vector<std::string> symbols, outputs;
  std::vector<int> outputRanks;
  Rule rule;
  std::vector<Record> records;  // passing first, then counter-examples
};

struct OperatorRules {
  std::string op, domain, labelledBy;
  std::vector<PartialRule> partials;
};

nlohmann::json recordToJson(const Record& r);
Record recordFromJson(const nlohmann::json& j, const std::string& op, const std::string& domain);

nlohmann::json toJson(const OperatorRules& rules);
/// One-line Error naming `what` on a malformed file.
OperatorRules rulesFromJson(const nlohmann::json& j, const std::string& what);

/// "Conv.json", "com.microsoft.FusedConv.json".
std::string ruleFileName(const std::string& op, const std::string& domain);
void writeRuleFile(const std::filesystem::path& dir, const OperatorRules& rules);
std::vector<OperatorRules> readRuleFiles(const std::filesystem::path& dir);

/// The rule in readable arithmetic, for `nnfuzz infer --explain`.
std::string explain(const OperatorRules& rules);

}  // namespace nnfuzz::infer
