// avoid.h - rules for operator configurations a generator must not produce.
//
// A target SUT may lack a kernel (Mean on float64 in ONNX Runtime) or reject a legal
// configuration (dilated Conv with auto_pad SAME). Generating such models wastes a test
// on a known "unsupported" answer, so a config can list them as data:
//
//   "avoid": [
//     {"op": "Mean", "dtypes": ["f64"]},
//     {"op": "Resize", "ranks": [1, 3, 5], "attrs": {"mode": ["cubic"]}},
//     {"op": "Conv", "attrs": {"auto_pad": ["SAME_UPPER", "SAME_LOWER"], "dilations": ["*"]}}
//   ]
//
// Every condition given must hold: dtypes/ranks look at the op's type operand
// (OpSpec::typeOperand) unless "operand": k names another one; attrs maps a name to values as the text form writes them
// (strings unquoted), "*" meaning "present with any value"; "opsets": [11, 12] limits the
// rule to models of those target opsets (a kernel an engine has for one schema version
// only); "omitted": [1] holds when those optional operands are left out (Loop without
// cond), "empty": [1] when they are written as the empty name though nothing given follows
// (config "empty_inputs": Squeeze(x, "")). Each rule may carry a "why".
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ops/op_spec.h"

namespace nnfuzz {

struct AvoidRule {
  const OpSpec* op = nullptr;
  int operand = -1;           ///< whose dtype/rank dtypes and ranks test (-1: op->typeOperand)
  std::vector<DType> dtypes;  ///< empty: any
  std::vector<int> ranks;     ///< empty: any
  std::vector<int> opsets;    ///< target opsets the rule holds at (empty: every one)
  std::vector<int> omitted;   ///< operands that must be left out (empty: no condition)
  std::vector<int> empty;     ///< operands that must be trailing empty names (empty: no condition)
  std::vector<std::pair<std::string, std::vector<std::string>>> attrs;
  std::string why;

  /// Does a node of `op` with these operand types (nullptr = omitted; a trailing nullptr
  /// is an operand written as the empty name) and attributes fall under the rule?
  bool matches(const OpSpec& spec, std::span<const TensorType* const> operands, const Attributes& attributes) const;
};

/// Parses a JSON list of rules; throws nnfuzz::Error naming the bad entry.
std::vector<AvoidRule> parseAvoidRules(const nlohmann::json& json);
nlohmann::json avoidRulesToJson(const std::vector<AvoidRule>& rules);

/// What ONNX Runtime's CPU provider rejects or gets wrong on valid models (measured; see
/// the "why" of each rule). The default config avoids these.
std::vector<AvoidRule> onnxRuntimeAvoidRules();

}  // namespace nnfuzz
