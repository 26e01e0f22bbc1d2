// isra.cpp - the Isra generator (seed 003): append operations in topological order, each
// instantiated backtrack-free in the fixed order of instantiateOp, reusing existing
// values with the picking rate.
//
// Beyond the paper, every operation is evaluated as it is appended. An operation whose
// result would be non-finite, huge, or too sensitive to float32 rounding to compare
// (OpSpec::unstable) is not appended; another one is drawn. This is a numeric filter,
// not a constraint backtrack: shapes and attributes never need it.
//
// The config's limits (limits.h) are honoured as filters of the same kind: a node outside
// the parameter limits or deeper than the maximum depth is drawn again; while the model is
// too shallow for the minimum depth and few operations remain, each draw's first operand
// is one of the deepest values; each required sequence is placed, with its odds, as one
// chain at a random point; with input_shapes, the model's runtime inputs have those shapes
// (the first is made up front) and other fresh operands are weights.
#include <algorithm>
#include <cmath>
#include <map>

#include "caffe/layer_map.h"
#include "gen/align.h"
#include "gen/caffe_filter.h"
#include "gen/caffe_units.h"
#include "gen/control_flow.h"
#include "gen/eval_builder.h"
#include "gen/generators.h"
#include "gen/sequences.h"
#include "gen/value_pool.h"
#include "gen/weight_fill.h"
#include "onnx/model_check.h"
#include "ops/common.h"
#include "interp/interpreter.h"
#include "interp/values.h"

namespace nnfuzz {

using nlohmann::json;

namespace {

constexpr int kIsraChainAttempts = 200;

/// The value pool, but while the model must grow deeper, operand 0 is a deepest value,
/// aligned with helper operators where it does not fit (align.h).
class DepthSource : public OperandSource {
 public:
  DepthSource(EvalBuilder& builder, const GenConfig& config, Rng& rng)
      : builder_(builder), pool_(builder.pool()), limits_(config.limits), net_(config.net), rng_(rng) {}
  std::vector<ValueId> deepest;  ///< values of the greatest depth so far
  bool deepen = false;
  bool narrowed = false;  ///< the parameter limits changed this node's sampled attributes

  int arity(const OpSpec& spec, int drawn) override {
    spec_ = &spec;
    narrowed = false;
    return drawn;
  }
  void adjustAttributes(const OpSpec& spec, OpDraft& draft) override {
    if (!net_.params.empty()) narrowed = narrowAttributes(net_, spec, draft.attrs, rng_);
  }

  ValueId pinned(int index, const OperandNeed& need) override {
    if (index > 0 && spec_ && !net_.params.empty()) {
      // A weight dim the limits fix (Conv's num_output): a fresh weight drawn within them.
      if (auto type = sampleWithinDims(net_, *spec_, index, need.sample, rng_))
        return builder_.weight(sampleTensor(*type, need.rangeOf(type->dtype), rng_));
      return kNoValue;
    }
    if (index != 0 || !deepen || deepest.empty()) return kNoValue;
    const ValueId v = deepest[static_cast<size_t>(rng_.uniformInt(0, static_cast<int64_t>(deepest.size()) - 1))];
    return alignValue(builder_, v, need, limits_, rng_).value_or(kNoValue);
  }
  ValueId pickExisting(const std::function<bool(const TensorType&)>& accepts,
                       const std::function<ValueRange(DType)>& rangeOf) override {
    // ONNX 1.12 (the checker's library) writes an unknown batch dim of a DFT's or STFT's
    // signal as 0, so their operands never come after an op whose dims it leaves symbolic.
    if (spec_ && (spec_->name == "DFT" || spec_->name == "STFT"))
      return pool_.pickExisting(accepts, rangeOf, [this](ValueId v) { return !afterSymbolicDims(v); });
    return pool_.pickExisting(accepts, rangeOf);
  }
  const TensorType& typeOf(ValueId value) const override { return pool_.typeOf(value); }

 private:
  /// True when ONNX leaves some dim of `v` symbolic: it comes after such an op.
  bool afterSymbolicDims(ValueId v) const {
    const Graph& g = builder_.graph();
    std::vector<ValueId> stack{v};
    std::vector<bool> seen(g.valueCapacity(), false);
    while (!stack.empty()) {
      const ValueId x = stack.back();
      stack.pop_back();
      if (x == kNoValue || seen[x] || g.value(x).producer == kNoNode) continue;
      seen[x] = true;
      const Node& n = g.node(g.value(x).producer);
      if (onnxLeavesDimsSymbolic(n.op)) return true;
      stack.insert(stack.end(), n.inputs.begin(), n.inputs.end());
    }
    return false;
  }

