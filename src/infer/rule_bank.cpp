// rule_bank.cpp - which partial operators and records a generator may insert.
#include "infer/rule_bank.h"

#include <algorithm>
#include <set>

#include "ir/dtype.h"
#include "onnx/defs/schema.h"

namespace nnfuzz::infer {

namespace {

// Their outputs are random draws: no two runs, and so no two SUTs, can agree on them.
const std::set<std::string> kRandomOps = {"Bernoulli",         "Multinomial",   "RandomNormal",
                                          "RandomNormalLike",  "RandomUniform", "RandomUniformLike"};

std::string typeKey(const TensorType& t) { return toString(t); }

/// Why a record cannot be inserted at `opset` with these dtypes, or empty.
std::string unusable(const Record& r, int opset, std::span<const DType> dtypes, std::span<const std::string> domains,
                     const RuleBank::HasSpec& hasSpec) {
  if (!r.domain.empty()) {
    // Another domain's operators are versioned apart from the default opset (com.microsoft
    // has version 1 only); they are inserted when the config names their domain.
    if (std::find(domains.begin(), domains.end(), r.domain) == domains.end()) return "domain " + r.domain + " not enabled";
  } else {
    if (kRandomOps.count(r.op)) return "random outputs";
    if (hasSpec && !hasSpec(r.op)) return "no spec (default domain)";
    const onnx::OpSchema* now = onnx::OpSchemaRegistry::Schema(r.op, opset, "");
    if (!now || now->Deprecated()) return "no schema at the opset";
    const onnx::OpSchema* then = onnx::OpSchemaRegistry::Schema(r.op, r.opset, "");
    if (!then || then->since_version() != now->since_version()) return "schema changed since the record's opset";
  }
  std::optional<DType> first;
  for (size_t k = 0; k < r.inputs.size(); ++k) {
    const TensorSig& s = r.inputs[k];
    if (!s.present()) continue;
    const auto d = dtypeFromOnnx(s.elemType);
    if (!d || std::find(dtypes.begin(), dtypes.end(), *d) == dtypes.end()) return "input dtype not generated";
    if (!first) first = d;
    if (isInteger(*d) && *d != *first) return "integer operand (shape, index or axes)";
    if (std::find(s.shape.begin(), s.shape.end(), 0) != s.shape.end()) return "empty tensor";
  }
  for (const TensorSig& s : r.outputs) {
    if (!s.present() || !dtypeFromOnnx(s.elemType)) return "output dtype not generated";
    if (std::find(s.shape.begin(), s.shape.end(), 0) != s.shape.end()) return "empty tensor";
  }
  if (r.outputs.empty()) return "no outputs";
  return {};
}

}  // namespace

TensorType tensorTypeOf(const TensorSig& sig) { return {*dtypeFromOnnx(sig.elemType), sig.shape}; }

Attributes attributesOf(const Record& record) {
  Attributes attrs;
  for (const auto& [name, v] : record.attrs) {
    switch (v.kind) {
      case AttrValue::Int: attrs.setInt(name, v.ints.at(0)); break;
      case AttrValue::Ints: attrs.setInts(name, v.ints); break;
      case AttrValue::Float: attrs.setFloat(name, v.floats.at(0)); break;
      case AttrValue::Floats: attrs.setFloats(name, v.floats); break;
      case AttrValue::String: attrs.setString(name, v.strings.at(0)); break;
      case AttrValue::Strings: attrs.setStrings(name, v.strings); break;
    }
  }
  return attrs;
}

RuleBank::RuleBank(std::vector<OperatorRules> rules, int opset, std::span<const DType> dtypes,
                   std::span<const std::string> domains, const HasSpec& hasSpec)
    : rules_(std::move(rules)) {
  for (const OperatorRules& op : rules_)
    for (const PartialRule& p : op.partials) {
      BankPartial bp{&op, &p, {}, false};
      for (const Record& r : p.records) {
        if (!r.passing) continue;
        if (std::string why = unusable(r, opset, dtypes, domains, hasSpec); !why.empty()) {
          ++skipped_[why];
          continue;
        }
        bp.records.push_back(&r);
      }
      if (bp.records.empty()) continue;
      bp.symbolic = p.rule.shapeInferred() && p.rule.constraintStatus != ConstraintStatus::Failed;
      const size_t index = partials_.size();
      byOp_[op.domain.empty() ? op.op : op.domain + "." + op.op].push_back(index);
      for (const Record* r : bp.records)
        for (size_t k = 0; k < r->inputs.size(); ++k) {
          if (!r->inputs[k].present()) continue;
          const RecordOperand ro{r, static_cast<int>(k), index};
          byType_[typeKey(tensorTypeOf(r->inputs[k]))].push_back(ro);
          all_.push_back(ro);
        }
      partials_.push_back(std::move(bp));
    }
}

RuleBank RuleBank::load(const std::filesystem::path& dir, int opset, std::span<const DType> dtypes,
                        std::span<const std::string> domains, const HasSpec& hasSpec) {
  return RuleBank(readRuleFiles(dir), opset, dtypes, domains, hasSpec);
}

std::span<const size_t> RuleBank::partialsOf(const std::string& op) const {
  auto it = byOp_.find(op);
  if (it == byOp_.end()) return {};
  return it->second;
}

std::span<const RecordOperand> RuleBank::operandsOfType(const TensorType& type) const {
  auto it = byType_.find(typeKey(type));
  if (it == byType_.end()) return {};
  return it->second;
}

nlohmann::json RuleBank::summary() const {
  size_t records = 0, symbolic = 0;
  for (const BankPartial& p : partials_) {
    records += p.records.size();
    symbolic += p.symbolic;
  }
  return {{"operators", byOp_.size()},
          {"partial_operators", partials_.size()},
          {"symbolic_partial_operators", symbolic},
          {"records", records},
          {"records_left_out", skipped_}};
}

}  // namespace nnfuzz::infer
