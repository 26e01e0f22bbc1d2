// neuri.cpp - the neuri generator: symbolic and concrete operators, inserted one at a time.
#include "gen/neuri.h"

#include <algorithm>
#include <unordered_map>

#include "gen/eval_builder.h"
#include "gen/generators.h"
#include "gen/value_pool.h"
#include "infer/rule_solver.h"
#include "interp/interpreter.h"
#include "interp/values.h"
#include "ops/infer_node.h"
#include "ops/registry.h"
#include "support/error.h"

namespace nnfuzz {

using nlohmann::json;

namespace {

constexpr int kTriesPerKind = 50;

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
  }

  GeneratedCase generate(Rng& rng) override {
    GeneratedCase out;
    Graph& g = out.graph;
    ValuePool pool(g, rng);
    EvalBuilder builder(g, pool);
    Case c{out, pool, builder, rng, {}, {}, {}};
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
  };

  void note(Case& c, ValueId v) {
    c.byType[toString(c.out.graph.value(v).type)].push_back(v);
    c.values.push_back(v);
  }

  bool allowed(const OpSpec* spec) const { return std::find(ops_.begin(), ops_.end(), spec) != ops_.end(); }

  /// A value of exactly `type` the model holds, with the picking rate; kNoValue: make one.
  ValueId pickOfType(Case& c, const TensorType& type) {
    auto it = c.byType.find(toString(type));
    if (it == c.byType.end() || !c.rng.bernoulli(config_.pickingRate)) return kNoValue;
    return c.rng.pick(it->second);
  }

  bool fitsLimits(const TensorType& t) const {
    if (t.rank() > config_.limits.maxRank) return false;
    return std::all_of(t.shape.begin(), t.shape.end(),
                       [&](int64_t d) { return d >= config_.limits.minDim && d <= config_.limits.maxDim; });
  }

  // --- symbolic: a spec'd operator, by its spec or its rule -------------------------------

  bool insertSymbolic(Case& c) {
    if (ops_.empty()) return false;
    const OpSpec& spec = *ops_[c.rng.weighted(weights_)];
    std::vector<size_t> solvable;
    for (size_t p : bank_->partialsOf(std::string(spec.name)))
      if (bank_->partials()[p].symbolic) solvable.push_back(p);
    if (!solvable.empty() && c.rng.bernoulli(config_.neuri.ruleRate)) return insertFromRule(c, spec, c.rng.pick(solvable));
    return insertFromSpec(c, spec);
  }

  bool insertFromSpec(Case& c, const OpSpec& spec) {
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

  bool insertFromRule(Case& c, const OpSpec& spec, size_t partial) {
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
        if (t.dtype == want.dtype && t.rank() == want.rank() && (k > 0 || c.pool.within(v, firstRangeOf(spec, t.dtype))))
          fits.push_back(v);
      }
      if (fits.empty()) continue;
      chosen[k] = c.rng.pick(fits);
      fixed[k] = c.out.graph.value(chosen[k]).type.shape;
    }
    const infer::SolveBounds bounds{config_.limits.minDim, config_.limits.maxDim, 4 * config_.limits.maxDim};
    const auto call = infer::solveRule(*bp.rule, pattern, fixed, bounds, c.rng);
    if (!call) return false;
    if (!insertCall(c, spec, *call, chosen)) return false;
    ++c.tally.rule;
    c.tally.nodes.push_back({{"node", c.out.graph.numNodes() - 1}, {"op", std::string(spec.name)}, {"from", "rule"},
                             {"partial_operator", bp.rule->signature}});
    return true;
  }

  // --- concrete: a record whose operand type a model value has ---------------------------

  bool insertConcrete(Case& c) {
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
    const OpSpec* spec = findOp(ro.record->op);
    if (!spec || !allowed(spec)) return false;
    std::vector<ValueId> chosen(ro.record->inputs.size(), kNoValue);
    if (anchor != kNoValue) chosen[static_cast<size_t>(ro.input)] = anchor;
    for (size_t k = 0; k < chosen.size(); ++k)
      if (chosen[k] == kNoValue && ro.record->inputs[k].present())
        chosen[k] = pickOfType(c, infer::tensorTypeOf(ro.record->inputs[k]));
    if (anchor != kNoValue && ro.input == 0 && !c.pool.within(anchor, firstRangeOf(*spec, c.out.graph.value(anchor).type.dtype)))
      return false;
    if (!insertCall(c, *spec, *ro.record, chosen)) return false;
    ++c.tally.record;
    c.tally.nodes.push_back({{"node", c.out.graph.numNodes() - 1}, {"op", std::string(spec->name)}, {"from", "record"},
                             {"source", ro.record->source}});
    return true;
  }

  // --- shared ------------------------------------------------------------------------------

  /// Appends the call `r` of `spec` on `chosen` values (kNoValue: a fresh operand of the
  /// record's type, or absent), if our spec agrees with its result types.
  bool insertCall(Case& c, const OpSpec& spec, const infer::Record& r, const std::vector<ValueId>& chosen) {
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
      const ValueRange range = operandRange(spec, k, types[k].dtype);
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

  /// Operand 0's range is the spec's; records and rules do not say which further operand
  /// divides (Div, Mod), and engines fail on an integer division by zero: no integer zeros.
  static ValueRange operandRange(const OpSpec& spec, size_t k, DType dtype) {
    if (k == 0) return firstRangeOf(spec, dtype);
    ValueRange range = defaultRange(dtype);
    if (isInteger(dtype)) range.minMagnitude = std::max(range.minMagnitude, 1.0);
    return range;
  }

  ValueId fresh(Case& c, Tensor data, bool constant) {
    const ValueId v = constant || c.rng.bernoulli(config_.weightRate) ? c.builder.weight(std::move(data))
                                                                      : c.builder.input(std::move(data));
    note(c, v);
    return v;
  }

  /// Evaluates and appends; false when the results are unusable (fresh operands made for
  /// it stay as values later nodes may take; unused ones are dropped at the end).
  bool append(Case& c, const OpSpec& spec, std::vector<ValueId> operands, Attributes attrs,
              const std::vector<TensorType>& outputTypes) {
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

  void finish(Case& c) {
    Graph& g = c.out.graph;
    std::vector<ValueId> outputs;
    for (NodeId id : g.nodes()) appendGraphOutputs(g, id, c.rng, outputs);
    g.setOutputs(outputs);
    g.removeUnused();  // fresh operands of calls that were not appended
    for (ValueId v : g.inputs()) c.out.inputs.push_back(c.pool.data(v));
    for (ValueId v : outputs) {
      c.out.outputs.push_back(c.pool.data(v));
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
};

}  // namespace

std::unique_ptr<Generator> makeNeuriGen(const GenConfig& config) { return std::make_unique<NeuriGen>(config); }

}  // namespace nnfuzz
