// values.h - concrete values for fresh inputs and weights.
#pragma once

#include "ir/tensor.h"
#include "ops/op_spec.h"
#include "support/rng.h"

namespace nnfuzz {

/// A tensor of `type` with elements drawn uniformly from `range` (integers for integer
/// dtypes), honouring range.minMagnitude, rounded to the dtype.
Tensor sampleTensor(const TensorType& type, const ValueRange& range, Rng& rng);

/// The odds of each kind of fresh tensor (the config's "values"), drawn once per tensor:
///  - narrow: uniform over the operand's range (the only kind before the mixture);
///  - wide: log-uniform magnitudes from 2^-14 of the range's largest up to it, so tiny and
///    (where the operator's range allows) large values both occur;
///  - special: about half the elements 0, -0, +-1, +-0.5 or the range's ends, the rest narrow;
///  - integral: floats rounded to integers, so ties occur where the spec defines the tie-break.
/// Every kind stays inside the operand's range: the operator's domain is never left.
struct ValueMix {
  double narrow = 1, wide = 0, special = 0, integral = 0;
  bool operator==(const ValueMix&) const = default;
};

/// As above, with the tensor's kind drawn from `mix` (no draw at all when it is narrow only).
Tensor sampleTensor(const TensorType& type, const ValueRange& range, Rng& rng, const ValueMix& mix);

/// True when every element lies in `range` (and is at least range.minMagnitude in size).
bool inRange(const Tensor& t, const ValueRange& range);

}  // namespace nnfuzz
