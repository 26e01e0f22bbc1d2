// graph.h - GraphIR: an SSA graph of ONNX-style operations over statically shaped tensors.
//
// Values and nodes have dense ids. Every value is a runtime input, a weight (an
// initializer, with its contents) or the result of a node; any of them may feed any
// operand. Each value keeps its use list, so replaceAllUses and removal cost O(uses).
// The node order is always topological: nodes are appended after their operands exist
// and inserted only before their first user. This file knows nothing about operators;
// op-level checks (types agree with shape inference) live in ops/verify.h.
//
// Subgraphs. A node's graph attributes (attributes.h, GraphAttr) hold body graphs with
// their own value ids. A body reads outer-scope values through *outer* parameters
// (ValueKind::Outer): outer parameter with capture index k stands for the owning node's
// captures[k], a value of the enclosing graph. The node's captures are registered in the
// enclosing graph's use lists as Use{node, kCaptureOperand | k}, so replaceAllUses,
// removal and removeUnused in the enclosing graph see every use a body makes, at O(uses),
// without touching the (immutable, shared) bodies. A body's formal parameters are its
// runtime inputs, in order; nested bodies capture through every level in between.
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
/// The opset whose operator forms GraphIR nodes hold (and the default target opset).
inline constexpr int kCanonicalOpset = 17;

/// Outer: a body's stand-in for a value of the enclosing graph (see above).
enum class ValueKind : uint8_t { Input, Weight, Result, Outer };

/// The bit that marks a Use as a node's capture k (operand == kCaptureOperand | k).
inline constexpr uint32_t kCaptureOperand = 1u << 31;

struct Use {
  NodeId node;
  uint32_t operand;  ///< an operand index, or kCaptureOperand | capture index
  bool isCapture() const { return (operand & kCaptureOperand) != 0; }
  uint32_t capture() const { return operand & ~kCaptureOperand; }
  bool operator==(const Use&) const = default;
};

struct Value {
  TensorType type;
  ValueKind kind = ValueKind::Result;
  NodeId producer = kNoNode;  ///< For results.
  uint32_t resultIndex = 0;   ///< For results: which output of the producer.
  uint32_t capture = 0;       ///< For outer parameters: the owning node's capture index.
  std::optional<Tensor> data;  ///< For weights: the contents.
  SmallVector<Use, 2> uses;  ///< inline: most values have one or two readers
  bool alive = true;
};

struct Node {
  std::string op;      ///< ONNX op type, e.g. "Conv".
  std::string domain;  ///< the operator set: "" is ONNX's default (ai.onnx), e.g. "com.microsoft"
  Attributes attrs;
  std::vector<ValueId> inputs;   ///< kNoValue for an omitted optional input.
  std::vector<ValueId> outputs;
  /// Enclosing-graph values the node's bodies read (their outer parameters' captures).
  std::vector<ValueId> captures;
  bool alive = true;
};

class Graph {
 public:
  ValueId addInput(TensorType type);
  ValueId addWeight(Tensor data);
  /// In a body: a parameter standing for the owning node's captures[capture].
  ValueId addOuter(TensorType type, uint32_t capture);
  /// Appends a node after all existing ones; its operands and captures must already exist.
  NodeId addNode(std::string op, std::vector<ValueId> inputs, Attributes attrs,
                 const std::vector<TensorType>& outputTypes, std::vector<ValueId> captures = {});
  /// Inserts a node just before `before` in the order (its operands must come earlier).
  NodeId insertNode(NodeId before, std::string op, std::vector<ValueId> inputs, Attributes attrs,
                    const std::vector<TensorType>& outputTypes, std::vector<ValueId> captures = {});
  void addOutput(ValueId value) { outputs_.push_back(value); }
  void setOutputs(std::vector<ValueId> outputs) { outputs_ = std::move(outputs); }

