// isra.cpp - the Isra generator (seed 003): append operations in topological order, each
// instantiated backtrack-free in the fixed order of instantiateOp, reusing existing
// values with the picking rate.
//
// Beyond the paper, every operation is evaluated as it is appended. An operation whose
// result would be non-finite, huge, or too sensitive to float32 rounding to compare
// (OpSpec::unstable) is not appended; another one is drawn. This is a numeric filter,
// not a constraint backtrack: shapes and attributes never need it.
#include <cmath>

#include "caffe/layer_map.h"
#include "gen/caffe_filter.h"
#include "gen/eval_builder.h"
#include "gen/weight_fill.h"
#include "gen/generators.h"
#include "gen/value_pool.h"
#include "interp/interpreter.h"
#include "interp/values.h"

namespace nnfuzz {

namespace {

class IsraGen : public Generator {
 public:
  explicit IsraGen(const GenConfig& config) : config_(config) {
    for (size_t i = 0; i < config.ops.size(); ++i)
      if (usableUnder(*config.ops[i], config.limits) && (!caffe_ || caffe_export::hasMapping(config.ops[i]->name))) {
        ops_.push_back(config.ops[i]);
        weights_.push_back(config.opWeights[i]);
      }
  }

  GeneratedCase generate(Rng& rng) override {
    GeneratedCase out;
    Graph& g = out.graph;
    ValuePool pool(g, rng);
    const int target = static_cast<int>(rng.uniformInt(config_.minOps, config_.maxOps));
    out.requestedOps = target;
    int added = 0;
    const int maxAttempts = 20 * target + 100;
    constexpr int kHardCap = 1000000;
    std::vector<Tensor> fresh;
    std::vector<const Tensor*> operandData;
    std::vector<bool> caffeWeights;  // per operand, when only Caffe-expressible nodes are drawn
    // Keep going past maxAttempts only while the graph is still empty: a model needs an op.
    while ((added < target && out.attempts < maxAttempts) || (added == 0 && out.attempts < kHardCap)) {
      ++out.attempts;
      const OpSpec& spec = *ops_[rng.weighted(weights_)];
      Instantiation inst = instantiateOp(spec, rng, config_.limits, &pool, config_.pickingRate);
      if (auto problem = unsound(spec, inst)) {
        if (out.unsoundOps++ == 0) out.firstUnsound = *problem;
        continue;
      }
      if (!config_.avoid.empty() && config_.avoids(spec, operandTypes(inst), inst.attrs)) continue;

      // Concrete operands: reused values' data, or fresh data in the operand's range.
      fresh.assign(inst.operands.size(), Tensor());
      operandData.assign(inst.operands.size(), nullptr);
      for (size_t k = 0; k < inst.operands.size(); ++k) {
        const Operand& op = inst.operands[k];
        if (op.omitted) continue;
        if (op.existing != kNoValue) {
          operandData[k] = &pool.data(op.existing);
          continue;
        }
        fresh[k] = op.constant ? *op.constant : sampleTensor(op.type, op.range, rng);
        operandData[k] = &fresh[k];
      }
      if (caffe_) {  // weights are known before evaluation: user-set contents apply
        caffeWeightKinds(g, spec, inst, config_.weightRate, rng, caffeWeights);
        if (!config_.weightFill.empty()) fillWeights(config_.weightFill, spec.name, inst, caffeWeights, fresh, rng);
      }
      std::vector<Tensor> results = evalOp(spec, operandData, inst.attrs, inst.outputTypes);
      if (!usableResults(spec, operandData, inst.attrs, results)) continue;
      if (caffe_ && !caffeAccepts(spec, inst, operandData, caffeWeights)) continue;

      // Commit: fresh operands become inputs or weights, then the node.
      std::vector<ValueId> operands(inst.operands.size(), kNoValue);
      for (size_t k = 0; k < inst.operands.size(); ++k) {
        const Operand& op = inst.operands[k];
        if (op.omitted) continue;
        if (op.existing != kNoValue) {
          operands[k] = op.existing;
          continue;
        }
        const bool weight = caffe_ ? caffeWeights[k] : op.constant || rng.bernoulli(config_.weightRate);
        operands[k] = weight ? g.addWeight(fresh[k]) : g.addInput(fresh[k].type);
        pool.add(operands[k], std::move(fresh[k]));
      }
      const NodeId node = g.addNode(std::string(spec.name), std::move(operands), std::move(inst.attrs), inst.outputTypes);
      for (size_t r = 0; r < results.size(); ++r) pool.add(g.node(node).outputs[r], std::move(results[r]));
      ++added;
    }
    finish(out, pool, rng, caffe_);
    return out;
  }

 private:
  static std::vector<const TensorType*> operandTypes(const Instantiation& inst) {
    std::vector<const TensorType*> types;
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

  static void finish(GeneratedCase& out, const ValuePool& pool, Rng& rng, bool caffe) {
    Graph& g = out.graph;
    std::vector<ValueId> outputs;
    for (NodeId id : g.nodes()) appendGraphOutputs(g, id, rng, outputs);
    if (caffe) dropOptionalOutputs(g, outputs);
    g.setOutputs(outputs);
    for (ValueId v : g.inputs()) out.inputs.push_back(pool.data(v));
    for (ValueId v : outputs) {
      out.outputs.push_back(pool.data(v));
      out.nonFinite = out.nonFinite || !allFinite(out.outputs.back());
    }
  }

  const GenConfig& config_;
  const bool caffe_ = config_.format != "onnx";
  std::vector<const OpSpec*> ops_;
  std::vector<double> weights_;
};

}  // namespace

std::unique_ptr<Generator> makeIsraGen(const GenConfig& config) { return std::make_unique<IsraGen>(config); }

}  // namespace nnfuzz
