// blind.cpp - Isra's two baselines (seed 003 §4.1.1-4.1.2), which sample operations
// blindly from the syntactic domains (OpSpec::attrs, random operand types) and use
// shape inference only as a checker:
//  - declgen: draws a whole graph, then checks it; an invalid graph is discarded whole
//    and a new one (with a new op count) is drawn, so large graphs are rarely kept;
//  - randoop: appends one blind operation at a time and keeps it only if the graph
//    still checks (feedback-directed, like Randoop).
// Checking node by node in topological order is the same as checking the finished graph,
// so declgen stops drawing at the first invalid node.
#include <limits>

#include "gen/generators.h"
#include "interp/interpreter.h"
#include "interp/values.h"
#include "ops/common.h"
#include "ops/infer_node.h"
#include "ops/instantiate.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

constexpr int64_t kMaxBlindElements = 1 << 16;

class BlindGen : public Generator {
 public:
  BlindGen(const GenConfig& config, bool restartWholeGraph) : config_(config), restart_(restartWholeGraph) {
    for (size_t i = 0; i < config.ops.size(); ++i)
      if (config.ops[i]->bodies.empty() && usableUnder(*config.ops[i], config.limits)) {
        ops_.push_back(config.ops[i]);
        weights_.push_back(config.opWeights[i]);
      }
  }

  GeneratedCase generate(Rng& rng) const override {
    constexpr int kMaxAttempts = 2000000;
    GeneratedCase out;
    while (true) {
      out.graph = Graph();
      out.requestedOps = static_cast<int>(rng.uniformInt(config_.minOps, config_.maxOps));
      int added = 0, misses = 0;
      while (added < out.requestedOps) {
        ++out.attempts;
        if (appendBlindOp(out.graph, rng)) {
          ++added;
          continue;
        }
        if (restart_ || out.attempts >= kMaxAttempts) break;
        ++misses;
        if (misses > 1000 * out.requestedOps && added > 0) break;  // randoop: settle for fewer ops
      }
      if (added == out.requestedOps || (!restart_ && added > 0)) break;
      if (out.attempts >= kMaxAttempts) break;
    }
    finish(out, rng);
    return out;
  }

 private:
  /// Appends one blindly drawn op if it checks; otherwise leaves the graph unchanged.
  bool appendBlindOp(Graph& g, Rng& rng) const {
    const OpSpec& spec = *ops_[rng.weighted(weights_)];
    const int maxArity = spec.maxGenInputs > 0 ? spec.maxGenInputs : spec.maxInputs;
    const int arity = static_cast<int>(rng.uniformInt(spec.minInputs, std::max(spec.minInputs, maxArity)));

    struct Slot {
      ValueId existing = kNoValue;
      Tensor fresh;  // type (and contents for constants and weights) of a new value
      bool constant = false;
      bool weight = false;
    };
    std::vector<Slot> slots(static_cast<size_t>(arity));
    const size_t numValues = g.valueCapacity();
    for (int i = 0; i < arity; ++i) {
      Slot& s = slots[static_cast<size_t>(i)];
      if (spec.isConstantInput(i)) {
        s.constant = true;
        const auto len = rng.uniformInt(0, config_.limits.maxRank);
        std::vector<int64_t> values(static_cast<size_t>(len));
        for (auto& v : values) v = rng.uniformInt(-config_.limits.maxDim, config_.limits.maxDim);
        s.fresh = int64Tensor(values);
      } else if (numValues > 0 && rng.bernoulli(config_.pickingRate)) {
        const auto v = static_cast<ValueId>(rng.uniformInt(0, static_cast<int64_t>(numValues) - 1));
        // Empty constants (no axes, say) feed only shape-like operands, as in isra.
        if (g.value(v).alive && g.value(v).type.numel() > 0) s.existing = v;
      }
      if (!s.constant && s.existing == kNoValue) {
        const DType dtype = opsupport::sampleDType(rng, config_.limits, std::vector<DType>(kAllDTypes, kAllDTypes + 7));
        const int rank = static_cast<int>(rng.uniformInt(0, config_.limits.maxRank));
        const TensorType type{dtype, opsupport::sampleShape(rng, config_.limits, rank)};
        // A weight's contents exist before the check, which may read them (Gather indices).
        s.weight = rng.bernoulli(config_.weightRate);
        s.fresh = s.weight ? sampleTensor(type, defaultRange(dtype), rng) : Tensor(type);
      }
    }
    Attributes attrs = blindAttributes(spec, rng);

    std::vector<const TensorType*> types;
    std::vector<const Tensor*> constants;
    for (const Slot& s : slots) {
      types.push_back(s.existing != kNoValue ? &g.value(s.existing).type : &s.fresh.type);
      const bool existingWeight = s.existing != kNoValue && g.value(s.existing).data;
      constants.push_back(s.constant || s.weight ? &s.fresh : existingWeight ? &*g.value(s.existing).data : nullptr);
    }
    InferResult r = inferNode(spec, types, constants, attrs);
    if (!r.ok()) return false;
    if (config_.avoids(spec, types, attrs)) return false;
    for (const TensorType& t : r.types) {
      if (t.numel() == 0 || t.numel() > kMaxBlindElements) return false;
    }
    std::vector<ValueId> operands;
    for (Slot& s : slots) {
      if (s.existing != kNoValue) {
        operands.push_back(s.existing);
      } else if (s.constant || s.weight) {
        operands.push_back(g.addWeight(std::move(s.fresh)));
      } else {
        operands.push_back(g.addInput(s.fresh.type));
      }
    }
    g.addNode(std::string(spec.name), std::move(operands), std::move(attrs), r.types);
    return true;
  }

