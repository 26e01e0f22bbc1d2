#include "ir/graph.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace nnfuzz {

GraphAttr::GraphAttr(Graph body) {
  body.markBody();
  graph_ = std::make_shared<const Graph>(std::move(body));
}

bool GraphAttr::operator==(const GraphAttr& other) const {
  return graph_ == other.graph_ || printGraph(*graph_) == printGraph(*other.graph_);
}

ValueId Graph::newValue(Value v) {
  values_.push_back(std::move(v));
  return static_cast<ValueId>(values_.size() - 1);
}

ValueId Graph::addInput(TensorType type) {
  Value v;
  v.type = std::move(type);
  v.kind = ValueKind::Input;
  const ValueId id = newValue(std::move(v));
  params_.push_back(id);
  return id;
}

ValueId Graph::addWeight(Tensor data) {
  Value v;
  v.type = data.type;
  v.kind = ValueKind::Weight;
  v.data = std::move(data);
  const ValueId id = newValue(std::move(v));
  params_.push_back(id);
  return id;
}

ValueId Graph::addOuter(TensorType type, uint32_t capture) {
  Value v;
  v.type = std::move(type);
  v.kind = ValueKind::Outer;
  v.capture = capture;
  const ValueId id = newValue(std::move(v));
  params_.push_back(id);
  return id;
}

NodeId Graph::makeNode(std::string op, std::vector<ValueId> inputs, Attributes attrs,
                       const std::vector<TensorType>& outputTypes, std::vector<ValueId> captures) {
  const auto id = static_cast<NodeId>(nodes_.size());
  Node node;
  node.op = std::move(op);
  node.attrs = std::move(attrs);
  node.inputs = std::move(inputs);
  node.captures = std::move(captures);
  for (uint32_t i = 0; i < node.inputs.size(); ++i)
    if (node.inputs[i] != kNoValue) values_[node.inputs[i]].uses.push_back({id, i});
  for (uint32_t k = 0; k < node.captures.size(); ++k) values_[node.captures[k]].uses.push_back({id, kCaptureOperand | k});
  for (uint32_t i = 0; i < outputTypes.size(); ++i) {
    Value v;
    v.type = outputTypes[i];
    v.producer = id;
    v.resultIndex = i;
    node.outputs.push_back(newValue(std::move(v)));
  }
  nodes_.push_back(std::move(node));
  return id;
}

NodeId Graph::addNode(std::string op, std::vector<ValueId> inputs, Attributes attrs,
                      const std::vector<TensorType>& outputTypes, std::vector<ValueId> captures) {
  const NodeId id = makeNode(std::move(op), std::move(inputs), std::move(attrs), outputTypes, std::move(captures));
  order_.push_back(id);
  return id;
}

NodeId Graph::insertNode(NodeId before, std::string op, std::vector<ValueId> inputs,
                         Attributes attrs, const std::vector<TensorType>& outputTypes,
                         std::vector<ValueId> captures) {
  const NodeId id = makeNode(std::move(op), std::move(inputs), std::move(attrs), outputTypes, std::move(captures));
  auto pos = std::find(order_.begin(), order_.end(), before);
  order_.insert(pos, id);
  return id;
}

void Graph::setOperand(NodeId nodeId, uint32_t operand, ValueId value) {
  Node& n = nodes_[nodeId];
  if (operand & kCaptureOperand) {
    assert(value != kNoValue && "setOperand: a capture cannot be omitted");
    ValueId& slot = n.captures[operand & ~kCaptureOperand];
    auto& uses = values_[slot].uses;
    uses.erase(std::find(uses.begin(), uses.end(), Use{nodeId, operand}));
    slot = value;
    values_[value].uses.push_back({nodeId, operand});
    return;
  }
  const ValueId old = n.inputs[operand];
  if (old != kNoValue) {
    auto& uses = values_[old].uses;
    uses.erase(std::find(uses.begin(), uses.end(), Use{nodeId, operand}));
  }
  n.inputs[operand] = value;
  if (value != kNoValue) values_[value].uses.push_back({nodeId, operand});
}

void Graph::setBodies(NodeId nodeId, Attributes attrs, std::vector<ValueId> captures) {
  Node& n = nodes_[nodeId];
  for (uint32_t k = 0; k < n.captures.size(); ++k) {
    auto& uses = values_[n.captures[k]].uses;
    uses.erase(std::find(uses.begin(), uses.end(), Use{nodeId, kCaptureOperand | k}));
  }
  n.attrs = std::move(attrs);
  n.captures = std::move(captures);
  for (uint32_t k = 0; k < n.captures.size(); ++k) values_[n.captures[k]].uses.push_back({nodeId, kCaptureOperand | k});
}

