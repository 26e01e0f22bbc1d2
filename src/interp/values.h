// values.h - concrete values for fresh inputs and weights.
#pragma once

#include "ir/tensor.h"
#include "ops/op_spec.h"
#include "support/rng.h"

namespace nnfuzz {

/// A tensor of `type` with elements drawn uniformly from `range` (integers for integer
/// dtypes), honouring range.minMagnitude, rounded to the dtype.
Tensor sampleTensor(const TensorType& type, const ValueRange& range, Rng& rng);

/// True when every element lies in `range` (and is at least range.minMagnitude in size).
bool inRange(const Tensor& t, const ValueRange& range);

}  // namespace nnfuzz
