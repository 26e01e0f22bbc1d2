// rule_bank.h - the rule files as a generator uses them (seed 002, §3.3).
//
// From the rule files it keeps the partial operators and passing records a model at the
// given opset can hold: default-domain operators whose schema at that opset is the one the
// record was made with (and not deprecated), and those of the other domains asked for,
// deterministic ones, dtypes the config allows,
// no empty tensors, and integer operands only where they are the operator's main data (an
// integer operand of another type than operand 0 is a shape, index or axis list, whose
// contents decide validity and results: shape rules do not capture that). Each kept
// partial operator is *symbolic* when its rule gives every output dim and its constraints
// were not refuted; every kept record is a *concrete* operator, found through an index from
// the tensor type of an operand to the records that take it.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "infer/rule_file.h"
#include "ir/attributes.h"
#include "ir/tensor.h"

namespace nnfuzz::infer {

struct BankPartial {
  const OperatorRules* op = nullptr;
  const PartialRule* rule = nullptr;
  std::vector<const Record*> records;  ///< usable passing records
  bool symbolic = false;               ///< the rule can be solved for new calls
};

/// Operand `input` of `record` (of partial operator `partial`) takes a given tensor type.
struct RecordOperand {
  const Record* record = nullptr;
  int input = 0;
  size_t partial = 0;
};

class RuleBank {
 public:
  /// `domains`: the other domains (e.g. "com.microsoft") whose operators to keep;
  /// `hasSpec` (when set): which default-domain operators the generator can evaluate (the
  /// others, rule-only such as LpPool, are left out).
  using HasSpec = std::function<bool(const std::string& op)>;
  RuleBank(std::vector<OperatorRules> rules, int opset, std::span<const DType> dtypes,
           std::span<const std::string> domains = {}, const HasSpec& hasSpec = {});
  /// Reads every rule file in `dir` (one-line Error on a missing folder or a bad file).
  static RuleBank load(const std::filesystem::path& dir, int opset, std::span<const DType> dtypes,
                       std::span<const std::string> domains = {}, const HasSpec& hasSpec = {});

  const std::vector<BankPartial>& partials() const { return partials_; }
  /// The kept partial operators of `op` ("com.microsoft.Gelu" for another domain's; indices
  /// into partials()).
  std::span<const size_t> partialsOf(const std::string& op) const;
  /// The record operands that take exactly `type`.
  std::span<const RecordOperand> operandsOfType(const TensorType& type) const;
  /// Every kept record operand (for a model's first node, whose inputs are all fresh).
  const std::vector<RecordOperand>& allOperands() const { return all_; }
  /// Operators, partial operators and records kept, and why others were left out.
  nlohmann::json summary() const;

 private:
  std::vector<OperatorRules> rules_;
  std::vector<BankPartial> partials_;
  std::map<std::string, std::vector<size_t>> byOp_;
  std::unordered_map<std::string, std::vector<RecordOperand>> byType_;
  std::vector<RecordOperand> all_;
  std::map<std::string, int> skipped_;  ///< reason -> records
};

/// A record operand's type (elemType must map to one of nnfuzz's dtypes).
TensorType tensorTypeOf(const TensorSig& sig);
/// A record's attributes as GraphIR attributes.
Attributes attributesOf(const Record& record);

}  // namespace nnfuzz::infer
