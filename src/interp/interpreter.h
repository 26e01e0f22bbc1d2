// interpreter.h - the reference: runs GraphIR with the operators' reference kernels.
//
// Kernels accumulate in double; each result is rounded once to its dtype, as a SUT
// computing in that dtype would store it. The interpreter trusts that the graph verifies.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "ops/op_spec.h"

namespace nnfuzz {

/// Runs one operator on concrete operands (nullptr = omitted) and rounds the results.
/// `captures` are the contents of the node's captures (Node::captures), which its bodies
/// read through their outer parameters.
std::vector<Tensor> evalOp(const OpSpec& spec, const std::vector<const Tensor*>& inputs, const Attributes& attrs,
                           const std::vector<TensorType>& outputTypes,
                           const std::vector<const Tensor*>& captures = {});

/// The runner evalOp hands kernels of operators with bodies: runs a body with its outer
/// parameters bound to `captures` (which must outlive the runner).
BodyRunner bodyRunner(const std::vector<const Tensor*>& captures);

/// Runs a body graph: formal inputs in order, outer parameters bound to `captures`.
/// Returns a tensor per value id of the body, like runGraphAll.
std::vector<Tensor> runBodyAll(const Graph& body, const std::vector<const Tensor*>& formals,
                               const std::vector<const Tensor*>& captures);

/// Elementary steps the reference kernels would take on `graph`, estimated from its types
/// (an upper bound up to a small factor; generated models need well under a million).
/// A body counts once per run: If its larger branch, Loop M times (M a weight; else
/// kMaxLoopEstimate times), Scan once per step.
double estimateWork(const Graph& graph);

/// The reference refuses a graph whose estimateWork exceeds this (minutes of CPU), with a
/// one-line Error, instead of running for hours on a model read from outside.
inline constexpr double kWorkBudget = 2e9;

/// Runs a whole graph. `inputs` holds one tensor per runtime input, in graph.inputs()
/// order. Returns a tensor per value id (empty for values not computed). An opaque node
/// (no spec, ops/registry.h) has no kernel: its results and every value computed from
/// them are zeros of their type, which unreferencedValues names.
std::vector<Tensor> runGraphAll(const Graph& graph, const std::vector<Tensor>& inputs, double workBudget = kWorkBudget);
/// The graph outputs only, in order.
std::vector<Tensor> runGraph(const Graph& graph, const std::vector<Tensor>& inputs, double workBudget = kWorkBudget);

/// Per value id: true when it depends on an opaque node, so the reference has no value for it.
std::vector<bool> unreferencedValues(const Graph& graph);
/// The graph outputs (indices) that depend on an opaque node.
std::vector<size_t> unreferencedOutputs(const Graph& graph);

/// True when every element is finite and |x| <= limit.
bool allFinite(const Tensor& t, double limit = 1e30);

}  // namespace nnfuzz
