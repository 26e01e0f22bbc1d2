// reduce_variant.h - what every reduction pass leans on: turning an edited graph back into a
// self-contained case, and measuring cases so the scheduler can insist on progress.
//
// A pass edits a case freely (shapes of inputs and weights, attributes, operands, outputs)
// and leaves the result types stale. settleVariant re-infers every node's result types with
// the op specs, checks the graph, re-runs the reference and refuses a variant whose values
// are not finite (before rounding, so an integer division by zero is caught too) or that an
// operator calls unstable: such a variant has no trustworthy expectation. It never repairs.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "triage/reduce.h"

namespace nnfuzz {

/// A settled variant: the case and the reference contents of every value id of its graph.
struct SettledCase {
  SubCase sub;
  std::vector<Tensor> values;
};

/// Re-infers result types, drops what no output needs, re-runs the reference; nullopt when
/// the variant is invalid, non-finite or unstable. `sub.inputs` must follow graph.inputs().
std::optional<SettledCase> settleVariant(SubCase sub);

/// FNV-1a over the text form and the runtime inputs' contents: equal cases hash equal.
uint64_t caseHash(const SubCase& sub);

/// How big a case is, compared lexicographically: operators (bodies' included), runtime inputs, outputs, tensor
/// elements, ranks, attributes, dtype bytes, then how plain the input and weight values are
/// (0 < 1 < other small integers < anything else). Every kept change must lower it, so a
/// reduction always ends.
using CaseCost = std::tuple<size_t, size_t, size_t, int64_t, int64_t, size_t, int64_t, int64_t>;
CaseCost caseCost(const SubCase& sub);

/// The leading corner of `t` with shape `shape` (each dim <= t's).
Tensor cornerOf(const Tensor& t, const Shape& shape);
/// `t` converted to `dtype` (values rounded as a Cast would).
Tensor castTensor(const Tensor& t, DType dtype);

/// Inputs and weights that no operator reads as a shape argument (axes, pads, a shape): the
/// ones whose dims, dtype and contents are data, which passes may change.
std::vector<ValueId> dataParams(const Graph& graph);

/// The tensor behind parameter `v` of `sub`: a weight's contents or the runtime input's data.
Tensor& paramData(SubCase& sub, ValueId v);
/// Replaces parameter `v`'s type and contents together.
void setParam(SubCase& sub, ValueId v, Tensor data);

}  // namespace nnfuzz
