#include "interp/interpreter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "ops/exactness.h"
#include "ops/registry.h"
#include "support/double_scan.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

/// Loop iterations the work estimate assumes when M is no weight.
constexpr double kMaxLoopEstimate = 1e3;

// The values a node's operands and captures hold, from a value table.
std::vector<const Tensor*> operandsOf(const Node& n, const std::vector<Tensor>& values) {
  std::vector<const Tensor*> operands;
  for (ValueId v : n.inputs) operands.push_back(v == kNoValue ? nullptr : &values[v]);
  while (operands.size() > 1 && !operands.back()) operands.pop_back();
  return operands;
}

std::vector<const Tensor*> capturesOf(const Node& n, const std::vector<Tensor>& values) {
  std::vector<const Tensor*> captures;
  for (ValueId v : n.captures) captures.push_back(&values[v]);
  return captures;
}

// Runs the nodes of `graph` over `values` (parameters already set); an opaque node and
// the nodes fed by it get zeros (see runGraphAll).
void runNodes(const Graph& graph, std::vector<Tensor>& values) {
  const std::vector<bool> unknown = unreferencedValues(graph);
  for (NodeId id : graph.nodes()) {
    const Node& n = graph.node(id);
    const OpSpec* spec = findOp(n);
    if (!spec && !isOpaque(n)) throw Error("unsupported operator " + n.op);
    if (!spec || std::any_of(n.outputs.begin(), n.outputs.end(), [&](ValueId v) { return unknown[v]; })) {
      for (ValueId v : n.outputs) values[v] = Tensor(graph.value(v).type);
      continue;
    }
    std::vector<TensorType> types;
    for (ValueId v : n.outputs) types.push_back(graph.value(v).type);
    auto results = evalOp(*spec, operandsOf(n, values), n.attrs, types, capturesOf(n, values));
    for (size_t k = 0; k < results.size(); ++k) values[n.outputs[k]] = std::move(results[k]);
  }
}

// How many times a node runs its bodies, from types and constant operands.
double bodyRuns(const Graph& graph, const Node& n) {
  if (n.op == "Loop") {
    const ValueId m = n.inputs.empty() ? kNoValue : n.inputs[0];
    if (m != kNoValue && graph.value(m).data && !graph.value(m).data->data.empty())
      return std::max(0.0, graph.value(m).data->data[0]);
    return kMaxLoopEstimate;
  }
  if (n.op == "Scan") {
    const int64_t m = n.attrs.getInt("num_scan_inputs", 0);
    if (m < 1 || m > static_cast<int64_t>(n.inputs.size())) return 1;
    const ValueId first = n.inputs[n.inputs.size() - static_cast<size_t>(m)];
    if (first == kNoValue) return 1;
    const TensorType& t = graph.value(first).type;
    int64_t axis = n.attrs.getInts("scan_input_axes", {0}).at(0);
    if (axis < 0) axis += t.rank();
    return axis >= 0 && axis < t.rank() ? static_cast<double>(t.shape[static_cast<size_t>(axis)]) : 1;
  }
  return 1;
}

}  // namespace

BodyRunner bodyRunner(const std::vector<const Tensor*>& captures) {
  return [&captures](const Graph& body, const std::vector<const Tensor*>& formals) {
    auto all = runBodyAll(body, formals, captures);
    std::vector<Tensor> results;
    for (ValueId v : body.outputs()) results.push_back(all[v]);
    return results;
  };
}

std::vector<Tensor> evalOp(const OpSpec& spec, const std::vector<const Tensor*>& inputs, const Attributes& attrs,
                           const std::vector<TensorType>& outputTypes, const std::vector<const Tensor*>& captures) {
  std::vector<Tensor> outputs;
  outputs.reserve(outputTypes.size());
  for (const auto& t : outputTypes) outputs.emplace_back(t);
  KernelArgs args{inputs, attrs, outputs};
  const BodyRunner runner = bodyRunner(captures);
  if (!spec.bodies.empty()) args.runBody = &runner;
  spec.reference(args);
  const bool noisyOperand = anyNoisy(inputs);
  for (Tensor& out : outputs) {
    if (out.type.dtype == DType::Float32)
      roundEachToFloat32(out.data);
    else if (out.type.dtype != DType::Float64)
      for (double& x : out.data) x = roundTo(out.type.dtype, x);
    out.exact = exactResult(spec, inputs, out);
    out.noisy = !out.exact && (out.noisy || noisyOperand);  // a kernel may set it
  }
  return outputs;
}

