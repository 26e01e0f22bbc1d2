// registry.h - the list of operators nnfuzz knows, in the order of ops.def.
//
// The order is the sorted ops.def, never link or static-initialisation order, so a seed
// replays the same way on every build.
#pragma once

#include <span>
#include <string_view>

#include "ir/graph.h"
#include "ops/op_spec.h"

namespace nnfuzz {

std::span<const OpSpec* const> allOps();
/// The spec of an ONNX op type, or nullptr if nnfuzz does not know it.
const OpSpec* findOp(std::string_view name);
/// A node's spec: nullptr for an operator of another domain (nnfuzz's specs are all of the
/// default one) or an unknown one. A node without a spec is *opaque*: no reference kernel.
const OpSpec* findOp(const Node& node);
/// True for a node of another domain: the verifier takes its result types as given.
inline bool isOpaque(const Node& node) { return !node.domain.empty(); }

/// True when a model at `opset` may hold the op as nnfuzz implements it. Until generation
/// emits each operator's form per opset (issue 11), the generator draws every operator in
/// its opset-17 form and operators added after 17 only from their own version on; this is
/// the one place that says so (configs and the operator corpus tier ask it).
inline bool drawableAt(const OpSpec& spec, int opset) { return spec.sinceVersion <= opset; }

}  // namespace nnfuzz