void Graph::replaceAllUses(ValueId from, ValueId to) {
  if (from == to) return;
  const SmallVector<Use, 2> uses = values_[from].uses;
  for (const Use& use : uses) setOperand(use.node, use.operand, to);
  std::replace(outputs_.begin(), outputs_.end(), from, to);
}

void Graph::removeNode(NodeId nodeId) {
  Node& n = nodes_[nodeId];
  for (ValueId out : n.outputs) {
    assert(values_[out].uses.empty() && "removeNode: result still used");
    values_[out].alive = false;
  }
  for (uint32_t i = 0; i < n.inputs.size(); ++i) setOperand(nodeId, i, kNoValue);
  dropCaptures(nodeId);
  n.alive = false;
  order_.erase(std::find(order_.begin(), order_.end(), nodeId));
}

size_t Graph::removeUnused() {
  std::vector<bool> needed(values_.size(), false);
  for (ValueId v : outputs_) needed[v] = true;
  size_t removed = 0;
  // Walk backwards: a node is needed if any of its results is.
  for (size_t k = order_.size(); k-- > 0;) {
    const NodeId id = order_[k];
    const Node& n = nodes_[id];
    const bool used = std::any_of(n.outputs.begin(), n.outputs.end(), [&](ValueId v) { return needed[v]; });
    if (used) {
      for (ValueId in : n.inputs)
        if (in != kNoValue) needed[in] = true;
      for (ValueId c : n.captures) needed[c] = true;
      continue;
    }
    for (ValueId out : n.outputs) values_[out].uses.clear();  // users are dead too
    for (uint32_t i = 0; i < n.inputs.size(); ++i) setOperand(id, i, kNoValue);
    dropCaptures(id);
    for (ValueId out : n.outputs) values_[out].alive = false;
    nodes_[id].alive = false;
    order_.erase(order_.begin() + static_cast<std::ptrdiff_t>(k));
    ++removed;
  }
  auto stale = std::remove_if(params_.begin(), params_.end(), [&](ValueId v) {
    if (needed[v] || (body_ && values_[v].kind == ValueKind::Input)) return false;
    values_[v].alive = false;
    values_[v].uses.clear();
    return true;
  });
  removed += static_cast<size_t>(params_.end() - stale);
  params_.erase(stale, params_.end());
  return removed;
}

void Graph::dropCaptures(NodeId nodeId) {
  Node& n = nodes_[nodeId];
  for (uint32_t k = 0; k < n.captures.size(); ++k) {
    auto& uses = values_[n.captures[k]].uses;
    auto it = std::find(uses.begin(), uses.end(), Use{nodeId, kCaptureOperand | k});
    if (it != uses.end()) uses.erase(it);
  }
  n.captures.clear();
}

std::vector<ValueId> outerParams(const Graph& body, size_t captures) {
  std::vector<ValueId> out(captures, kNoValue);
  for (ValueId p : body.paramList())
    if (body.value(p).kind == ValueKind::Outer && body.value(p).capture < captures) out[body.value(p).capture] = p;
  return out;
}

bool containsOp(const Graph& graph, std::string_view op) {
  bool found = false;
  forEachNodeDeep(graph, [&](const Node& n, const Graph&) { found = found || n.op == op; });
  return found;
}

size_t countNodesDeep(const Graph& graph) {
  size_t n = 0;
  forEachNodeDeep(graph, [&](const Node&, const Graph&) { ++n; });
  return n;
}

std::string qualifiedOp(const Node& node) { return node.domain.empty() ? node.op : node.domain + "." + node.op; }

std::vector<std::string> domainsUsed(const Graph& graph) {
  std::vector<std::string> out;
  forEachNodeDeep(graph, [&](const Node& n, const Graph&) {
    if (!n.domain.empty() && std::find(out.begin(), out.end(), n.domain) == out.end()) out.push_back(n.domain);
  });
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<NodeId> Graph::nodes() const { return order_; }
size_t Graph::numNodes() const { return order_.size(); }

std::vector<ValueId> Graph::params() const { return params_; }

std::vector<ValueId> Graph::inputs() const {
  std::vector<ValueId> out;
  for (ValueId v : params_)
    if (values_[v].kind == ValueKind::Input) out.push_back(v);
  return out;
}

std::vector<ValueId> Graph::weights() const {
  std::vector<ValueId> out;
  for (ValueId v : params_)
    if (values_[v].kind == ValueKind::Weight) out.push_back(v);
  return out;
}

}  // namespace nnfuzz
