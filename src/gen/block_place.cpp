// block_place.cpp - members in Isra's order with pinned data flows, then evaluation.
#include "gen/block_place.h"

#include <algorithm>

#include "gen/align.h"
#include "gen/caffe_filter.h"
#include "gen/model_mutations.h"
#include "gen/padding.h"
#include "interp/interpreter.h"
#include "interp/values.h"
#include "ops/registry.h"

namespace nnfuzz {

namespace {

using Kind = OperandRef::Kind;

/// Isra's order with the member's data flows pinned and its recipe's attributes set.
class MemberSource : public OperandSource {
 public:
  MemberSource(EvalBuilder& builder, const GenConfig& config, Rng& rng, const MemberTemplate& member,
               std::vector<ValueId> flows, bool exactArity, const std::vector<Attributes>& earlier, bool mutate)
      : builder_(builder), config_(config), rng_(rng), member_(member), flows_(std::move(flows)),
        consumed_(flows_.size(), false), exactArity_(exactArity), earlier_(earlier), mutate_(mutate) {}

  ValueId pickExisting(const std::function<bool(const TensorType&)>&,
                       const std::function<ValueRange(DType)>&) override {
    return kNoValue;  // a graph model's data flows are its digraph's edges, nothing else
  }
  const TensorType& typeOf(ValueId v) const override { return builder_.typeOf(v); }

  int arity(const OpSpec&, int drawn) override {
    const int slots = static_cast<int>(member_.operands.size());
    return exactArity_ ? slots : std::max(drawn, slots);
  }

  ValueId pinned(int index, const OperandNeed& need) override {
    const auto i = static_cast<size_t>(index);
    if ((i >= flows_.size() || flows_[i] == kNoValue) && index > 0 && !config_.net.params.empty()) {
      // A weight dim the limits fix (Conv's num_output): a fresh weight drawn within them.
      if (auto type = sampleWithinDims(config_.net, *findOp(member_.op), index, need.sample, rng_))
        return builder_.weight(sampleTensor(*type, need.rangeOf(type->dtype), rng_));
      return kNoValue;
    }
    if (i >= flows_.size() || flows_[i] == kNoValue) return kNoValue;
    consumed_[i] = true;
    // A float operand that only asks for the default range takes any finite value: every
    // result is checked for magnitude anyway, and clipping each data flow to [-2, 2] would
    // put a Clip before nearly every node.
    const std::function<ValueRange(DType)> relaxed = [&](DType dtype) {
      const ValueRange r = need.rangeOf(dtype);
      if (isFloat(dtype) && r == defaultRange(dtype)) return ValueRange{-kMaxResultMagnitude, kMaxResultMagnitude, 0};
      return r;
    };
    std::optional<ValueId> v =
        alignValue(builder_, flows_[i], OperandNeed{need.accepts, relaxed, need.sample}, config_.limits, rng_);
    if (!v) {
      failed_ = true;
      return kNoValue;
    }
    return *v;
  }

  bool wants(int index) const override {
    const auto i = static_cast<size_t>(index);
    return i < member_.operands.size() && member_.operands[i].kind != Kind::Default &&
           member_.operands[i].kind != Kind::Omitted;
  }

  void adjustAttributes(const OpSpec& spec, OpDraft& draft) override {
    for (const auto& [name, value] : member_.attrs) draft.attrs.set(name, value);
    for (const auto& [name, rule] : member_.derived)
      applyDerivedAttr(name, rule, earlier_, draft.first().rank(), draft.attrs);
    if (mutate_ && spec.sampleAttrs) mutateOneAttribute(spec, draft);
    if (!config_.net.params.empty()) narrowAttributes(config_.net, spec, draft.attrs, rng_);
  }

  bool ok() const {
    return !failed_ && std::all_of(flows_.begin(), flows_.end(), [&, i = size_t{0}](ValueId v) mutable {
      return v == kNoValue || consumed_[i++];
    });
  }
  const nlohmann::json& mutation() const { return mutation_; }

 private:
  /// The parameter mutation: one attribute takes the value a fresh draw of the op's own
  /// sampler gives it (a random enum value or a random value in range).
  void mutateOneAttribute(const OpSpec& spec, OpDraft& draft) {
    OpDraft redraw = draft;
    redraw.attrs = Attributes();
    spec.sampleAttrs(redraw);
    mutation_ = redrawOneAttribute(spec.name, draft.attrs, redraw.attrs, member_.attrs, rng_);
  }

