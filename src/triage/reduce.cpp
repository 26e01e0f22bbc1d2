// reduce.cpp - sub-cases and the ddmin search over nodes (see reduce.h).
#include "triage/reduce.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "interp/interpreter.h"
#include "triage/reduce_schedule.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

// A value is constant when it is a weight or every operand of its producer is constant.
std::vector<bool> constantValues(const Graph& graph) {
  std::vector<bool> constant(graph.valueCapacity(), false);
  for (ValueId w : graph.weights()) constant[w] = true;
  for (NodeId id : graph.nodes()) {
    const Node& n = graph.node(id);
    bool all = true;
    for (ValueId v : n.inputs)
      if (v != kNoValue && !constant[v]) all = false;
    for (ValueId v : n.captures)
      if (!constant[v]) all = false;
    for (ValueId out : n.outputs) constant[out] = all;
  }
  return constant;
}

std::vector<NodeId> inOrder(const Graph& graph, const std::vector<NodeId>& nodes) {
  std::set<NodeId> wanted(nodes.begin(), nodes.end());
  std::vector<NodeId> ordered;
  for (NodeId id : graph.nodes())
    if (wanted.count(id)) ordered.push_back(id);
  return ordered;
}

}  // namespace

SubCase extractSubCase(const Graph& graph, const std::vector<Tensor>& values, const std::vector<NodeId>& keep) {
  const std::vector<NodeId> nodes = inOrder(graph, keep);
  if (nodes.empty()) throw Error("a sub-case needs at least one node");
  const std::vector<bool> constant = constantValues(graph);
  std::set<NodeId> kept(nodes.begin(), nodes.end());
  SubCase sub;
  std::unordered_map<ValueId, ValueId> mapped;  // original value -> sub-case value
  auto operand = [&](ValueId v) -> ValueId {
    if (v == kNoValue) return kNoValue;
    if (auto it = mapped.find(v); it != mapped.end()) return it->second;
    const Value& original = graph.value(v);
    ValueId now;
    if (original.kind == ValueKind::Weight) {
      now = sub.graph.addWeight(*original.data);
    } else if (constant[v]) {
      now = sub.graph.addWeight(values.at(v));
    } else {
      now = sub.graph.addInput(original.type);
      sub.inputs.push_back(values.at(v));
    }
    mapped.emplace(v, now);
    return now;
  };
  for (NodeId id : nodes) {
    const Node& n = graph.node(id);
    std::vector<ValueId> inputs;
    for (ValueId v : n.inputs) inputs.push_back(operand(v));
    std::vector<ValueId> captures;
    for (ValueId v : n.captures) captures.push_back(operand(v));
    std::vector<TensorType> types;
    for (ValueId v : n.outputs) types.push_back(graph.value(v).type);
    const NodeId made = sub.graph.addNode(n.op, std::move(inputs), n.attrs, types, std::move(captures));
    sub.graph.node(made).domain = n.domain;
    for (size_t k = 0; k < n.outputs.size(); ++k) mapped.emplace(n.outputs[k], sub.graph.node(made).outputs[k]);
  }
  const std::set<ValueId> wasOutput(graph.outputs().begin(), graph.outputs().end());
  for (NodeId id : nodes) {
    for (ValueId v : graph.node(id).outputs) {
      bool readInside = false;
      for (const Use& use : graph.value(v).uses) readInside |= kept.count(use.node) > 0;  // captures too
      if (readInside && !wasOutput.count(v)) continue;
      sub.graph.addOutput(mapped.at(v));
      sub.expected.push_back(values.at(v));
    }
  }
  return sub;
}

std::vector<NodeId> coneOf(const Graph& graph, const std::vector<size_t>& positions) {
  std::set<NodeId> cone;
  std::vector<ValueId> work;
  for (size_t p : positions)
    if (p < graph.outputs().size()) work.push_back(graph.outputs()[p]);
  while (!work.empty()) {
    const ValueId v = work.back();
    work.pop_back();
    const NodeId producer = graph.value(v).producer;
    if (graph.value(v).kind != ValueKind::Result || !cone.insert(producer).second) continue;
    for (ValueId in : graph.node(producer).inputs)
      if (in != kNoValue) work.push_back(in);
    for (ValueId in : graph.node(producer).captures) work.push_back(in);
  }
  return inOrder(graph, {cone.begin(), cone.end()});
}

Reduction reduceCase(const Graph& graph, const std::vector<Tensor>& inputs,
                     const std::function<bool(const SubCase&)>& stillFails, const ReduceOptions& options) {
  const std::vector<Tensor> values = runGraphAll(graph, inputs);
  const std::vector<NodeId> all = graph.nodes();
  Reduction r;
  r.kept = all;
  std::set<std::vector<NodeId>> tried;
  // Tries `nodes`; on success they become the best so far.
  auto attempt = [&](std::vector<NodeId> nodes) {
    nodes = inOrder(graph, nodes);
    if (nodes.empty() || nodes.size() >= r.kept.size() || r.tries >= options.maxTries) return false;
    if (!tried.insert(nodes).second) return false;
    ++r.tries;
    SubCase sub = extractSubCase(graph, values, nodes);
    if (!stillFails(sub)) return false;
    r.kept = std::move(nodes);
    r.reduced = std::move(sub);
    r.shrunk = true;
    return true;
  };

  for (const std::string& op : options.suspects)
    for (NodeId id : all)
      if (graph.node(id).op == op && attempt({id})) break;
  if (!options.focusOutputs.empty()) attempt(coneOf(graph, options.focusOutputs));

  // ddmin over the kept nodes; returns early when out of budget (smaller, maybe not minimal).
  const auto dropNodes = [&] {
    size_t parts = 2;
    while (true) {
      const size_t n = r.kept.size();
      if (n < 2) {
        r.minimal = true;
        break;
      }
      parts = std::min(parts, n);
      const size_t chunk = (n + parts - 1) / parts;
      bool removed = false;
      for (size_t start = 0; start < n && !removed; start += chunk) {
        if (r.tries >= options.maxTries) return;
        std::vector<NodeId> rest(r.kept.begin(), r.kept.begin() + static_cast<std::ptrdiff_t>(start));
        rest.insert(rest.end(), r.kept.begin() + static_cast<std::ptrdiff_t>(std::min(n, start + chunk)), r.kept.end());
        removed = attempt(rest);
      }
      if (removed) {
        parts = std::max<size_t>(parts - 1, 2);
      } else if (chunk == 1) {
        r.minimal = true;  // no single node can go
        break;
      } else {
        parts = std::min(parts * 2, n);
      }
    }
  };
  dropNodes();
  if (options.maxPassTries == 0) return r;
  const SubCase start = r.shrunk ? r.reduced : extractSubCase(graph, values, r.kept);
  PassReduction passes = reduceWithPasses(start, stillFails, options.maxPassTries);
  r.tries += passes.tries;
  r.passTries = passes.tries;
  r.passesFinished = passes.finished;
  for (const PassReport& report : passes.reports)
    if (report.kept) r.passesKept.push_back(report.name);
  if (passes.changed) {
    r.reduced = std::move(passes.reduced);
    r.shrunk = true;
  }
  return r;
}

}  // namespace nnfuzz