double estimateWork(const Graph& graph) {
  double total = 0;
  std::vector<const TensorType*> operands;
  std::vector<TensorType> results;
  for (NodeId id : graph.nodes()) {
    const Node& n = graph.node(id);
    const OpSpec* spec = findOp(n);
    operands.clear();
    results.clear();
    double sizes = 0;
    for (ValueId v : n.inputs) {
      operands.push_back(v == kNoValue ? nullptr : &graph.value(v).type);
      if (v != kNoValue) sizes += elementCount(graph.value(v).type);
    }
    for (ValueId v : n.outputs) {
      results.push_back(graph.value(v).type);
      sizes += elementCount(results.back());
    }
    double window = 1;
    for (int64_t k : n.attrs.getInts("kernel_shape")) window *= static_cast<double>(std::max<int64_t>(k, 1));
    double work = sizes * window;
    if (spec && spec->work && !results.empty()) work = std::max(sizes, spec->work(WorkArgs{operands, n.attrs, results}));
    double bodies = 0;
    for (const auto& [name, value] : n.attrs)
      if (const auto* body = std::get_if<GraphAttr>(&value)) bodies = std::max(bodies, estimateWork(body->graph()));
    total += work + bodies * bodyRuns(graph, n);
  }
  return total;
}

std::vector<Tensor> runBodyAll(const Graph& body, const std::vector<const Tensor*>& formals,
                               const std::vector<const Tensor*>& captures) {
  std::vector<Tensor> values(body.valueCapacity());
  const auto params = body.inputs();
  if (params.size() != formals.size())
    throw Error("a body takes " + std::to_string(params.size()) + " inputs, got " + std::to_string(formals.size()));
  for (size_t k = 0; k < formals.size(); ++k) {
    if (!formals[k] || formals[k]->type != body.value(params[k]).type)
      throw Error("body input " + std::to_string(k) + " is not of type " + toString(body.value(params[k]).type));
    values[params[k]] = *formals[k];
  }
  for (ValueId p : body.paramList()) {
    const Value& v = body.value(p);
    if (v.kind == ValueKind::Weight) values[p] = *v.data;
    if (v.kind == ValueKind::Outer) {
      if (v.capture >= captures.size() || !captures[v.capture]) throw Error("a body reads an unbound outer value");
      values[p] = *captures[v.capture];
    }
  }
  runNodes(body, values);
  // A NaN or infinity inside a body can leave it through a consumer that swallows it (Relu and
  // Max turn NaN into a number in the reference, not in a SUT), past every finiteness check on
  // the node's results: such a run has no trustworthy result (onnxruntime-any-dcf-c919d732).
  for (NodeId id : body.nodes())
    for (ValueId v : body.node(id).outputs)
      if (v != kNoValue && !allFinite(values[v], std::numeric_limits<double>::infinity()))
        throw Error("a body computes a non-finite value (" + body.node(id).op + ")");
  return values;
}

std::vector<Tensor> runGraphAll(const Graph& graph, const std::vector<Tensor>& inputs, double workBudget) {
  if (const double work = estimateWork(graph); work > workBudget)
  {
    char text[160];
    std::snprintf(text, sizeof text, "the reference would take about %.2g steps on this model, over its budget of %.2g",
                  work, workBudget);
    throw Error(text);
  }
  std::vector<Tensor> values(graph.valueCapacity());
  const auto runtimeInputs = graph.inputs();
  if (runtimeInputs.size() != inputs.size())
    throw Error("the graph has " + std::to_string(runtimeInputs.size()) + " inputs, got " +
                std::to_string(inputs.size()) + " tensors");
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].type != graph.value(runtimeInputs[k]).type)
      throw Error("input " + std::to_string(k) + " is " + toString(inputs[k].type) + ", the graph wants " +
                  toString(graph.value(runtimeInputs[k]).type));
    values[runtimeInputs[k]] = inputs[k];
  }
  for (ValueId w : graph.weights()) values[w] = *graph.value(w).data;
  runNodes(graph, values);
  return values;
}

std::vector<Tensor> runGraph(const Graph& graph, const std::vector<Tensor>& inputs, double workBudget) {
  auto all = runGraphAll(graph, inputs, workBudget);
  std::vector<Tensor> outputs;
  for (ValueId v : graph.outputs()) outputs.push_back(all[v]);
  return outputs;
}

std::vector<bool> unreferencedValues(const Graph& graph) {
  std::vector<bool> unknown(graph.valueCapacity(), false);
  for (NodeId id : graph.nodes()) {
    const Node& n = graph.node(id);
    bool fed = isOpaque(n);
    for (ValueId v : n.inputs) fed = fed || (v != kNoValue && unknown[v]);
    for (ValueId v : n.captures) fed = fed || unknown[v];
    for (ValueId v : n.outputs) unknown[v] = fed;
  }
  return unknown;
}

std::vector<size_t> unreferencedOutputs(const Graph& graph) {
  const std::vector<bool> unknown = unreferencedValues(graph);
  std::vector<size_t> out;
  for (size_t k = 0; k < graph.outputs().size(); ++k)
    if (unknown[graph.outputs()[k]]) out.push_back(k);
  return out;
}

bool allFinite(const Tensor& t, double limit) {
  // One comparison an element: NaN and the infinities fail it too (the bound is finite).
  const double bound = std::min(limit, std::numeric_limits<double>::max());
  return allWithinMagnitude(t.data, bound);
}

}  // namespace nnfuzz