  EvalBuilder& builder_;
  const GenConfig& config_;
  Rng& rng_;
  const MemberTemplate& member_;
  std::vector<ValueId> flows_;
  std::vector<bool> consumed_;
  bool exactArity_;
  const std::vector<Attributes>& earlier_;
  bool mutate_;
  bool failed_ = false;
  nlohmann::json mutation_;
};

Tensor freshData(const Operand& op, const OperandRef* ref, Rng& rng) {
  if (op.constant) return *op.constant;
  if (ref && ref->kind == Kind::Constant)
    return Tensor(op.type, std::vector<double>(static_cast<size_t>(op.type.numel()), roundTo(op.type.dtype, ref->value)));
  return sampleTensor(op.type, op.range, rng);
}

bool becomesWeight(const Operand& op, const OperandRef* ref, double weightRate, Rng& rng) {
  if (op.constant) return true;
  if (!ref || ref->kind == Kind::Default) return rng.bernoulli(weightRate);
  return ref->kind != Kind::Input;
}

}  // namespace

std::optional<SubgraphTemplate> operatorRecipe(const OpSpec& spec, int flows) {
  MemberTemplate m;
  m.op = std::string(spec.name);
  int placed = 0;
  for (int slot = 0; placed < flows; ++slot) {
    if (slot >= spec.maxInputs) return std::nullopt;
    if (spec.isConstantInput(slot)) {
      m.operands.push_back({});
    } else {
      m.operands.push_back({Kind::BlockInput, placed++});
    }
  }
  SubgraphTemplate t;
  t.members.push_back(std::move(m));
  return t;
}

std::optional<Placement> placeBlock(EvalBuilder& builder, const GenConfig& config, const PlaceRequest& request,
                                    Rng& rng) {
  const SubgraphTemplate& recipe = *request.recipe;
  const size_t mark = builder.mark();
  Placement out;
  std::vector<std::vector<ValueId>> results;
  std::vector<Attributes> attrsSoFar;
  const int mutated =
      request.mutateParameter ? static_cast<int>(rng.uniformInt(0, static_cast<int64_t>(recipe.members.size()) - 1)) : -1;
  auto fail = [&]() -> std::optional<Placement> {
    builder.rollback(mark);
    return std::nullopt;
  };
  for (size_t j = 0; j < recipe.members.size(); ++j) {
    const MemberTemplate& member = recipe.members[j];
    const OpSpec* spec = findOp(member.op);
    if (!spec) return fail();
    std::vector<ValueId> flows(member.operands.size(), kNoValue);
    for (size_t k = 0; k < member.operands.size(); ++k) {
      const OperandRef& r = member.operands[k];
      if (r.kind == Kind::BlockInput) {
        if (static_cast<size_t>(r.index) >= request.inputs.size()) return fail();
        flows[k] = request.inputs[static_cast<size_t>(r.index)];
      } else if (r.kind == Kind::Member) {
        const auto& from = results[static_cast<size_t>(r.index)];
        if (static_cast<size_t>(r.output) >= from.size()) return fail();
        flows[k] = from[static_cast<size_t>(r.output)];
      }
    }
    MemberSource source(builder, config, rng, member, std::move(flows), !request.operatorBlock, attrsSoFar,
                        static_cast<int>(j) == mutated);
    Instantiation inst = instantiateOp(*spec, rng, config.limits, &source, 0.0);
    if (!inst.ok() || !source.ok()) return fail();
    for (const TensorType& t : inst.outputTypes)
      if (t.numel() == 0) return fail();
    for (size_t k = 0; k < member.operands.size() && k < inst.operands.size(); ++k)
      if (member.operands[k].kind == Kind::Omitted && !inst.operands[k].omitted) return fail();
    if (hasSpatialPadding(spec->name) && rng.bernoulli(config.graph.sameSizePadding))
      out.samePadding += solveSamePadding(*spec, inst);
    std::vector<const TensorType*> types;
    for (const Operand& op : inst.operands) types.push_back(op.omitted ? nullptr : &op.type);
    if ((!config.avoid.empty() || !config.net.params.empty()) && config.avoids(*spec, types, inst.attrs)) return fail();

    std::vector<Tensor> fresh(inst.operands.size());
    std::vector<const Tensor*> data(inst.operands.size(), nullptr);
    for (size_t k = 0; k < inst.operands.size(); ++k) {
      const Operand& op = inst.operands[k];
      if (op.omitted) continue;
      if (op.existing != kNoValue) {
        data[k] = &builder.pool().data(op.existing);
        continue;
      }
      fresh[k] = freshData(op, k < member.operands.size() ? &member.operands[k] : nullptr, rng);
      data[k] = &fresh[k];
    }
    std::vector<Tensor> values = evalOp(*spec, data, inst.attrs, inst.outputTypes);
    if (!usableResults(*spec, data, inst.attrs, values)) return fail();

    // With a Caffe format a layer's parameters must be weights (a required sequence's
    // Conv -> InnerProduct, seed 004); the caller checks the whole placement's Caffe form.
    std::vector<bool> caffeWeights;
    if (config.format != "onnx") caffeWeightKinds(builder.graph(), *spec, inst, config.weightRate, rng, caffeWeights);
    std::vector<ValueId> operands(inst.operands.size(), kNoValue);
    for (size_t k = 0; k < inst.operands.size(); ++k) {
      const Operand& op = inst.operands[k];
      if (op.omitted) continue;
      if (op.existing != kNoValue) {
        operands[k] = op.existing;
        continue;
      }
      const OperandRef* ref = k < member.operands.size() ? &member.operands[k] : nullptr;
      // With input_shapes, a fresh operand of another shape cannot be a runtime input.
      const bool chosen = caffeWeights.empty() ? becomesWeight(op, ref, config.weightRate, rng) : caffeWeights[k];
      const bool weight = chosen || !config.net.inputShapeAllows(op.type);
      operands[k] = weight ? builder.weight(std::move(fresh[k])) : builder.input(std::move(fresh[k]));
    }
    if (!source.mutation().is_null()) out.parameterMutation = source.mutation();
    const NodeId node = builder.commit(member.op, std::move(operands), inst.attrs, inst.outputTypes, std::move(values));
    out.members.push_back(node);
    results.push_back(builder.graph().node(node).outputs);
    attrsSoFar.push_back(std::move(inst.attrs));
  }
  if (request.operatorBlock) {
    out.outputs = results.back();
  } else {
    for (const OperandRef& r : recipe.outputs) {
      const auto& from = results[static_cast<size_t>(r.index)];
      if (static_cast<size_t>(r.output) >= from.size()) return fail();
      out.outputs.push_back(from[static_cast<size_t>(r.output)]);
    }
  }
  const auto& appended = builder.appended();
  for (size_t i = mark; i < appended.size(); ++i)
    if (std::find(out.members.begin(), out.members.end(), appended[i]) == out.members.end())
      out.helperOps.push_back(builder.graph().node(appended[i]).op);
  return out;
}

}  // namespace nnfuzz
