// neuri.cpp - the neuri generator: symbolic and concrete operators, inserted one at a time.
#include "gen/neuri.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "gen/eval_builder.h"
#include "gen/generators.h"
#include "gen/value_pool.h"
#include "infer/rule_solver.h"
#include "interp/interpreter.h"
#include "interp/values.h"
#include "ops/infer_node.h"
#include "ops/instantiate.h"
#include "ops/registry.h"
#include "support/error.h"

namespace nnfuzz {

using nlohmann::json;

namespace {

constexpr int kTriesPerKind = 50;
/// Elements an opaque node's result may have (a record's may be large; nothing checks it).
constexpr int64_t kMaxOpaqueResult = 1 << 14;
/// What an opaque operator's records weigh in concrete draws, in record operands (a spec'd
/// operator of the node tests has a handful of records, a probed one hundreds).
constexpr double kOpaqueRecordOperands = 8;

/// How many insertions of each kind a case got, and where rules or records and our specs
/// disagreed on result types (a rule or a spec is wrong there).
struct Tally {
  int spec = 0, rule = 0, record = 0;
  int disagreements = 0;
  std::string firstDisagreement;
  json nodes = json::array();  ///< rule and record nodes: where each came from
};

class NeuriGen : public Generator {
 public:
  explicit NeuriGen(const GenConfig& config) : config_(config), bank_(neuriRuleBank(config)) {
    for (size_t i = 0; i < config.ops.size(); ++i)
      if (usableUnder(*config.ops[i], config.limits)) {
        ops_.push_back(config.ops[i]);
        weights_.push_back(config.opWeights[i]);
      }
    // Operators of other domains (rule-only): drawn as symbolic operators by their rules,
    // each operator as likely as one spec'd operator of weight 1.
    std::map<std::string, std::vector<size_t>> opaque;
    for (size_t p = 0; p < bank_->partials().size(); ++p) {
      const infer::BankPartial& bp = bank_->partials()[p];
      if (!bp.op->domain.empty() && bp.symbolic) opaque[bp.op->domain + "." + bp.op->op].push_back(p);
    }
    for (auto& [name, partials] : opaque) opaquePartials_.push_back(std::move(partials));
    for (const infer::RecordOperand& ro : bank_->allOperands())
      if (!ro.record->domain.empty()) ++opaqueOperands_[qualified(*ro.record)];
  }

  GeneratedCase generate(Rng& rng) const override {
    GeneratedCase out;
    Graph& g = out.graph;
    ValuePool pool(g, rng);
    EvalBuilder builder(g, pool);
    Case c{out, pool, builder, rng, {}, {}, {}, {}, {}};
    const int target = static_cast<int>(rng.uniformInt(config_.minOps, config_.maxOps));
    out.requestedOps = target;
    const int maxAttempts = 100 * target + 200;
    const double shares[] = {config_.neuri.symbolic, config_.neuri.concrete};
    int added = 0;
    while ((added < target && out.attempts < maxAttempts) || (added == 0 && out.attempts < 100 * maxAttempts)) {
      // The shares are of inserted operators: a kind is drawn, then tried until it inserts
      // one (concrete insertions fail more often: few records fit a given value).
      const bool symbolic = rng.weighted(shares) == 0;
      for (int tries = 0; tries < kTriesPerKind; ++tries) {
        ++out.attempts;
        if (symbolic ? insertSymbolic(c) : insertConcrete(c)) {
          ++added;
          break;
        }
      }
    }
    finish(c);
    return out;
  }

 private:
  struct Case {
    GeneratedCase& out;
    ValuePool& pool;
    EvalBuilder& builder;
    Rng& rng;
    Tally tally;
    std::unordered_map<std::string, std::vector<ValueId>> byType;  ///< values by type text
    std::vector<ValueId> values;
    /// Values without a reference value (results of opaque nodes and what they feed):
    /// only opaque nodes take them, so every spec'd node is evaluated on real data.
    std::unordered_map<std::string, std::vector<ValueId>> unknownByType;
    std::vector<ValueId> unknown;
  };

  void note(Case& c, ValueId v) const {
    c.byType[toString(c.out.graph.value(v).type)].push_back(v);
    c.values.push_back(v);
  }
  void noteUnknown(Case& c, ValueId v) const {
    c.unknownByType[toString(c.out.graph.value(v).type)].push_back(v);
    c.unknown.push_back(v);
  }

