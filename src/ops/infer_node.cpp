#include "ops/infer_node.h"

#include "ops/common.h"
#include "ops/control_flow.h"
#include "ops/registry.h"

namespace nnfuzz {

InferResult inferNode(const OpSpec& spec, std::span<const TensorType* const> inputs, std::span<const Tensor* const> constants,
                      const Attributes& attrs) {
  const int arity = static_cast<int>(inputs.size());
  if (arity < spec.minInputs || arity > spec.maxInputs)
    return InferResult::fail(std::string(spec.name) + " takes " + std::to_string(spec.minInputs) + ".." +
                             std::to_string(spec.maxInputs) + " inputs, got " + std::to_string(arity));
  if (!inputs[0] && !spec.firstOptional) return InferResult::fail(std::string(spec.name) + " input 0 is required");
  if (inputs[0] && !opsupport::contains(spec.dtypes, inputs[0]->dtype))
    return InferResult::fail(std::string(spec.name) + " does not take " + std::string(dtypeName(inputs[0]->dtype)));
  if (inputs[0] && (inputs[0]->rank() < spec.minRank || inputs[0]->rank() > spec.maxRank))
    return InferResult::fail(std::string(spec.name) + " does not take rank " + std::to_string(inputs[0]->rank()));
  for (int i = 0; i < arity; ++i)
    if (inputs[static_cast<size_t>(i)] && spec.isConstantInput(i) && !constants[static_cast<size_t>(i)])
      return InferResult::fail(std::string(spec.name) + " input " + std::to_string(i) + " must be a constant");
  InferArgs args{inputs, constants, attrs};
  InferResult r = spec.infer(args);
  if (!r.ok()) r.error = std::string(spec.name) + ": " + r.error;
  return r;
}

InferResult inferNode(const Graph& graph, NodeId id) {
  const Node& n = graph.node(id);
  const OpSpec* spec = findOp(n);
  if (!spec) return InferResult::fail("unsupported operator " + n.op);
  OperandTypes types;  // inline: asked for every node the verifier checks
  OperandConstants constants;
  for (ValueId v : n.inputs) {
    types.push_back(v == kNoValue ? nullptr : &graph.value(v).type);
    constants.push_back(v == kNoValue || !graph.value(v).data ? nullptr : &*graph.value(v).data);
  }
  // Trailing omitted operands count as absent, as in ONNX.
  while (types.size() > 1 && !types.back()) {
    types.pop_back();
    constants.pop_back();
  }
  return inferNode(*spec, types, constants, n.attrs);
}

std::optional<std::string> retypeBodies(Graph& g, NodeId id) {
  Node& n = g.node(id);
  std::vector<const TensorType*> types;
  for (ValueId v : n.inputs) types.push_back(v == kNoValue ? nullptr : &g.value(v).type);
  while (!types.empty() && !types.back()) types.pop_back();
  Attributes attrs = n.attrs;
  for (const auto& [name, value] : n.attrs) {
    const auto* body = std::get_if<GraphAttr>(&value);
    if (!body) continue;
    const BodyFormals formals = bodyFormals(n.op, name, types, n.attrs);
    if (!formals.error.empty()) return formals.error;
    Graph copy = body->graph();
    const auto ins = copy.inputs();
    if (ins.size() != formals.types.size()) return "body '" + name + "' takes other inputs";
    for (size_t k = 0; k < ins.size(); ++k) copy.value(ins[k]).type = formals.types[k];
    for (ValueId p : copy.paramList())
      if (copy.value(p).kind == ValueKind::Outer) copy.value(p).type = g.value(n.captures[copy.value(p).capture]).type;
    for (NodeId inner : copy.nodes()) {
      if (copy.node(inner).attrs.hasGraphs())
        if (auto problem = retypeBodies(copy, inner)) return "body '" + name + "': " + *problem;
      const InferResult r = inferNode(copy, inner);
      if (!r.ok()) return "body '" + name + "': " + r.error;
      if (r.types.size() != copy.node(inner).outputs.size()) return "body '" + name + "': result count changed";
      for (size_t k = 0; k < r.types.size(); ++k) copy.value(copy.node(inner).outputs[k]).type = r.types[k];
    }
    attrs.setGraph(name, GraphAttr(std::move(copy)));
  }
  n.attrs = std::move(attrs);
  return std::nullopt;
}

namespace {

// Operator checks of `graph` and, recursively, of its bodies (structure checked already).
std::optional<std::string> verifyOps(const Graph& graph) {
  for (NodeId id : graph.nodes()) {
    const Node& n = graph.node(id);
    if (isOpaque(n)) {  // no spec: its result types are as given (by a rule, a record, a model)
      if (n.attrs.hasGraphs()) return "node #" + std::to_string(id) + " (" + qualifiedOp(n) + ") of another domain has a body";
      continue;
    }
    InferResult r = inferNode(graph, id);
    if (!r.ok()) return "node #" + std::to_string(id) + ": " + r.error;
    if (r.types.size() != n.outputs.size())
      return "node #" + std::to_string(id) + " (" + n.op + ") has " + std::to_string(n.outputs.size()) +
             " results, inference gives " + std::to_string(r.types.size());
    for (size_t k = 0; k < r.types.size(); ++k)
      if (r.types[k] != graph.value(n.outputs[k]).type)
        return "node #" + std::to_string(id) + " (" + n.op + ") result " + std::to_string(k) + " is " +
               toString(graph.value(n.outputs[k]).type) + " but inference gives " + toString(r.types[k]);
    for (const auto& [name, value] : n.attrs)
      if (const auto* body = std::get_if<GraphAttr>(&value))
        if (auto problem = verifyOps(body->graph()))
          return "node #" + std::to_string(id) + " (" + n.op + ") body '" + name + "': " + *problem;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> verifyGraph(const Graph& graph) {
  if (auto problem = verifyStructure(graph)) return problem;
  return verifyOps(graph);
}

}  // namespace nnfuzz
