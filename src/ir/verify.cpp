// verify.cpp - structural verification of a Graph (no operator knowledge).
#include <algorithm>
#include <string>

#include "ir/graph.h"

namespace nnfuzz {

namespace {
std::string at(NodeId id, const Node& n) { return "node #" + std::to_string(id) + " (" + n.op + ")"; }
}  // namespace

std::optional<std::string> verifyStructure(const Graph& g) {
  std::vector<bool> defined(g.valueCapacity(), false);
  std::vector<size_t> useCount(g.valueCapacity(), 0);
  for (ValueId p : g.paramList()) {
    const Value& v = g.value(p);
    if (!v.alive) return "parameter %" + std::to_string(p) + " is removed but still listed";
    if (v.kind == ValueKind::Result) return "parameter %" + std::to_string(p) + " is a node result";
    if (v.kind == ValueKind::Outer && !g.isBody())
      return "parameter %" + std::to_string(p) + " reads an outer scope, but the graph is no body";
    if (v.kind == ValueKind::Weight) {
      if (!v.data) return "weight %" + std::to_string(p) + " has no data";
      if (v.data->type != v.type || v.data->numel() != v.type.numel())
        return "weight %" + std::to_string(p) + " data does not match its type " + toString(v.type);
    }
    defined[p] = true;
  }
  for (NodeId id : g.order()) {
    const Node& n = g.node(id);
    if (!n.alive) return at(id, n) + " is removed but still ordered";
    for (uint32_t i = 0; i < n.inputs.size(); ++i) {
      const ValueId in = n.inputs[i];
      if (in == kNoValue) continue;
      if (in >= g.valueCapacity() || !defined[in])
        return at(id, n) + " operand " + std::to_string(i) + " is used before it is defined";
      const auto& uses = g.value(in).uses;
      if (std::find(uses.begin(), uses.end(), Use{id, i}) == uses.end())
        return at(id, n) + " operand " + std::to_string(i) + " is missing from its value's use list";
      ++useCount[in];
    }
    for (uint32_t k = 0; k < n.captures.size(); ++k) {
      const ValueId c = n.captures[k];
      if (c >= g.valueCapacity() || !defined[c])
        return at(id, n) + " capture " + std::to_string(k) + " is used before it is defined";
      const auto& uses = g.value(c).uses;
      if (std::find(uses.begin(), uses.end(), Use{id, kCaptureOperand | k}) == uses.end())
        return at(id, n) + " capture " + std::to_string(k) + " is missing from its value's use list";
      ++useCount[c];
    }
    for (const auto& [name, attr] : n.attrs) {
      const auto* body = std::get_if<GraphAttr>(&attr);
      if (!body) continue;
      const std::string where = at(id, n) + " body '" + name + "'";
      if (!body->graph().isBody()) return where + " is not marked a body";
      if (auto problem = verifyStructure(body->graph())) return where + ": " + *problem;
      for (ValueId p : body->graph().paramList()) {
        const Value& v = body->graph().value(p);
        if (v.kind != ValueKind::Outer) continue;
        if (v.capture >= n.captures.size())
          return where + " reads capture " + std::to_string(v.capture) + ", the node has " +
                 std::to_string(n.captures.size());
        if (v.type != g.value(n.captures[v.capture]).type)
          return where + " reads capture " + std::to_string(v.capture) + " as " + toString(v.type) + ", it is " +
                 toString(g.value(n.captures[v.capture]).type);
      }
    }
    for (uint32_t r = 0; r < n.outputs.size(); ++r) {
      const Value& out = g.value(n.outputs[r]);
      if (!out.alive || out.producer != id || out.resultIndex != r || out.kind != ValueKind::Result)
        return at(id, n) + " result " + std::to_string(r) + " does not point back at its node";
      if (defined[n.outputs[r]]) return at(id, n) + " redefines a value";
      defined[n.outputs[r]] = true;
    }
  }
  for (ValueId v = 0; v < g.valueCapacity(); ++v)
    if (g.value(v).alive && g.value(v).uses.size() != useCount[v] && defined[v])
      return "value %" + std::to_string(v) + " has stale entries in its use list";
  if (g.outputs().empty()) return std::string("the graph has no outputs");
  for (ValueId out : g.outputs())
    if (out >= g.valueCapacity() || !defined[out])
      return "graph output %" + std::to_string(out) + " is not defined";
  return std::nullopt;
}

}  // namespace nnfuzz