  bool allowed(const OpSpec* spec) const { return std::find(ops_.begin(), ops_.end(), spec) != ops_.end(); }

  /// A value of exactly `type` the model holds, with the picking rate; kNoValue: make one.
  /// `opaque`: for an opaque node, which may take values without a reference too.
  ValueId pickOfType(Case& c, const TensorType& type, bool opaque = false) const {
    std::vector<ValueId> fits;
    if (auto it = c.byType.find(toString(type)); it != c.byType.end()) fits = it->second;
    if (auto it = c.unknownByType.find(toString(type)); opaque && it != c.unknownByType.end())
      fits.insert(fits.end(), it->second.begin(), it->second.end());
    if (fits.empty() || !c.rng.bernoulli(config_.pickingRate)) return kNoValue;
    return c.rng.pick(fits);
  }

  bool fitsLimits(const TensorType& t) const {
    if (t.rank() > config_.limits.maxRank) return false;
    return std::all_of(t.shape.begin(), t.shape.end(),
                       [&](int64_t d) { return d >= config_.limits.minDim && d <= config_.limits.maxDim; });
  }

  // --- symbolic: a spec'd operator, by its spec or its rule -------------------------------

  bool insertSymbolic(Case& c) const {
    const size_t opaqueOps = opaquePartials_.size();
    if (opaqueOps > 0 && c.rng.bernoulli(static_cast<double>(opaqueOps) / static_cast<double>(opaqueOps + ops_.size())))
      return insertFromRule(c, nullptr, c.rng.pick(c.rng.pick(opaquePartials_)));
    if (ops_.empty()) return false;
    const OpSpec& spec = *ops_[c.rng.weighted(weights_)];
    std::vector<size_t> solvable;
    for (size_t p : bank_->partialsOf(std::string(spec.name)))
      if (bank_->partials()[p].symbolic) solvable.push_back(p);
    if (!solvable.empty() && c.rng.bernoulli(config_.neuri.ruleRate)) return insertFromRule(c, &spec, c.rng.pick(solvable));
    return insertFromSpec(c, spec);
  }

  bool insertFromSpec(Case& c, const OpSpec& spec) const {
    Instantiation inst = instantiateOp(spec, c.rng, config_.limits, &c.pool, config_.pickingRate);
    if (!inst.ok()) return false;
    for (const TensorType& t : inst.outputTypes)
      if (t.numel() == 0) return false;
    std::vector<const TensorType*> types;
    for (const Operand& op : inst.operands) types.push_back(op.omitted ? nullptr : &op.type);
    if (config_.avoids(spec, types, inst.attrs)) return false;
    std::vector<ValueId> operands;
    for (const Operand& op : inst.operands) {
      if (op.omitted) operands.push_back(kNoValue);
      else if (op.existing != kNoValue) operands.push_back(op.existing);
      else operands.push_back(fresh(c, op.constant ? *op.constant : sampleTensor(op.type, op.range, c.rng), op.constant.has_value()));
    }
    if (!append(c, spec, std::move(operands), std::move(inst.attrs), inst.outputTypes)) return false;
    ++c.tally.spec;
    return true;
  }

