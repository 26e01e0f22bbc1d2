// model_mutations.cpp - shape, parameter and node mutations of a whole model.
#include "gen/model_mutations.h"

#include <algorithm>

#include "gen/eval_builder.h"
#include "interp/interpreter.h"
#include "ops/infer_node.h"
#include "ops/registry.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

using nlohmann::json;

template <typename T>
const T& pickFrom(const std::vector<T>& items, Rng& rng) {
  return items[static_cast<size_t>(rng.uniformInt(0, static_cast<int64_t>(items.size()) - 1))];
}

std::optional<json> mutateInputShape(Graph& g, const Limits& limits, Rng& rng) {
  const std::vector<ValueId> inputs = g.inputs();
  if (inputs.empty()) return std::nullopt;
  const ValueId v = pickFrom(inputs, rng);
  TensorType& type = g.value(v).type;
  if (type.shape.empty() || limits.minDim >= limits.maxDim) return std::nullopt;
  const TensorType before = type;
  int64_t& dim = type.shape[static_cast<size_t>(rng.uniformInt(0, type.rank() - 1))];
  const int64_t next = rng.uniformInt(limits.minDim, limits.maxDim - 1);
  dim = next >= dim ? next + 1 : next;
  return json{{"kind", "tensor_shape"}, {"from", toString(before)}, {"to", toString(type)}};
}

std::optional<json> mutateParameter(Graph& g, const Limits& limits, Rng& rng) {  // the seed's PM
  std::vector<NodeId> candidates;
  for (NodeId id : g.nodes()) {
    const OpSpec* spec = findOp(g.node(id));
    if (spec && spec->sampleAttrs && g.node(id).inputs[0] != kNoValue) candidates.push_back(id);
  }
  if (candidates.empty()) return std::nullopt;
  Node& node = g.node(pickFrom(candidates, rng));
  const OpSpec& spec = *findOp(node);
  OpDraft draft;
  draft.arity = static_cast<int>(node.inputs.size());
  draft.inputTypes = {g.value(node.inputs[0]).type};
  draft.omitted = {false};
  draft.limits = &limits;
  draft.rng = &rng;
  spec.sampleAttrs(draft);
  json record = redrawOneAttribute(node.op, node.attrs, draft.attrs, Attributes(), rng);
  if (record.is_null() || record["from"] == record["to"]) return std::nullopt;
  record["kind"] = "parameter";
  return record;
}

/// True when every result of `n` but the first is optional, unread and no graph output
/// (absent in the model): the node is a one-result node as far as the graph goes.
bool onlyFirstResultUsed(const Graph& g, const Node& n) {
  const OpSpec* spec = findOp(n);
  const auto& outputs = g.outputs();
  for (size_t k = 1; k < n.outputs.size(); ++k)
    if (!spec || !spec->isOptionalOutput(k) || !g.value(n.outputs[k]).uses.empty() ||
        std::find(outputs.begin(), outputs.end(), n.outputs[k]) != outputs.end())
      return false;
  return true;
}

/// Nodes whose first result has their first operand's type (the seed's "block nodes").
std::vector<NodeId> typePreserving(const Graph& g) {
  std::vector<NodeId> out;
  for (NodeId id : g.nodes()) {
    const Node& n = g.node(id);
    if (n.inputs.empty() || n.inputs[0] == kNoValue || !onlyFirstResultUsed(g, n)) continue;
    if (g.value(n.outputs[0]).type == g.value(n.inputs[0]).type) out.push_back(id);
  }
  return out;
}

std::optional<json> duplicateNode(Graph& g, Rng& rng) {
  const std::vector<NodeId> candidates = typePreserving(g);
  if (candidates.empty()) return std::nullopt;
  const NodeId id = pickFrom(candidates, rng);
  const ValueId result = g.node(id).outputs[0];
  const SmallVector<Use, 2> uses = g.value(result).uses;
  std::vector<ValueId> inputs = g.node(id).inputs;
  inputs[0] = result;
  std::vector<TensorType> types;  // the copy's optional further results stay unread (absent)
  for (ValueId v : g.node(id).outputs) types.push_back(g.value(v).type);
  NodeId firstUser = kNoNode;
  for (NodeId n : g.nodes())
    if (std::any_of(uses.begin(), uses.end(), [&](const Use& u) { return u.node == n; })) {
      firstUser = n;
      break;
    }
  const NodeId copy = firstUser == kNoNode ? g.addNode(g.node(id).op, inputs, g.node(id).attrs, types)
                                           : g.insertNode(firstUser, g.node(id).op, inputs, g.node(id).attrs, types);
  g.node(copy).domain = g.node(id).domain;
  const ValueId copied = g.node(copy).outputs[0];
  for (const Use& u : uses) g.setOperand(u.node, u.operand, copied);
  std::vector<ValueId> outputs = g.outputs();
  std::replace(outputs.begin(), outputs.end(), result, copied);
  g.setOutputs(outputs);
  return json{{"kind", "nodes_add"}, {"op", g.node(id).op}};
}

