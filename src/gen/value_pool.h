// value_pool.h - the values a generator has made so far, with their concrete contents.
//
// Generators evaluate every operation as they append it (YARPGen's "evaluate while
// generating"), so each value has data; the pool caches each value's range so that
// "may this value feed an operand that needs values in [lo, hi]?" costs O(1).
#pragma once

#include <optional>
#include <vector>

#include "interp/values.h"
#include "ir/graph.h"
#include "ops/instantiate.h"
#include "support/double_scan.h"

namespace nnfuzz {

/// Which values pickExisting may hand out again.
enum class Reuse {
  AnyValue,        ///< every value: inputs, weights and results
  ResultsAndSeed,  ///< Isra's pool: node results and the first value only; other fresh
                   ///< operands serve the node they were made for, so reuse builds edges
};

class ValuePool : public OperandSource {
 public:
  ValuePool(Graph& graph, Rng& rng, Reuse reuse = Reuse::AnyValue) : graph_(graph), rng_(rng), reuse_(reuse) {}

  /// Room for values with ids below `values` (a generator that knows its model's size).
  void reserve(size_t values) {
    data_.reserve(values);
    summaries_.reserve(values);
    ids_.reserve(values);
  }
  /// Records the contents of a value the graph now holds.
  void add(ValueId id, Tensor data);
  const Tensor& data(ValueId id) const { return data_[id]; }
  /// Moves a value's contents out, when the model is finished: the pool is done with it.
  Tensor take(ValueId id) { return std::move(data_[id]); }
  /// True if the value's contents lie in `range` (always for bool values).
  bool within(ValueId id, const ValueRange& range) const;

  /// A random offered value of an accepted type within its range; for a range wider than
  /// the dtype's default band, half the time one whose elements reach past twice that band.
  ValueId pickExisting(const std::function<bool(const TensorType&)>& accepts,
                       const std::function<ValueRange(DType)>& rangeOf) override;
  /// The same, among the values `usable` accepts.
  ValueId pickExisting(const std::function<bool(const TensorType&)>& accepts,
                       const std::function<ValueRange(DType)>& rangeOf,
                       const std::function<bool(ValueId)>& usable);
  const TensorType& typeOf(ValueId value) const override { return graph_.value(value).type; }
  /// Never hands `id` out again (a value inside a run that must stay whole).
  void withhold(ValueId id) { std::erase(ids_, id); }

 private:
  using Summary = DoubleSummary;
  /// The summary of a value's contents, scanned when first asked: most fresh operands
  /// are never offered again, so their contents are never scanned.
  const Summary& summaryOf(ValueId id) const;
  Graph& graph_;
  Rng& rng_;
  Reuse reuse_;
  bool seeded_ = false;              // ResultsAndSeed: the first value was offered
  std::vector<ValueId> ids_;
  std::vector<Tensor> data_;         // by value id
  mutable std::vector<std::optional<Summary>> summaries_;  // by value id, once scanned
  std::vector<ValueId> candidates_;  // scratch
  std::vector<ValueId> wideCandidates_;  // scratch: candidates past the default band

  /// Widest band that counts as one (wider: the operand takes anything).
  static constexpr double kWidestBand = 1e6;
  /// `band`: the upper end of the dtype's default range.
  static bool asksBeyondDefault(double band, const ValueRange& range);
  bool reachesBeyond(ValueId id, double band) const;
};

/// The contents of an instantiation's operands (`data`, by position; omitted ones null): a
/// reused value's data from the pool, else fresh data (its constant, or sampled in its range),
/// kept in `fresh`; fresh values of the kinds `mix` draws.
void operandContents(const Instantiation& inst, const ValuePool& pool, Rng& rng, const ValueMix& mix,
                     std::vector<Tensor>& fresh, std::vector<const Tensor*>& data);

}  // namespace nnfuzz