  /// `spec` nullptr: an opaque operator (another domain), inserted by its rule alone.
  bool insertFromRule(Case& c, const OpSpec* spec, size_t partial) const {
    const infer::BankPartial& bp = bank_->partials()[partial];
    const infer::Record& pattern = *c.rng.pick(bp.records);
    // Operands first (existing values of the record's dtype and rank), then the solver.
    std::vector<ValueId> chosen(pattern.inputs.size(), kNoValue);
    std::vector<std::optional<std::vector<int64_t>>> fixed(pattern.inputs.size());
    for (size_t k = 0; k < pattern.inputs.size(); ++k) {
      if (!pattern.inputs[k].present() || !c.rng.bernoulli(config_.pickingRate)) continue;
      const TensorType want = infer::tensorTypeOf(pattern.inputs[k]);
      std::vector<ValueId> fits;
      for (ValueId v : c.values) {
        const TensorType& t = c.out.graph.value(v).type;
        if (t.dtype == want.dtype && t.rank() == want.rank() && (k > 0 || !spec || c.pool.within(v, firstRangeOf(*spec, t.dtype))))
          fits.push_back(v);
      }
      if (!spec) {
        for (ValueId v : c.unknown)
          if (c.out.graph.value(v).type.dtype == want.dtype && c.out.graph.value(v).type.rank() == want.rank()) fits.push_back(v);
        std::erase_if(fits, [&](ValueId v) { return !opaqueOperandFits(c, v); });
      }
      if (fits.empty()) continue;
      chosen[k] = c.rng.pick(fits);
      fixed[k] = c.out.graph.value(chosen[k]).type.shape;
    }
    const infer::SolveBounds bounds{config_.limits.minDim, config_.limits.maxDim, 4 * config_.limits.maxDim};
    const auto call = infer::solveRule(*bp.rule, pattern, fixed, bounds, c.rng);
    if (!call) return false;
    if (!spec && !attributesSeen(*call, bp)) return false;
    if (!(spec ? insertCall(c, *spec, *call, chosen) : insertOpaque(c, *call, chosen))) return false;
    ++c.tally.rule;
    c.tally.nodes.push_back({{"node", c.out.graph.numNodes() - 1}, {"op", qualified(*call)}, {"from", "rule"},
                             {"partial_operator", bp.rule->signature}});
    return true;
  }

  // --- concrete: a record whose operand type a model value has ---------------------------

  bool insertConcrete(Case& c) const {
    std::span<const infer::RecordOperand> candidates;
    ValueId anchor = kNoValue;
    if (!c.values.empty() && c.rng.bernoulli(config_.pickingRate)) {
      anchor = c.rng.pick(c.values);
      candidates = bank_->operandsOfType(c.out.graph.value(anchor).type);
    } else {
      candidates = bank_->allOperands();
    }
    if (candidates.empty()) return false;
    const infer::RecordOperand& ro = c.rng.pick(candidates);
    const bool opaque = !ro.record->domain.empty();
    // An opaque operator's records weigh as kOpaqueRecordOperands operands in all: a probed
    // operator has hundreds (QLinearSoftmax), which would crowd out every spec'd one.
    if (opaque && !c.rng.bernoulli(std::min(1.0, kOpaqueRecordOperands / opaqueOperands_.at(qualified(*ro.record)))))
      return false;
    const OpSpec* spec = opaque ? nullptr : findOp(ro.record->op);
    if (!opaque && (!spec || !allowed(spec))) return false;
    std::vector<ValueId> chosen(ro.record->inputs.size(), kNoValue);
    if (anchor != kNoValue) chosen[static_cast<size_t>(ro.input)] = anchor;
    for (size_t k = 0; k < chosen.size(); ++k)
      if (chosen[k] == kNoValue && ro.record->inputs[k].present())
        chosen[k] = pickOfType(c, infer::tensorTypeOf(ro.record->inputs[k]), opaque);
    if (spec && anchor != kNoValue && ro.input == 0 &&
        !c.pool.within(anchor, firstRangeOf(*spec, c.out.graph.value(anchor).type.dtype)))
      return false;
    if (!(spec ? insertCall(c, *spec, *ro.record, chosen) : insertOpaque(c, *ro.record, chosen))) return false;
    ++c.tally.record;
    c.tally.nodes.push_back({{"node", c.out.graph.numNodes() - 1}, {"op", qualified(*ro.record)}, {"from", "record"},
                             {"source", ro.record->source}});
    return true;
  }

  // --- shared ------------------------------------------------------------------------------

