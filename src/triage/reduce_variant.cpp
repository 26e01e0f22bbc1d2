// reduce_variant.cpp - settling, hashing and measuring reduction variants (see reduce_variant.h).
#include "triage/reduce_variant.h"

#include <cmath>
#include <map>

#include "interp/interpreter.h"
#include "ops/exactness.h"
#include "ops/infer_node.h"
#include "ops/opset_fit.h"
#include "ops/registry.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

// Runs the reference node by node; nullopt when a raw result is not finite or the operator
// calls its inputs unstable.
std::optional<std::vector<Tensor>> runChecked(const Graph& graph, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> values(graph.valueCapacity());
  const auto runtime = graph.inputs();
  for (size_t k = 0; k < runtime.size(); ++k) values[runtime[k]] = inputs[k];
  for (ValueId w : graph.weights()) values[w] = *graph.value(w).data;
  for (NodeId id : graph.nodes()) {
    const Node& n = graph.node(id);
    const OpSpec* spec = findOp(n);
    if (!spec) return std::nullopt;
    std::vector<const Tensor*> operands;
    for (ValueId v : n.inputs) operands.push_back(v == kNoValue ? nullptr : &values[v]);
    while (operands.size() > 1 && !operands.back()) operands.pop_back();
    std::vector<TensorType> types;
    for (ValueId v : n.outputs) types.push_back(graph.value(v).type);
    std::vector<const Tensor*> captures;
    for (ValueId v : n.captures) captures.push_back(&values[v]);
    // evalOp sets exactness and noise as generation does, so the stability checks judge
    // a variant the way they judged the case it came from.
    std::vector<Tensor> outs = evalOp(*spec, operands, n.attrs, types, captures);
    for (const Tensor& t : outs)
      if (!allFinite(t)) return std::nullopt;
    if (unstableCall(*spec, KernelArgs{operands, n.attrs, outs})) return std::nullopt;
    for (size_t k = 0; k < outs.size(); ++k) values[n.outputs[k]] = std::move(outs[k]);
  }
  return values;
}

int64_t bytesOf(DType d) {
  switch (d) {
    case DType::Float64:
    case DType::Int64: return 8;
    case DType::Float32:
    case DType::Int32: return 4;
    default: return 1;
  }
}

int64_t plainness(double x) {
  if (x == 0) return 0;
  if (std::abs(x) == 1) return 1;
  if (x == std::trunc(x) && std::abs(x) <= 4) return 2;
  return 3;
}

}  // namespace

std::optional<SettledCase> settleVariant(SubCase sub) {
  Graph& g = sub.graph;
  if (g.outputs().empty()) return std::nullopt;
  std::map<ValueId, Tensor> fed;
  const auto before = g.inputs();
  if (before.size() != sub.inputs.size()) return std::nullopt;
  for (size_t k = 0; k < before.size(); ++k) fed.emplace(before[k], std::move(sub.inputs[k]));
  g.removeUnused();
  if (g.numNodes() == 0) return std::nullopt;
  sub.inputs.clear();
  for (ValueId v : g.inputs()) {
    if (fed.at(v).type != g.value(v).type) return std::nullopt;
    sub.inputs.push_back(std::move(fed.at(v)));
  }
  for (NodeId id : g.nodes()) {
    if (g.node(id).attrs.hasGraphs() && retypeBodies(g, id)) return std::nullopt;
    const InferResult r = inferNode(g, id);
    if (!r.ok() || r.types.size() != g.node(id).outputs.size()) return std::nullopt;
    for (size_t k = 0; k < r.types.size(); ++k) g.value(g.node(id).outputs[k]).type = r.types[k];
  }
  if (verifyGraph(g) || opsetMisfit(g, g.opset())) return std::nullopt;
  std::optional<std::vector<Tensor>> values;
  try {
    values = runChecked(g, sub.inputs);
  } catch (const Error&) {
    return std::nullopt;  // a kernel refusing its operands: not a case we can judge
  }
  if (!values) return std::nullopt;
  sub.expected.clear();
  for (ValueId v : g.outputs()) sub.expected.push_back((*values)[v]);
  return SettledCase{std::move(sub), std::move(*values)};
}

uint64_t caseHash(const SubCase& sub) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const void* data, size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < size; ++i) {
      h ^= bytes[i];
      h *= 1099511628211ull;
    }
  };
  const std::string text = printGraph(sub.graph);
  mix(text.data(), text.size());
  for (const Tensor& t : sub.inputs) mix(t.data.data(), t.data.size() * sizeof(double));
  return h;
}

CaseCost caseCost(const SubCase& sub) {
  const Graph& g = sub.graph;
  int64_t elements = 0, ranks = 0, bytes = 0, plain = 0;
  size_t attrs = 0;
  auto count = [&](const TensorType& t) {
    elements += t.numel();
    ranks += t.rank();
    bytes += bytesOf(t.dtype);
  };
  for (ValueId v : g.params()) count(g.value(v).type);
  for (NodeId id : g.nodes()) {
    attrs += g.node(id).attrs.size();
    for (ValueId v : g.node(id).outputs) count(g.value(v).type);
  }
  for (ValueId w : g.weights())
    for (double x : g.value(w).data->data) plain += plainness(x);
  for (const Tensor& t : sub.inputs)
    for (double x : t.data) plain += plainness(x);
  return {countNodesDeep(g), g.inputs().size(), g.outputs().size(), elements, ranks, attrs, bytes, plain};
}

Tensor cornerOf(const Tensor& t, const Shape& shape) {
  Tensor out(TensorType{t.type.dtype, shape});
  const auto from = stridesOf(t.type.shape);
  const auto to = stridesOf(shape);
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t rest = i, src = 0;
    for (size_t a = 0; a < shape.size(); ++a) {
      const int64_t index = rest / to[a];
      rest %= to[a];
      src += index * from[a];
    }
    out.data[static_cast<size_t>(i)] = t.data[static_cast<size_t>(src)];
  }
  return out;
}

Tensor castTensor(const Tensor& t, DType dtype) {
  Tensor out(TensorType{dtype, t.type.shape});
  for (size_t i = 0; i < t.data.size(); ++i) out.data[i] = roundTo(dtype, t.data[i]);
  return out;
}

std::vector<ValueId> dataParams(const Graph& g) {
  std::vector<ValueId> out;
  for (ValueId v : g.params()) {
    bool shapeArgument = false;
    for (const Use& use : g.value(v).uses) {
      const OpSpec* spec = findOp(g.node(use.node));
      shapeArgument = shapeArgument || (spec && spec->isConstantInput(static_cast<int>(use.operand)));
    }
    if (!shapeArgument) out.push_back(v);
  }
  return out;
}

Tensor& paramData(SubCase& sub, ValueId v) {
  Value& value = sub.graph.value(v);
  if (value.kind == ValueKind::Weight) return *value.data;
  const auto inputs = sub.graph.inputs();
  for (size_t k = 0; k < inputs.size(); ++k)
    if (inputs[k] == v) return sub.inputs.at(k);
  throw Error("value %" + std::to_string(v) + " is not a parameter of the case");
}

void setParam(SubCase& sub, ValueId v, Tensor data) {
  sub.graph.value(v).type = data.type;
  paramData(sub, v) = std::move(data);
}

}  // namespace nnfuzz
