#include "ops/instantiate.h"

#include <algorithm>

#include "ops/common.h"
#include "ops/infer_node.h"

namespace nnfuzz {

using opsupport::contains;

ValueRange firstRangeOf(const OpSpec& spec, DType dtype) {
  if (spec.firstRange) return spec.firstRange(dtype);
  return defaultRange(dtype);
}

ValueRange operandRangeOf(const OpSpec& spec, size_t k, const std::vector<const TensorType*>& types,
                          const Attributes& attrs, const Limits& limits) {
  const DType dtype = types.at(k)->dtype;
  if (k == 0) return firstRangeOf(spec, dtype);
  ValueRange fallback = defaultRange(dtype);
  if (isInteger(dtype)) fallback.minMagnitude = std::max(fallback.minMagnitude, 1.0);
  if (!spec.nextInput || !types[0]) return fallback;
  OpDraft draft;
  draft.arity = static_cast<int>(types.size());
  for (size_t j = 0; j < k; ++j) {
    draft.inputTypes.push_back(types[j] ? *types[j] : TensorType{});
    draft.omitted.push_back(types[j] == nullptr);
    draft.constants.push_back(nullptr);
  }
  draft.attrs = attrs;
  draft.limits = &limits;
  Rng scratch(0);  // a pattern's range does not depend on its draws, only its types may
  draft.rng = &scratch;
  try {
    const InputPattern pattern = spec.nextInput(draft);
    if (pattern.omit || pattern.constant) return fallback;
    return pattern.range;
  } catch (const std::exception&) {
    return fallback;  // the sampler's own checks refuse this call: the spec's shape inference will too
  }
}

bool usableUnder(const OpSpec& spec, const Limits& limits) {
  if (spec.minRank > limits.maxRank) return false;
  return std::any_of(limits.dtypes.begin(), limits.dtypes.end(), [&](DType d) { return contains(spec.dtypes, d); });
}

namespace {

bool firstAccepts(const OpSpec& spec, const Limits& limits, const TensorType& t) {
  if (!contains(spec.dtypes, t.dtype) || t.rank() < spec.minRank || t.rank() > spec.maxRank) return false;
  // A reused first input must be creatable too: respect the dtypes the config allows.
  if (!contains(limits.dtypes, t.dtype)) return false;
  return !spec.acceptsFirst || spec.acceptsFirst(t, limits);
}

TensorType sampleFirstType(const OpSpec& spec, Rng& rng, const Limits& limits) {
  const DType dtype = opsupport::sampleDType(rng, limits, spec.dtypes);
  if (spec.sampleFirst) return spec.sampleFirst(rng, limits, dtype);
  const int maxRank = std::min(spec.maxRank, limits.maxRank);
  const int rank = static_cast<int>(rng.uniformInt(spec.minRank, maxRank));
  return {dtype, opsupport::sampleShape(rng, limits, rank)};
}

}  // namespace

Instantiation instantiateOp(const OpSpec& spec, Rng& rng, const Limits& limits, OperandSource* source,
                            double pickingRate) {
  Instantiation result;
  if (!usableUnder(spec, limits)) {
    result.error = std::string(spec.name) + " cannot be generated under these limits";
    return result;
  }
  // (1) in-degree
  const int maxArity = spec.maxGenInputs > 0 ? spec.maxGenInputs : spec.maxInputs;
  OpDraft draft;
  draft.arity = static_cast<int>(rng.uniformInt(spec.minInputs, std::max(spec.minInputs, maxArity)));
  if (source) draft.arity = std::clamp(source->arity(spec, draft.arity), spec.minInputs, spec.maxInputs);
  draft.limits = &limits;
  draft.rng = &rng;
  const auto slots = static_cast<size_t>(draft.arity);
  draft.inputTypes.reserve(slots);
  draft.omitted.reserve(slots);
  draft.constants.reserve(slots);
  result.operands.reserve(slots);
  // An operand joins the instantiation, and the draft sees its constant there (no copy).
  const auto take = [&](Operand&& op) {
    const Operand* before = result.operands.data();
    result.operands.push_back(std::move(op));
    if (result.operands.data() != before) {  // moved (an arity past the reserve): point anew
      draft.constants.clear();
      for (const Operand& o : result.operands) draft.constants.push_back(o.constant ? &*o.constant : nullptr);
    } else {
      const Operand& o = result.operands.back();
      draft.constants.push_back(o.constant ? &*o.constant : nullptr);
    }
  };

  // (2) the first input
  Operand first;
  const std::function<bool(const TensorType&)> acceptsFirst = [&](const TensorType& t) {
    return firstAccepts(spec, limits, t);
  };
  const std::function<ValueRange(DType)> rangeOfFirst = [&](DType dtype) { return firstRangeOf(spec, dtype); };
  if (spec.sampleConstantFirst) {
    first.constant = spec.sampleConstantFirst(rng, limits);
    first.type = first.constant->type;
  } else if (source) {
    const std::function<TensorType(Rng&)> sample = [&](Rng& r) { return sampleFirstType(spec, r, limits); };
    first.existing = source->pinned(0, OperandNeed{acceptsFirst, rangeOfFirst, sample});
  }
  if (!first.constant) {
    if (first.existing == kNoValue && source && rng.bernoulli(pickingRate))
      first.existing = source->pickExisting(acceptsFirst, rangeOfFirst);
    first.type = first.existing != kNoValue ? source->typeOf(first.existing) : sampleFirstType(spec, rng, limits);
  }
  first.range = firstRangeOf(spec, first.type.dtype);
  draft.inputTypes.push_back(first.type);
  draft.omitted.push_back(false);
  take(std::move(first));

  // (3) attributes given the first input
  if (spec.sampleAttrs) spec.sampleAttrs(draft);
  if (source) source->adjustAttributes(spec, draft);

  // (4) further inputs, each from the pattern left by everything before it
  for (int i = 1; i < draft.arity; ++i) {
    InputPattern pattern = spec.nextInput(draft);
    for (int redraw = 0; pattern.omit && source && source->wants(i) && redraw < 8; ++redraw)
      pattern = spec.nextInput(draft);
    Operand op;
    op.range = pattern.range;
    if (pattern.omit) {
      op.omitted = true;
    } else if (pattern.constant) {
      op.type = pattern.constant->type;
      op.constant = std::move(pattern.constant);
    } else {
      const std::function<ValueRange(DType)> rangeOf = [&](DType) { return pattern.range; };
      if (source) op.existing = source->pinned(i, OperandNeed{pattern.accepts, rangeOf, pattern.sample});
      if (op.existing == kNoValue && source && rng.bernoulli(pickingRate))
        op.existing = source->pickExisting(pattern.accepts, rangeOf);
      op.type = op.existing != kNoValue ? source->typeOf(op.existing) : pattern.sample(rng);
    }
    draft.inputTypes.push_back(op.type);
    draft.omitted.push_back(op.omitted);
    take(std::move(op));
  }
  while (result.operands.size() > 1 && result.operands.back().omitted) result.operands.pop_back();
  result.attrs = std::move(draft.attrs);

  OperandTypes types;
  OperandConstants constants;
  for (const Operand& op : result.operands) {
    types.push_back(op.omitted ? nullptr : &op.type);
    constants.push_back(op.constant ? &*op.constant : nullptr);
  }
  InferResult inferred = inferNode(spec, types, constants, result.attrs);
  if (!inferred.ok()) {
    result.error = "unsound sampler: " + inferred.error;
    return result;
  }
  result.outputTypes = std::move(inferred.types);
  return result;
}

}  // namespace nnfuzz
