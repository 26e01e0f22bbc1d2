// reduce_bodies.cpp - reduction passes for operators with bodies (see reduce_pass.h).
//
// inline-if: an If whose cond the reference knows becomes the branch it takes: the branch's
// nodes go in before the If (its outer parameters read the If's captures, its weights become
// weights of the case) and the If's readers read the branch's outputs. Instance k is the
// k-th If in node order.
//
// bypass-in-body: a body node whose result has the type of one of its operands is dropped,
// its readers in the body reading that operand instead (the case's nodes-in-bodies count
// goes down by one). Instance k is the k-th (node, body, body node, operand) candidate, for
// the bodies of the case's own nodes (nested bodies are reduced once they are inlined or
// their owner is). Captures no body reads any more are dropped from the owner.
#include <algorithm>
#include <unordered_map>

#include "triage/reduce_pass.h"

namespace nnfuzz {

namespace {

// Sets node `id`'s graph attributes to `attrs`, with the captures no body reads dropped
// and the remaining ones renumbered in every body.
void setBodiesPruned(Graph& g, NodeId id, Attributes attrs) {
  const std::vector<ValueId> old = g.node(id).captures;
  std::vector<bool> read(old.size(), false);
  for (const auto& [name, value] : attrs)
    if (const auto* body = std::get_if<GraphAttr>(&value))
      for (ValueId p : body->graph().paramList())
        if (body->graph().value(p).kind == ValueKind::Outer) read[body->graph().value(p).capture] = true;
  std::vector<uint32_t> renumber(old.size(), 0);
  std::vector<ValueId> captures;
  for (size_t k = 0; k < old.size(); ++k)
    if (read[k]) {
      renumber[k] = static_cast<uint32_t>(captures.size());
      captures.push_back(old[k]);
    }
  Attributes out = attrs;
  for (const auto& [name, value] : attrs) {
    const auto* body = std::get_if<GraphAttr>(&value);
    if (!body) continue;
    Graph copy = body->graph();
    for (ValueId p : copy.paramList())
      if (copy.value(p).kind == ValueKind::Outer) copy.value(p).capture = renumber[copy.value(p).capture];
    out.setGraph(name, GraphAttr(std::move(copy)));
  }
  g.setBodies(id, std::move(out), std::move(captures));
}

class InlineIf final : public EditListPass<NodeId> {
 public:
  std::string_view name() const override { return "inline-if"; }

 protected:
  std::vector<NodeId> edits(const Graph& g) const override {
    std::vector<NodeId> out;
    for (NodeId id : g.nodes())
      if (g.node(id).op == "If") out.push_back(id);
    return out;
  }
  bool apply(SubCase& c, const std::vector<Tensor>& values, const NodeId& id) const override {
    Graph& g = c.graph;
    const Node& n = g.node(id);
    const ValueId cond = n.inputs.empty() ? kNoValue : n.inputs[0];
    if (cond == kNoValue || cond >= values.size() || values[cond].data.empty()) return false;
    const std::string taken = values[cond].data[0] != 0 ? "then_branch" : "else_branch";
    if (!n.attrs.getGraph(taken)) return false;
    // A copy of the attribute keeps the branch alive while the node list grows below.
    const GraphAttr held = std::get<GraphAttr>(std::find_if(n.attrs.begin(), n.attrs.end(), [&](const auto& a) {
                                                  return a.first == taken;
                                                })->second);
    const Graph* branch = &held.graph();
    const std::vector<ValueId> captures = n.captures;
    const std::vector<ValueId> results = n.outputs;
    std::unordered_map<ValueId, ValueId> mapped;
    for (ValueId p : branch->paramList()) {
      const Value& v = branch->value(p);
      if (v.kind == ValueKind::Outer) mapped[p] = captures.at(v.capture);
      else if (v.kind == ValueKind::Weight) mapped[p] = g.addWeight(*v.data);
      else return false;  // an If branch has no formal inputs
    }
    auto map = [&](ValueId v) { return v == kNoValue ? kNoValue : mapped.at(v); };
    for (NodeId inner : branch->nodes()) {
      const Node& b = branch->node(inner);
      std::vector<ValueId> inputs, innerCaptures;
      for (ValueId v : b.inputs) inputs.push_back(map(v));
      for (ValueId v : b.captures) innerCaptures.push_back(map(v));
      std::vector<TensorType> types;
      for (ValueId v : b.outputs) types.push_back(branch->value(v).type);
      const NodeId made = g.insertNode(id, b.op, std::move(inputs), b.attrs, types, std::move(innerCaptures));
      for (size_t k = 0; k < b.outputs.size(); ++k) mapped[b.outputs[k]] = g.node(made).outputs[k];
    }
    for (size_t k = 0; k < results.size(); ++k) g.replaceAllUses(results[k], map(branch->outputs().at(k)));
    g.removeNode(id);
    return true;
  }
};

struct BodyEdit {
  NodeId node;
  std::string body;
  NodeId inner;
  uint32_t operand;
};

class BypassInBody final : public EditListPass<BodyEdit> {
 public:
  std::string_view name() const override { return "bypass-in-body"; }

 protected:
  std::vector<BodyEdit> edits(const Graph& g) const override {
    std::vector<BodyEdit> out;
    for (NodeId id : g.nodes())
      for (const auto& [name, value] : g.node(id).attrs) {
        const auto* body = std::get_if<GraphAttr>(&value);
        if (!body) continue;
        const Graph& b = body->graph();
        for (NodeId inner : b.nodes()) {
          const Node& n = b.node(inner);
          if (n.outputs.size() != 1) continue;
          for (uint32_t k = 0; k < n.inputs.size(); ++k)
            if (n.inputs[k] != kNoValue && b.value(n.inputs[k]).type == b.value(n.outputs[0]).type)
              out.push_back({id, name, inner, k});
        }
      }
    return out;
  }
  bool apply(SubCase& c, const std::vector<Tensor>&, const BodyEdit& e) const override {
    Graph& g = c.graph;
    const Graph* body = g.node(e.node).attrs.getGraph(e.body);
    if (!body) return false;
    Graph copy = *body;
    const Node& n = copy.node(e.inner);
    copy.replaceAllUses(n.outputs[0], n.inputs[e.operand]);
    copy.removeUnused();
    Attributes attrs = g.node(e.node).attrs;
    attrs.setGraph(e.body, GraphAttr(std::move(copy)));
    setBodiesPruned(g, e.node, std::move(attrs));
    return true;
  }
};

}  // namespace

std::unique_ptr<ReducePass> makeInlineIfPass() { return std::make_unique<InlineIf>(); }
std::unique_ptr<ReducePass> makeBypassInBodyPass() { return std::make_unique<BypassInBody>(); }

}  // namespace nnfuzz