  /// Points every use of `from` (operands and graph outputs) at `to`.
  void replaceAllUses(ValueId from, ValueId to);
  /// Sets operand `operand` of `node` to `value` (kNoValue to omit it), keeping use lists
  /// right; `operand` may be kCaptureOperand | k (then `value` must not be kNoValue).
  void setOperand(NodeId node, uint32_t operand, ValueId value);
  /// Replaces a node's attribute (a body, typically) and its captures together.
  void setBodies(NodeId node, Attributes attrs, std::vector<ValueId> captures);
  /// Removes a node whose results are unused.
  void removeNode(NodeId node);
  /// Removes nodes, inputs and weights that do not contribute to an output; returns how many.
  /// A body keeps its formal inputs (they are its signature) and drops unread outer
  /// parameters (their captures stay listed on the owning node until setBodies).
  size_t removeUnused();

  /// The ONNX opset the graph targets (export writes each node in that opset's form; the
  /// nodes themselves always hold the canonical, opset-17 form: ops/version_forms.h).
  int opset() const { return opset_; }
  void setOpset(int opset) { opset_ = opset; }

  /// True for a graph held in a GraphAttr.
  bool isBody() const { return body_; }
  void markBody() { body_ = true; }

  const Value& value(ValueId id) const { return values_[id]; }
  Value& value(ValueId id) { return values_[id]; }
  const Node& node(NodeId id) const { return nodes_[id]; }
  Node& node(NodeId id) { return nodes_[id]; }
  size_t valueCapacity() const { return values_.size(); }
  size_t nodeCapacity() const { return nodes_.size(); }
  /// Room for this many nodes and values, so that a generator growing the graph moves none.
  void reserve(size_t nodes, size_t values) {
    nodes_.reserve(nodes);
    values_.reserve(values);
  }

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
                  const std::vector<TensorType>& outputTypes, std::vector<ValueId> captures);
  void dropCaptures(NodeId node);

  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<NodeId> order_;
  std::vector<ValueId> params_;
  std::vector<ValueId> outputs_;
  bool body_ = false;
  int opset_ = kCanonicalOpset;
};

/// "Conv", or "com.microsoft.FusedMatMul" for an operator outside the default domain.
std::string qualifiedOp(const Node& node);
/// Every non-default domain the graph's nodes (bodies included) use, sorted.
std::vector<std::string> domainsUsed(const Graph& graph);

/// Outer parameters of a body, by capture index (kNoValue where the body reads none).
std::vector<ValueId> outerParams(const Graph& body, size_t captures);
/// Nodes of `graph` and, recursively, of every body, for counting operators.
size_t countNodesDeep(const Graph& graph);
/// Calls fn(node, graph) for every live node of `graph` and its bodies, outer first.
template <typename Fn>
void forEachNodeDeep(const Graph& graph, Fn&& fn);
/// True when `graph` or any body in it has a node of `op`.
bool containsOp(const Graph& graph, std::string_view op);

/// Structural checks: operands defined before use, use lists exact, outputs live, weights
/// hold data of their type; captures like operands, and every body recursively (its
/// outer parameters name a capture of the owning node, of the same type).
/// Returns the first problem found, or nullopt.
std::optional<std::string> verifyStructure(const Graph& graph);

/// The text form (see text.cpp for the grammar); print(parse(t)) == t for printed text.
/// A graph targeting another opset than kCanonicalOpset starts with a line "opset N".
std::string printGraph(const Graph& graph);
/// Parses the text form; throws nnfuzz::Error with a line number on bad text.
Graph parseGraph(std::string_view text);

template <typename Fn>
void forEachNodeDeep(const Graph& graph, Fn&& fn) {
  for (NodeId id : graph.order()) {
    const Node& n = graph.node(id);
    fn(n, graph);
    for (const auto& [name, value] : n.attrs)
      if (const auto* body = std::get_if<GraphAttr>(&value)) forEachNodeDeep(body->graph(), fn);
  }
}

}  // namespace nnfuzz
