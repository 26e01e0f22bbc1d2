#include "gen/value_pool.h"

#include <algorithm>
#include <cmath>

#include "interp/values.h"

namespace nnfuzz {

void ValuePool::add(ValueId id, Tensor data) {
  if (data_.size() <= id) {
    data_.resize(id + 1);
    summaries_.resize(id + 1);
  }
  summaries_[id].reset();
  // Empty constants (e.g. no axes) are never offered for reuse: nothing may be empty.
  const bool offered = reuse_ == Reuse::AnyValue || graph_.value(id).kind == ValueKind::Result || !seeded_;
  if (data.numel() > 0 && offered) ids_.push_back(id);
  seeded_ = true;
  data_[id] = std::move(data);
}

const ValuePool::Summary& ValuePool::summaryOf(ValueId id) const {
  std::optional<Summary>& s = summaries_[id];
  if (!s) s = summarizeDoubles(data_[id].data);
  return *s;
}

bool ValuePool::within(ValueId id, const ValueRange& r) const {
  if (graph_.value(id).type.dtype == DType::Bool) return true;
  const Summary& s = summaryOf(id);
  return s.min >= r.lo && s.max <= r.hi && s.minAbs >= r.minMagnitude;
}

ValueId ValuePool::pickExisting(const std::function<bool(const TensorType&)>& accepts,
                                const std::function<ValueRange(DType)>& rangeOf) {
  return pickExisting(accepts, rangeOf, nullptr);
}

ValueId ValuePool::pickExisting(const std::function<bool(const TensorType&)>& accepts,
                                const std::function<ValueRange(DType)>& rangeOf,
                                const std::function<bool(ValueId)>& usable) {
  candidates_.clear();
  wideCandidates_.clear();
  // The range and the default band by dtype, asked again only when the dtype changes: most
  // candidates share one.
  std::optional<DType> dtype;
  ValueRange range;
  bool asksWide = false;
  double band = 0;
  for (ValueId id : ids_) {
    const Value& value = graph_.value(id);
    if (!value.alive) continue;  // a rolled-back node's result
    if (usable && !usable(id)) continue;
    if (!accepts(value.type)) continue;
    if (dtype != value.type.dtype) {
      dtype = value.type.dtype;
      range = rangeOf(*dtype);
      band = defaultRange(*dtype).hi;
      asksWide = asksBeyondDefault(band, range);
    }
    if (!within(id, range)) continue;
    candidates_.push_back(id);
    if (asksWide && reachesBeyond(id, band)) wideCandidates_.push_back(id);
  }
  if (candidates_.empty()) return kNoValue;
  // An operand whose band is wider than the default one (a saturating activation's
  // [-20, 20]) gets, half the time, a value that reaches past the default band: most pool
  // values lie within it, and reuse alone would keep such operators out of saturation.
  const std::vector<ValueId>& from = !wideCandidates_.empty() && rng_.bernoulli(0.5) ? wideCandidates_ : candidates_;
  return from[static_cast<size_t>(rng_.uniformInt(0, static_cast<int64_t>(from.size()) - 1))];
}

bool ValuePool::asksBeyondDefault(double band, const ValueRange& range) {
  // A bounded band only: "anything" (a control-flow operand) asks for no wide values.
  return range.hi > band && range.hi <= kWidestBand;
}

bool ValuePool::reachesBeyond(ValueId id, double band) const {
  const Summary& s = summaryOf(id);
  return std::max(std::abs(s.min), std::abs(s.max)) > 2 * band;
}

void operandContents(const Instantiation& inst, const ValuePool& pool, Rng& rng, const ValueMix& mix,
                     std::vector<Tensor>& fresh, std::vector<const Tensor*>& data) {
  fresh.assign(inst.operands.size(), Tensor());
  data.assign(inst.operands.size(), nullptr);
  for (size_t k = 0; k < inst.operands.size(); ++k) {
    const Operand& op = inst.operands[k];
    if (op.omitted) continue;
    if (op.existing != kNoValue) {
      data[k] = &pool.data(op.existing);
      continue;
    }
    fresh[k] = op.constant ? *op.constant : sampleTensor(op.type, op.range, rng, mix);
    data[k] = &fresh[k];
  }
}

}  // namespace nnfuzz
