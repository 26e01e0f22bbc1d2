// exactness.h - whether a reference result is exactly what a SUT computes.
//
// The reference evaluates in double and rounds once; a SUT evaluates in the operand's dtype,
// in its own order, maybe with fused multiply-adds. Most results therefore differ by a few
// ulps, which is harmless, except where a discontinuous operator (Sign, Cast to int, Less,
// Mod, ...) meets a value that sits exactly on its jump: a CumSum that is 0 in double may
// be 1e-8 in float32. Stability checks trust such a value only when it is exact, and a
// result is exact when every float operand is exact and the operator:
//   - moves or selects elements (Reshape, Gather, Max, Relu, Where, ...), or
//   - sits behind its own discontinuity check (Floor, Ceil, Round, Sign: integral results), or
//   - adds, subtracts or multiplies integer-valued elements whose magnitudes stay where the
//     dtype holds every integer (2^24 for float32), so any order of evaluation is exact.
// Integer and bool results are always exact. Everything else is inexact: sound, if blunt.
#pragma once

#include <span>

#include "ir/tensor.h"
#include "ops/op_spec.h"

namespace nnfuzz {

bool exactResult(const OpSpec& spec, std::span<const Tensor* const> inputs, const Tensor& result);

/// True when no operand is inexact (omitted ones count as exact).
bool allExact(std::span<const Tensor* const> inputs);

/// True when some operand is noisy (see Tensor::noisy).
bool anyNoisy(std::span<const Tensor* const> inputs);

/// The stability verdict of a call whose results are computed: its operator's check, and
/// for an operator that has one, any noisy operand (its margins assume a few ulps of error).
bool unstableCall(const OpSpec& spec, const KernelArgs& call);

}  // namespace nnfuzz
