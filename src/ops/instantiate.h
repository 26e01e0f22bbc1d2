// instantiate.h - Isra's operation-level instantiation of one operator.
//
// The fixed order that makes every constraint simple and backtrack-free (Isra §3.3.1):
// (1) in-degree, (2) the first input (an existing value, chosen with the picking rate,
// or a fresh placeholder sampled from the op's first-input domain), (3) attributes given
// it, (4) each further input from the pattern the op gives after everything before it.
// Where existing values come from is the caller's business (an OperandSource), so the
// generator reuses graph values and tests instantiate ops on their own.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ops/op_spec.h"

namespace nnfuzz {

/// What an operand slot needs (for sources that pin operands to values of their own).
struct OperandNeed {
  const std::function<bool(const TensorType&)>& accepts;
  const std::function<ValueRange(DType)>& rangeOf;  ///< the values it may hold, by dtype
  const std::function<TensorType(Rng&)>& sample;  ///< a fresh type accepts() holds for
};

/// Supplies existing values for reuse, and lets a generator that decides some operands
/// itself (the graph generator's data flows) take part in Isra's order. The hooks'
/// defaults leave Isra's order as it is.
class OperandSource {
 public:
  virtual ~OperandSource() = default;
  /// The operand count to use where Isra's step (1) drew `drawn`.
  virtual int arity(const OpSpec& /*spec*/, int drawn) { return drawn; }
  /// A value operand `index` must take, or kNoValue to let Isra's order choose. The value's
  /// type must pass need.accepts and its contents lie in need.rangeOf.
  virtual ValueId pinned(int /*index*/, const OperandNeed& /*need*/) { return kNoValue; }
  /// True if optional operand `index` must be present: the op's pattern is redrawn (a few
  /// times) while it says to leave the operand out.
  virtual bool wants(int /*index*/) const { return false; }
  /// Called after step (3): may change the attributes before further operands are drawn.
  virtual void adjustAttributes(const OpSpec& /*spec*/, OpDraft& /*draft*/) {}
  /// A random existing value whose type passes `accepts` and whose contents lie in the
  /// range `rangeOf(its dtype)` gives, or kNoValue if there is none.
  virtual ValueId pickExisting(const std::function<bool(const TensorType&)>& accepts,
                               const std::function<ValueRange(DType)>& rangeOf) = 0;
  virtual const TensorType& typeOf(ValueId value) const = 0;
};

/// One operand of an instantiated op.
struct Operand {
  ValueId existing = kNoValue;     ///< reused value, or kNoValue for a fresh one / omitted
  bool omitted = false;
  TensorType type;                 ///< type (of the reused or fresh value)
  std::optional<Tensor> constant;  ///< fixed contents (then it is a fresh weight)
  ValueRange range;                ///< values a fresh operand must hold
};

struct Instantiation {
  Attributes attrs;
  std::vector<Operand> operands;  ///< trailing omitted operands are dropped
  std::vector<TensorType> outputTypes;
  std::string error;  ///< non-empty if the op cannot be used under these limits or its sampler is unsound
  bool ok() const { return error.empty(); }
};

/// True if the generator can create a first input for `spec` under `limits`.
bool usableUnder(const OpSpec& spec, const Limits& limits);

/// Instantiates `spec` in Isra's order. `source` may be null (all operands fresh).
Instantiation instantiateOp(const OpSpec& spec, Rng& rng, const Limits& limits, OperandSource* source,
                            double pickingRate);

/// The value range of the first input of `spec` for a given dtype.
ValueRange firstRangeOf(const OpSpec& spec, DType dtype);

/// The value range the spec gives operand `k` of a call whose operand types (nullptr:
/// omitted) and attributes are fixed already (a rule's or record's call): the first
/// range for k = 0, else what nextInput asks for operand k after operands 0..k-1. When
/// the spec cannot say (no nextInput, a constant operand, a sampler refusing the call):
/// `dtype`'s default range, integers kept non-zero (an engine fails on an integer division
/// by zero, and the call does not say which operand divides).
ValueRange operandRangeOf(const OpSpec& spec, size_t k, const std::vector<const TensorType*>& types,
                          const Attributes& attrs, const Limits& limits);

}  // namespace nnfuzz
