#include "interp/interpreter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ops/exactness.h"
#include "ops/registry.h"
#include "support/error.h"

namespace nnfuzz {

std::vector<Tensor> evalOp(const OpSpec& spec, const std::vector<const Tensor*>& inputs, const Attributes& attrs,
                           const std::vector<TensorType>& outputTypes) {
  std::vector<Tensor> outputs;
  outputs.reserve(outputTypes.size());
  for (const auto& t : outputTypes) outputs.emplace_back(t);
  KernelArgs args{inputs, attrs, outputs};
  spec.reference(args);
  for (Tensor& out : outputs) {
    if (out.type.dtype != DType::Float64)
      for (double& x : out.data) x = roundTo(out.type.dtype, x);
    out.exact = exactResult(spec, inputs, out);
  }
  return outputs;
}

double estimateWork(const Graph& graph) {
  double total = 0;
  std::vector<const TensorType*> operands;
  std::vector<TensorType> results;
  for (NodeId id : graph.nodes()) {
    const Node& n = graph.node(id);
    const OpSpec* spec = findOp(n.op);
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
    total += work;
  }
  return total;
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
  for (NodeId id : graph.nodes()) {
    const Node& n = graph.node(id);
    const OpSpec* spec = findOp(n.op);
    if (!spec) throw Error("unsupported operator " + n.op);
    std::vector<const Tensor*> operands;
    for (ValueId v : n.inputs) operands.push_back(v == kNoValue ? nullptr : &values[v]);
    while (operands.size() > 1 && !operands.back()) operands.pop_back();
    std::vector<TensorType> types;
    for (ValueId v : n.outputs) types.push_back(graph.value(v).type);
    auto results = evalOp(*spec, operands, n.attrs, types);
    for (size_t k = 0; k < results.size(); ++k) values[n.outputs[k]] = std::move(results[k]);
  }
  return values;
}

std::vector<Tensor> runGraph(const Graph& graph, const std::vector<Tensor>& inputs, double workBudget) {
  auto all = runGraphAll(graph, inputs, workBudget);
  std::vector<Tensor> outputs;
  for (ValueId v : graph.outputs()) outputs.push_back(all[v]);
  return outputs;
}

bool allFinite(const Tensor& t, double limit) {
  for (double x : t.data)
    if (!std::isfinite(x) || std::abs(x) > limit) return false;
  return true;
}

}  // namespace nnfuzz
