// align.h - the shapes & parameters calculator's helper chains (Luo et al. §III-G): turn a
// value of one type into a value an operand accepts, with helper operators.
//
// A chain always exists: Cast to the target dtype; then, when the shapes differ, Reshape
// (equal element counts) or Reshape to 1-D, Slice or Pad to the target element count and
// Reshape to the target shape; then, when the contents fall outside the operand's value
// range, Clip (or Abs, Add, Clip for ranges that exclude zero or negatives). The target
// type is the value's own type when the operand accepts it, else the value's shape in
// another allowed dtype, else a type the operand's own sampler draws.
#pragma once

#include <optional>

#include "gen/eval_builder.h"
#include "ops/instantiate.h"

namespace nnfuzz {

/// A value `need` accepts made from `value` by helper operators appended through `builder`
/// (`value` itself when it already fits); nullopt when a helper's result is unusable.
std::optional<ValueId> alignValue(EvalBuilder& builder, ValueId value, const OperandNeed& need, const Limits& limits,
                                  Rng& rng);

}  // namespace nnfuzz
