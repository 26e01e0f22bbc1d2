// infer_node.h - shape inference and validity checks for nodes and whole graphs.
//
// inferNode checks what every operator shares (arity, first-input dtype and rank,
// constant operands being weights) and then asks the operator's own infer. It is the
// validity oracle of the whole tool: the generators, the verifier and import all use it.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ops/op_spec.h"

namespace nnfuzz {

/// Operand types (nullptr = omitted) and constant contents (nullptr = not a weight).
InferResult inferNode(const OpSpec& spec, std::span<const TensorType* const> inputs, std::span<const Tensor* const> constants,
                      const Attributes& attrs);
/// The same for a node already in a graph.
InferResult inferNode(const Graph& graph, NodeId node);

/// Retypes node `id`'s bodies for the current types of its operands and captures: formal
/// inputs and outer parameters take them, then every body node's results are inferred
/// again (nested bodies first). The error of the first body node inference rejects.
std::optional<std::string> retypeBodies(Graph& graph, NodeId id);

/// Structure plus, for every node, a known op whose shape inference accepts it and
/// agrees with the recorded result types; an opaque node (another domain) is taken as it is. Returns the first problem, or nullopt.
std::optional<std::string> verifyGraph(const Graph& graph);

}  // namespace nnfuzz
