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

/// Supplies existing values for reuse.
class OperandSource {
 public:
  virtual ~OperandSource() = default;
  /// A random existing value whose type passes `accepts` and whose contents lie in the
  /// range `rangeOf(type)` gives, or kNoValue if there is none.
  virtual ValueId pickExisting(const std::function<bool(const TensorType&)>& accepts,
                               const std::function<ValueRange(const TensorType&)>& rangeOf) = 0;
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

}  // namespace nnfuzz