std::optional<json> bypassNode(Graph& g, Rng& rng) {
  std::vector<NodeId> candidates;
  const auto& outputs = g.outputs();
  for (NodeId id : typePreserving(g)) {
    const ValueId result = g.node(id).outputs[0];
    if (std::find(outputs.begin(), outputs.end(), result) == outputs.end()) candidates.push_back(id);
  }
  if (candidates.empty() || g.numNodes() < 2) return std::nullopt;
  const NodeId id = pickFrom(candidates, rng);
  const std::string op = g.node(id).op;
  g.replaceAllUses(g.node(id).outputs[0], g.node(id).inputs[0]);
  g.removeNode(id);
  g.removeUnused();
  return json{{"kind", "nodes_remove"}, {"op", op}};
}

}  // namespace

json redrawOneAttribute(std::string_view op, Attributes& attrs, const Attributes& redrawn, const Attributes& fixed,
                        Rng& rng) {
  std::vector<std::string> names;
  for (const auto& [name, _] : attrs)
    if (!fixed.has(name)) names.push_back(name);
  for (const auto& [name, _] : redrawn)
    if (!attrs.has(name) && !fixed.has(name)) names.push_back(name);
  if (names.empty()) return nullptr;
  const std::string name = pickFrom(names, rng);
  auto text = [&](const Attributes& a) {
    for (const auto& [n, v] : a)
      if (n == name) return attrText(v);
    return std::string("default");
  };
  json record{{"op", std::string(op)}, {"attr", name}, {"from", text(attrs)}, {"to", text(redrawn)}};
  bool found = false;
  for (const auto& [n, v] : redrawn)
    if (n == name) {
      attrs.set(name, v);
      found = true;
    }
  if (!found) attrs.erase(name);
  return record;
}

std::optional<std::string> reinferTypes(Graph& g) {
  for (NodeId id : g.nodes()) {
    if (isOpaque(g.node(id))) return qualifiedOp(g.node(id)) + " has no spec: its result types cannot follow a mutation";
    if (g.node(id).attrs.hasGraphs())
      if (auto problem = retypeBodies(g, id)) return g.node(id).op + ": " + *problem;
    InferResult inferred = inferNode(g, id);
    if (!inferred.ok()) return g.node(id).op + ": " + inferred.error;
    const Node& n = g.node(id);
    if (inferred.types.size() != n.outputs.size()) return g.node(id).op + ": result count changed";
    for (size_t r = 0; r < n.outputs.size(); ++r) {
      if (inferred.types[r].numel() == 0) return g.node(id).op + ": empty result";
      g.value(n.outputs[r]).type = inferred.types[r];
    }
  }
  return std::nullopt;
}

std::optional<json> mutateModel(Graph& g, const Limits& limits, Rng& rng) {
  std::optional<json> done;
  switch (rng.uniformInt(0, 3)) {
    case 0: done = mutateInputShape(g, limits, rng); break;
    case 1: done = mutateParameter(g, limits, rng); break;
    case 2: done = duplicateNode(g, rng); break;
    default: done = bypassNode(g, rng); break;
  }
  if (!done || reinferTypes(g)) return std::nullopt;
  return done;
}

std::optional<std::vector<Tensor>> referenceOutputs(const Graph& g, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> all;
  try {
    all = runGraphAll(g, inputs);
  } catch (const Error&) {
    return std::nullopt;  // e.g. an index the mutation moved out of range
  }
  for (NodeId id : g.nodes()) {
    const Node& n = g.node(id);
    const OpSpec* spec = findOp(n);
    if (!spec) return std::nullopt;
    std::vector<const Tensor*> operands;
    for (ValueId v : n.inputs) operands.push_back(v == kNoValue ? nullptr : &all[v]);
    std::vector<Tensor> results;
    for (ValueId v : n.outputs) results.push_back(all[v]);
    if (!usableResults(*spec, operands, n.attrs, results)) return std::nullopt;
  }
  std::vector<Tensor> outputs;
  for (ValueId v : g.outputs()) outputs.push_back(all[v]);
  return outputs;
}

}  // namespace nnfuzz
