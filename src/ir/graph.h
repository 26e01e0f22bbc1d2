// graph.h - GraphIR: an SSA graph of ONNX-style operations over statically shaped tensors.
//
// Values and nodes have dense ids. Every value is a runtime input, a weight (an
// initializer, with its contents) or the result of a node; any of them may feed any
// operand. Each value keeps its use list, so replaceAllUses and removal cost O(uses).
// The node order is always topological: nodes are appended after their operands exist
// and inserted only before their first user. This file knows nothing about operators;
// op-level checks (types agree with shape inference) live in ops/verify.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/attributes.h"
#include "ir/tensor.h"

namespace nnfuzz {

using ValueId = uint32_t;
using NodeId = uint32_t;
inline constexpr ValueId kNoValue = UINT32_MAX;  ///< An omitted optional operand.
inline constexpr NodeId kNoNode = UINT32_MAX;

enum class ValueKind : uint8_t { Input, Weight, Result };

struct Use {
  NodeId node;
  uint32_t operand;
  bool operator==(const Use&) const = default;
};

struct Value {
  TensorType type;
  ValueKind kind = ValueKind::Result;
  NodeId producer = kNoNode;  ///< For results.
  uint32_t resultIndex = 0;   ///< For results: which output of the producer.
  std::optional<Tensor> data;  ///< For weights: the contents.
  std::vector<Use> uses;
  bool alive = true;
};

struct Node {
  std::string op;  ///< ONNX op type, e.g. "Conv".
  Attributes attrs;
  std::vector<ValueId> inputs;   ///< kNoValue for an omitted optional input.
  std::vector<ValueId> outputs;
  bool alive = true;
};

class Graph {
 public:
  ValueId addInput(TensorType type);
  ValueId addWeight(Tensor data);
  /// Appends a node after all existing ones; its operands must already exist.
  NodeId addNode(std::string op, std::vector<ValueId> inputs, Attributes attrs,
                 const std::vector<TensorType>& outputTypes);
  /// Inserts a node just before `before` in the order (its operands must come earlier).
  NodeId insertNode(NodeId before, std::string op, std::vector<ValueId> inputs, Attributes attrs,
                    const std::vector<TensorType>& outputTypes);
  void addOutput(ValueId value) { outputs_.push_back(value); }
  void setOutputs(std::vector<ValueId> outputs) { outputs_ = std::move(outputs); }

  /// Points every use of `from` (operands and graph outputs) at `to`.
  void replaceAllUses(ValueId from, ValueId to);
  /// Sets operand `operand` of `node` to `value` (kNoValue to omit it), keeping use lists right.
  void setOperand(NodeId node, uint32_t operand, ValueId value);
  /// Removes a node whose results are unused.
  void removeNode(NodeId node);
  /// Removes nodes, inputs and weights that do not contribute to an output; returns how many.
  size_t removeUnused();

  const Value& value(ValueId id) const { return values_[id]; }
  Value& value(ValueId id) { return values_[id]; }
  const Node& node(NodeId id) const { return nodes_[id]; }
  Node& node(NodeId id) { return nodes_[id]; }
  size_t valueCapacity() const { return values_.size(); }
  size_t nodeCapacity() const { return nodes_.size(); }

  /// Live nodes in topological order.
  std::vector<NodeId> nodes() const;
  size_t numNodes() const;
  /// Live runtime inputs and weights, in creation order.
  std::vector<ValueId> params() const;
  std::vector<ValueId> inputs() const;   ///< Runtime inputs only.
  std::vector<ValueId> weights() const;  ///< Weights only.
  const std::vector<ValueId>& outputs() const { return outputs_; }
  /// The raw order list, which may name removed nodes (for the verifier).
  const std::vector<NodeId>& order() const { return order_; }
  const std::vector<ValueId>& paramList() const { return params_; }

 private:
  ValueId newValue(Value v);
  NodeId makeNode(std::string op, std::vector<ValueId> inputs, Attributes attrs,
                  const std::vector<TensorType>& outputTypes);

  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<NodeId> order_;
  std::vector<ValueId> params_;
  std::vector<ValueId> outputs_;
};

/// Structural checks: operands defined before use, use lists exact, outputs live, weights
/// hold data of their type. Returns the first problem found, or nullopt.
std::optional<std::string> verifyStructure(const Graph& graph);

/// The text form (see text.cpp for the grammar); print(parse(t)) == t for printed text.
std::string printGraph(const Graph& graph);
/// Parses the text form; throws nnfuzz::Error with a line number on bad text.
Graph parseGraph(std::string_view text);

}  // namespace nnfuzz