  /// Appends the call `r` of `spec` on `chosen` values (kNoValue: a fresh operand of the
  /// record's type, or absent), if our spec agrees with its result types.
  bool insertCall(Case& c, const OpSpec& spec, const infer::Record& r, const std::vector<ValueId>& chosen) const {
    Attributes attrs = infer::attributesOf(r);
    std::vector<TensorType> types(r.inputs.size());
    std::vector<const TensorType*> typePtrs(r.inputs.size(), nullptr);
    for (size_t k = 0; k < r.inputs.size(); ++k) {
      if (!r.inputs[k].present()) continue;
      types[k] = infer::tensorTypeOf(r.inputs[k]);
      if (chosen[k] == kNoValue && !fitsLimits(types[k])) return false;
      typePtrs[k] = &types[k];
    }
    std::vector<TensorType> expected;
    for (const infer::TensorSig& s : r.outputs) expected.push_back(infer::tensorTypeOf(s));
    if (config_.avoids(spec, typePtrs, attrs)) return false;
    const std::vector<const Tensor*> noConstants(r.inputs.size(), nullptr);
    const InferResult inferred = inferNode(spec, typePtrs, noConstants, attrs);
    if (!inferred.ok()) return false;  // the rule or record allows what our spec refuses
    // The record may leave optional results out (MaxPool's Indices); those it names must agree.
    bool agree = inferred.types.size() >= expected.size();
    for (size_t k = 0; agree && k < inferred.types.size(); ++k)
      agree = k < expected.size() ? inferred.types[k] == expected[k] : spec.isOptionalOutput(k);
    if (!agree) {
      if (c.tally.disagreements++ == 0)
        c.tally.firstDisagreement = std::string(spec.name) + " (" + r.source + "): the record says " +
                                    typesText(expected) + ", our spec " + typesText(inferred.types);
      return false;
    }
    std::vector<ValueId> operands(r.inputs.size(), kNoValue);
    for (size_t k = 0; k < r.inputs.size(); ++k) {
      if (!r.inputs[k].present()) continue;
      // The spec's range for operand k given the ones before (BitShift's amounts, divisors).
      const ValueRange range = operandRangeOf(spec, k, typePtrs, attrs, config_.limits);
      if (chosen[k] != kNoValue) {
        if (!c.pool.within(chosen[k], range)) return false;
        operands[k] = chosen[k];
        continue;
      }
      operands[k] = fresh(c, sampleTensor(types[k], range, c.rng), false);
    }
    return append(c, spec, std::move(operands), std::move(attrs), inferred.types);
  }

  static std::string typesText(const std::vector<TensorType>& types) {
    std::string text;
    for (const TensorType& t : types) text += (text.empty() ? "" : " ") + toString(t);
    return text;
  }

  static std::string qualified(const infer::Record& r) { return r.domain.empty() ? r.op : r.domain + "." + r.op; }

  /// Appends an opaque node (another domain's operator, no spec, no kernel): the call `r`
  /// on `chosen` values (kNoValue: a fresh operand of the record's type, or absent), its
  /// result types as the rule or record gives them. Its results have no reference value.
  bool insertOpaque(Case& c, const infer::Record& r, const std::vector<ValueId>& chosen) const {
    std::vector<TensorType> outputTypes;
    for (const infer::TensorSig& s : r.outputs) {
      outputTypes.push_back(infer::tensorTypeOf(s));
      const TensorType& t = outputTypes.back();
      if (t.numel() == 0 || t.numel() > kMaxOpaqueResult || t.rank() > config_.limits.maxRank) return false;
    }
    std::vector<ValueId> operands(r.inputs.size(), kNoValue);
    for (size_t k = 0; k < r.inputs.size(); ++k) {
      if (!r.inputs[k].present()) continue;
      const TensorType type = infer::tensorTypeOf(r.inputs[k]);
      if (chosen[k] != kNoValue) {
        if (!opaqueOperandFits(c, chosen[k])) return false;
        operands[k] = chosen[k];
        continue;
      }
      if (!fitsLimits(type)) return false;
      // A runtime input, never a weight: ONNX Runtime checks some contrib operands further
      // when they are initializers (QLinearSoftmax's scale a scalar), and labelled the
      // records with every operand a graph input.
      const ValueId v = c.builder.input(sampleTensor(type, opaqueRange(type.dtype), c.rng));
      note(c, v);
      operands[k] = v;
    }
    Graph& g = c.out.graph;
    const NodeId node = g.addNode(r.op, std::move(operands), infer::attributesOf(r), outputTypes);
    g.node(node).domain = r.domain;
    for (ValueId v : g.node(node).outputs) noteUnknown(c, v);
    return true;
  }

  /// True when each integer attribute of `call` has a value some passing record of the
  /// partial operator has. For an opaque operator no spec checks a solved call, and a
  /// probed rule captures shapes, not which attribute values are valid or what they do
  /// to result dtypes (MurmurHash3's `positive`, BifurcationDetector's n-gram sizes).
  static bool attributesSeen(const infer::Record& call, const infer::BankPartial& bp) {
    for (const auto& [name, value] : call.attrs) {
      if (value.kind != infer::AttrValue::Int && value.kind != infer::AttrValue::Ints) continue;
      const bool seen = std::any_of(bp.records.begin(), bp.records.end(), [&](const infer::Record* r) {
        auto it = r->attrs.find(name);
        return it != r->attrs.end() && it->second.ints == value.ints;
      });
      if (!seen) return false;
    }
    return true;
  }