  static Attributes blindAttributes(const OpSpec& spec, Rng& rng) {
    Attributes attrs;
    for (const AttrSpec& a : spec.attrs) {
      if (rng.bernoulli(0.5)) continue;
      const auto len = rng.uniformInt(a.minLen, std::max(a.minLen, a.maxLen));
      switch (a.kind) {
        case AttrKind::Int: attrs.setInt(a.name, rng.uniformInt(static_cast<int64_t>(a.lo), static_cast<int64_t>(a.hi))); break;
        case AttrKind::Float: attrs.setFloat(a.name, rng.uniformReal(a.lo, a.hi)); break;
        case AttrKind::String:
          if (!a.choices.empty()) attrs.setString(a.name, std::string(rng.pick(a.choices)));
          break;
        case AttrKind::Ints: {
          std::vector<int64_t> v(static_cast<size_t>(len));
          for (auto& x : v) x = rng.uniformInt(static_cast<int64_t>(a.lo), static_cast<int64_t>(a.hi));
          attrs.setInts(a.name, v);
          break;
        }
        case AttrKind::Floats: {
          std::vector<double> v(static_cast<size_t>(len));
          for (auto& x : v) x = rng.uniformReal(a.lo, a.hi);
          attrs.setFloats(a.name, v);
          break;
        }
        case AttrKind::Strings: {
          if (a.choices.empty()) break;
          std::vector<std::string> v(static_cast<size_t>(len));
          for (auto& x : v) x = std::string(rng.pick(a.choices));
          attrs.setStrings(a.name, v);
          break;
        }
      }
    }
    return attrs;
  }

  /// Outputs are the unused results; inputs get random values in their dtype's default
  /// range (the baselines know no value domains), and the reference runs once.
  static void finish(GeneratedCase& out, Rng& rng) {
    Graph& g = out.graph;
    std::vector<ValueId> outputs;
    for (NodeId id : g.nodes())
      for (ValueId v : g.node(id).outputs)
        if (g.value(v).uses.empty()) outputs.push_back(v);
    g.setOutputs(outputs);
    for (ValueId v : g.inputs()) out.inputs.push_back(sampleTensor(g.value(v).type, defaultRange(g.value(v).type.dtype), rng));
    if (outputs.empty()) return;
    try {
      out.outputs = runGraph(g, out.inputs);
    } catch (const Error&) {
      // Undefined on these values (a runtime index out of range): flagged as a non-finite
      // result is (NaN where the dtype has it), since the baselines know no value domains.
      out.outputs.clear();
      for (ValueId v : outputs) {
        Tensor t(g.value(v).type);
        if (isFloat(t.type.dtype)) std::fill(t.data.begin(), t.data.end(), std::numeric_limits<double>::quiet_NaN());
        out.outputs.push_back(std::move(t));
      }
      out.nonFinite = true;
    }
    for (const Tensor& t : out.outputs) out.nonFinite = out.nonFinite || !allFinite(t);
  }

  const GenConfig& config_;
  bool restart_;
  std::vector<const OpSpec*> ops_;
  std::vector<double> weights_;
};

}  // namespace

std::unique_ptr<Generator> makeDeclGen(const GenConfig& config) { return std::make_unique<BlindGen>(config, true); }
std::unique_ptr<Generator> makeRandoopGen(const GenConfig& config) { return std::make_unique<BlindGen>(config, false); }

}  // namespace nnfuzz