  EvalBuilder& builder_;
  ValuePool& pool_;
  const Limits& limits_;
  const NetLimits& net_;
  Rng& rng_;
  const OpSpec* spec_ = nullptr;
};

class IsraGen : public Generator {
 public:
  explicit IsraGen(const GenConfig& config) : config_(config) {
    for (size_t i = 0; i < config.ops.size(); ++i) {
      const OpSpec& spec = *config.ops[i];
      // Control flow: ONNX only, and not under structure limits (depth counts no bodies).
      const bool bodies = !spec.bodies.empty();
      if (bodies && (caffe_ || !config.net.empty())) continue;
      if ((bodies || usableUnder(spec, config.limits)) && (!caffe_ || caffe_export::hasMapping(spec.name))) {
        ops_.push_back(&spec);
        weights_.push_back(config.opWeights[i]);
      }
    }
    for (const OpSpec* spec : ops_)
      if (!spec->bodies.empty()) bodyOps_.emplace(spec, bodyOpsFor(*spec, ops_, weights_));
    // Caffe units draw from the same table, after the operators (caffe_units.h).
    if (caffe_)
      for (const auto& [unit, weight] : config.caffeLayers)
        if (weight > 0) {
          units_.push_back(unit);
          weights_.push_back(weight);
        }
    drawOp_ = WeightedTable(weights_);
  }