  /// The values an opaque node's operands hold: as tools/ort_label.py fed its records
  /// (integers 0..2: token ids, indices and counts are often unsigned), floats as usual.
  static ValueRange opaqueRange(DType dtype) {
    if (isInteger(dtype)) return {0, 2, 0};
    return defaultRange(dtype);
  }
  /// A value an opaque node may read: no weight (see insertOpaque), a known value within
  /// opaqueRange, or an unknown one of a float type (an unknown integer may be anything).
  bool opaqueOperandFits(const Case& c, ValueId v) const {
    const Value& value = c.out.graph.value(v);
    if (value.kind == ValueKind::Weight) return false;
    if (std::find(c.unknown.begin(), c.unknown.end(), v) != c.unknown.end()) return isFloat(value.type.dtype);
    return c.pool.within(v, opaqueRange(value.type.dtype));
  }

  ValueId fresh(Case& c, Tensor data, bool constant) const {
    const ValueId v = constant || c.rng.bernoulli(config_.weightRate) ? c.builder.weight(std::move(data))
                                                                      : c.builder.input(std::move(data));
    note(c, v);
    return v;
  }

  /// Evaluates and appends; false when the results are unusable (fresh operands made for
  /// it stay as values later nodes may take; unused ones are dropped at the end).
  bool append(Case& c, const OpSpec& spec, std::vector<ValueId> operands, Attributes attrs,
              const std::vector<TensorType>& outputTypes) const {
    std::vector<const Tensor*> data;
    for (ValueId v : operands) data.push_back(v == kNoValue ? nullptr : &c.pool.data(v));
    std::vector<Tensor> results;
    try {
      results = evalOp(spec, data, attrs, outputTypes);
    } catch (const Error&) {
      return false;  // e.g. an index out of range in a record's integer operand
    }
    if (!usableResults(spec, data, attrs, results)) return false;
    const NodeId node = c.builder.commit(spec.name, std::move(operands), std::move(attrs), outputTypes, std::move(results));
    for (ValueId v : c.out.graph.node(node).outputs) note(c, v);
    return true;
  }

  void finish(Case& c) const {
    Graph& g = c.out.graph;
    std::vector<ValueId> outputs;
    for (NodeId id : g.nodes()) appendGraphOutputs(g, id, c.rng, outputs);
    g.setOutputs(outputs);
    g.removeUnused();  // fresh operands of calls that were not appended
    for (ValueId v : g.inputs()) c.out.inputs.push_back(c.pool.data(v));
    const std::vector<bool> unknown = unreferencedValues(g);
    for (size_t k = 0; k < outputs.size(); ++k) {
      if (unknown[outputs[k]]) {  // no reference: zeros stand in, and the case says which
        c.out.outputs.emplace_back(g.value(outputs[k]).type);
        c.out.unreferenced.push_back(k);
        continue;
      }
      c.out.outputs.push_back(c.pool.data(outputs[k]));
      c.out.nonFinite = c.out.nonFinite || !allFinite(c.out.outputs.back());
    }
    const Tally& t = c.tally;
    c.out.meta = {{"inserted", {{"spec", t.spec}, {"rule", t.rule}, {"record", t.record}}}, {"nodes", t.nodes}};
    if (t.disagreements > 0)
      c.out.meta["disagreements"] = {{"count", t.disagreements}, {"first", t.firstDisagreement}};
  }

  const GenConfig& config_;
  std::shared_ptr<const infer::RuleBank> bank_;
  std::vector<const OpSpec*> ops_;
  std::vector<double> weights_;
  std::vector<std::vector<size_t>> opaquePartials_;  ///< per opaque operator, its solvable partial operators
  std::map<std::string, double> opaqueOperands_;     ///< per opaque operator, its record operands in the bank
};

}  // namespace

std::unique_ptr<Generator> makeNeuriGen(const GenConfig& config) { return std::make_unique<NeuriGen>(config); }

}  // namespace nnfuzz