  GeneratedCase generate(Rng& rng) const override {
    GeneratedCase out;
    Graph& g = out.graph;
    ValuePool pool(g, rng, Reuse::ResultsAndSeed);
    EvalBuilder builder(g, pool);
    DepthSource source(builder, config_, rng);
    const NetLimits& net = config_.net;
    const int target = std::max(static_cast<int>(rng.uniformInt(config_.minOps, config_.maxOps)), net.minDepth);
    out.requestedOps = target;
    g.reserve(static_cast<size_t>(target) + 8, 4 * static_cast<size_t>(target) + 16);  // ~3 values an operator
    pool.reserve(4 * static_cast<size_t>(target) + 16);
    int added = 0;
    const int maxAttempts = 20 * target + 100;
    constexpr int kHardCap = 1000000;
    std::vector<Tensor> fresh;
    std::vector<const Tensor*> operandData;
    std::vector<bool> caffeWeights;  // per operand, when only Caffe-expressible nodes are drawn
    std::vector<int> depth;  // by value id: longest operator path from an input or weight
    int modelDepth = 0;
    auto noteDepths = [&] {
      depth = valueDepths(g);
      modelDepth = *std::max_element(depth.begin(), depth.end());
      source.deepest.clear();
      for (NodeId id : g.order())
        for (ValueId v : g.node(id).outputs)
          if (depth[v] == modelDepth) source.deepest.push_back(v);
    };
    if (!net.inputShapes.empty()) {
      const TensorType type{opsupport::sampleDType(rng, config_.limits, opsupport::kAllTypes), rng.pick(net.inputShapes)};
      builder.input(sampleTensor(type, defaultRange(type.dtype), rng));
    }
    // Required sequences: each, with its odds, at a random point of the model.
    std::vector<std::pair<int, const RequiredSequence*>> chains;
    for (const RequiredSequence& s : net.sequences)
      if (rng.bernoulli(s.p)) chains.emplace_back(static_cast<int>(rng.uniformInt(0, target - 1)), &s);
    std::sort(chains.begin(), chains.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    json placedChains = json::array();
    // Keep going past maxAttempts only while the graph is still empty or too shallow.
    while ((added < target && out.attempts < maxAttempts) || (added == 0 && out.attempts < kHardCap) ||
           (modelDepth < net.minDepth && out.attempts < 50 * maxAttempts)) {
      if (!chains.empty() && chains.front().first <= added) {
        const RequiredSequence& seq = *chains.front().second;
        chains.erase(chains.begin());
        if (auto nodes = placeChain(builder, seq, rng)) {
          added += static_cast<int>(nodes->size());
          placedChains.push_back({{"ops", seq.text()}, {"nodes", *nodes}});
          noteDepths();
        }
        continue;
      }
      ++out.attempts;
      const size_t drawn = drawOp_.draw(rng);
      if (drawn >= ops_.size()) {  // a Caffe unit: a run of nodes one Caffe layer writes
        if (emitCaffeUnit(units_[drawn - ops_.size()], builder, config_, rng)) {
          ++added;
          noteDepths();
        }
        continue;
      }
      const OpSpec& spec = *ops_[drawn];
      if (!spec.bodies.empty()) {  // If, Loop, Scan: bodies grown by this same machinery
        if (buildControlFlow(spec, builder, config_, bodyOps_.at(&spec), rng)) {
          ++added;
          noteDepths();
        }
        continue;
      }
      source.deepen = net.minDepth > 0 && modelDepth < net.minDepth && target - added <= net.minDepth - modelDepth;
      const size_t mark = builder.mark();  // helpers aligning a deepest value
      auto reject = [&] { builder.rollback(mark); };
      Instantiation inst = instantiateOp(spec, rng, config_.limits, &source, config_.pickingRate);
      if (auto problem = unsound(spec, inst)) {
        // Narrowed attributes may leave no valid node: a rejection, not a sampler bug.
        if (!source.narrowed && out.unsoundOps++ == 0) out.firstUnsound = *problem;
        reject();
        continue;
      }
      if (config_.avoids(spec, operandTypes(inst), inst.attrs, operandConstants(inst))) {
        reject();
        continue;
      }
      if (builder.mark() != mark) depth = valueDepths(g);  // helpers were appended
      if (depth.size() < g.valueCapacity()) depth.resize(g.valueCapacity(), 0);
      int nodeDepth = 1;
      for (const Operand& op : inst.operands)
        if (op.existing != kNoValue) nodeDepth = std::max(nodeDepth, depth[op.existing] + 1);
      if ((net.maxDepth > 0 && nodeDepth > net.maxDepth) || (source.deepen && nodeDepth <= modelDepth)) {
        reject();
        continue;
      }

      operandContents(inst, pool, rng, config_.values, fresh, operandData);
      if (caffe_) {  // weights are known before evaluation: user-set contents apply
        caffeWeightKinds(g, spec, inst, config_.weightRate, rng, caffeWeights);
        if (!config_.weightFill.empty()) fillWeights(config_.weightFill, spec.name, inst, caffeWeights, fresh, rng);
      }
      std::vector<Tensor> results = evalOp(spec, operandData, inst.attrs, inst.outputTypes);
      if (!usableResults(spec, operandData, inst.attrs, results) ||
          (caffe_ && !caffeAccepts(spec, inst, operandData, caffeWeights))) {
        reject();
        continue;
      }

      // Commit: fresh operands become inputs or weights, then the node.
      std::vector<ValueId> operands(inst.operands.size(), kNoValue);
      for (size_t k = 0; k < inst.operands.size(); ++k) {
        const Operand& op = inst.operands[k];
        if (op.omitted) continue;
        if (op.existing != kNoValue) {
          operands[k] = op.existing;
          continue;
        }
        const bool weight = caffe_ ? caffeWeights[k]
                                   : op.constant || !net.inputShapeAllows(op.type) || rng.bernoulli(config_.weightRate);
        operands[k] = weight ? builder.weight(std::move(fresh[k])) : builder.input(std::move(fresh[k]));
      }
      builder.commit(spec.name, std::move(operands), std::move(inst.attrs), inst.outputTypes, std::move(results));
      ++added;
      depth.resize(g.valueCapacity(), 0);
      for (ValueId v : g.node(g.order().back()).outputs) {
        depth[v] = nodeDepth;
        if (nodeDepth > modelDepth) source.deepest.clear();
        if (nodeDepth >= modelDepth) source.deepest.push_back(v);
      }
      modelDepth = std::max(modelDepth, nodeDepth);
    }
    finish(out, pool, rng, !net.empty() || !units_.empty(), caffe_, config_.outputs);  // a rolled-back unit may leave operands
    if (!net.empty()) out.meta = {{"depth", modelDepth}, {"sequences", placedChains}};
    return out;
  }

 private:
  /// Places a required sequence on a runtime input (the first input_shapes one, or a fresh
  /// one the first operator takes); the chain's node ids, or nullopt if it did not fit.
  std::optional<std::vector<NodeId>> placeChain(EvalBuilder& builder, const RequiredSequence& seq, Rng& rng) const {
    const NetLimits& net = config_.net;
    // Many tries: parameter limits may reject most of what the samplers draw.
    for (int attempt = 0; attempt < kIsraChainAttempts; ++attempt) {
      const size_t mark = builder.mark();
      ValueId start = kNoValue;
      if (!net.inputShapes.empty()) {
        start = builder.graph().inputs().front();
      } else {
        const Instantiation probe = instantiateOp(*seq.ops.front(), rng, config_.limits, nullptr, 0.0);
        if (!probe.ok()) continue;
        const Operand& first = probe.operands.front();
        start = builder.input(first.constant ? *first.constant : sampleTensor(first.type, first.range, rng));
      }
      std::optional<Placement> placed = placeSequence(builder, config_, seq, start, rng);
      if (!placed) continue;
      if (caffe_ && !allCaffeExpressible(builder, mark)) {
        builder.rollback(mark);
        continue;
      }
      if (net.maxDepth > 0 && graphDepthOf(builder.graph(), placed->outputs) > net.maxDepth) {
        builder.rollback(mark);
        continue;
      }
      return placed->members;
    }
    return std::nullopt;
  }

  static bool allCaffeExpressible(EvalBuilder& builder, size_t mark) {
    const std::vector<NodeId>& appended = builder.appended();
    return std::all_of(appended.begin() + static_cast<ptrdiff_t>(mark), appended.end(),
                       [&](NodeId id) { return caffeAcceptsNode(builder.graph(), id); });
  }

  static int graphDepthOf(const Graph& g, const std::vector<ValueId>& values) {
    const std::vector<int> depth = valueDepths(g);
    int d = 0;
    for (ValueId v : values) d = std::max(d, depth[v]);
    return d;
  }

  static OperandConstants operandConstants(const Instantiation& inst) {
    OperandConstants constants;
    for (const Operand& op : inst.operands) constants.push_back(op.constant ? &*op.constant : nullptr);
    return constants;
  }

  static OperandTypes operandTypes(const Instantiation& inst) {
    OperandTypes types;
    for (const Operand& op : inst.operands) types.push_back(op.omitted ? nullptr : &op.type);
    return types;
  }

  /// A sampler bug: its own inference rejects what it sampled, or a result is empty.
  static std::optional<std::string> unsound(const OpSpec& spec, const Instantiation& inst) {
    if (!inst.ok()) return inst.error;
    for (const TensorType& t : inst.outputTypes)
      if (t.numel() == 0) {
        std::string operands;
        for (const Operand& op : inst.operands) operands += " " + (op.omitted ? std::string("_") : toString(op.type));
        return std::string(spec.name) + " gives an empty result " + toString(t) + " from" + operands;
      }
    return std::nullopt;
  }

  /// `prune`: drop inputs a rolled-back chain or unit left unused; `caffe`: only outputs Caffe writes.
  /// `extra`: the odds of outputs that are read further or are weights (no draws at 0).
  static void finish(GeneratedCase& out, ValuePool& pool, Rng& rng, bool prune, bool caffe, const OutputMix& extra) {
    Graph& g = out.graph;
    std::vector<ValueId> outputs;
    for (NodeId id : g.order()) appendGraphOutputs(g, id, rng, outputs);  // order(): no copy
    if (caffe) dropOptionalOutputs(g, outputs);
    g.setOutputs(outputs);
    if (prune) g.removeUnused();
    if (!caffe && extra.consumed > 0)
      for (NodeId id : g.order())
        for (ValueId v : g.node(id).outputs)
          if (!g.value(v).uses.empty() && rng.bernoulli(extra.consumed)) outputs.push_back(v);
    if (!caffe && extra.weights > 0)
      for (ValueId w : g.weights())
        if (!g.value(w).uses.empty() && rng.bernoulli(extra.weights)) outputs.push_back(w);
    g.setOutputs(outputs);
    const std::vector<ValueId> inputs = g.inputs();
    out.inputs.reserve(inputs.size());
    out.outputs.reserve(outputs.size());
    // Inputs, weights and results are distinct values: each is taken from the pool once.
    for (ValueId v : inputs) out.inputs.push_back(pool.take(v));
    for (ValueId v : outputs) {
      out.outputs.push_back(pool.take(v));
      out.nonFinite = out.nonFinite || !allFinite(out.outputs.back());
    }
  }

  const GenConfig& config_;
  const bool caffe_ = config_.format != "onnx";
  std::vector<const OpSpec*> ops_;
  std::vector<std::string> units_;  ///< Caffe units, drawn at weights_[ops_.size() + k]
  std::vector<double> weights_;
  WeightedTable drawOp_;  ///< over weights_
  std::map<const OpSpec*, BodyOps> bodyOps_;
};

}  // namespace

std::unique_ptr<Generator> makeIsraGen(const GenConfig& config) { return std::make_unique<IsraGen>(config); }

}  // namespace nnfuzz
