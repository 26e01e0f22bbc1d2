// eval_builder.cpp - evaluated appends and rollback.
#include "gen/eval_builder.h"

#include "interp/interpreter.h"
#include "ops/exactness.h"
#include "ops/infer_node.h"
#include "ops/registry.h"
#include "support/small_vector.h"

namespace nnfuzz {

void appendGraphOutputs(const Graph& graph, NodeId node, Rng& rng, std::vector<ValueId>& outputs) {
  const Node& n = graph.node(node);
  const OpSpec* spec = findOp(n);
  size_t kept = 0;  // results read by a later node or made outputs
  SmallVector<bool, 8> drop(n.outputs.size(), false);  // per node of every model: inline
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    const bool unused = graph.value(n.outputs[k]).uses.empty();
    drop[k] = unused && spec && spec->isOptionalOutput(k) && rng.bernoulli(0.4);
    kept += !drop[k];
  }
  if (kept == 0) drop.back() = false;
  for (size_t k = 0; k < n.outputs.size(); ++k)
    if (!drop[k] && graph.value(n.outputs[k]).uses.empty()) outputs.push_back(n.outputs[k]);
}

bool usableResults(const OpSpec& spec, const std::vector<const Tensor*>& operands, const Attributes& attrs,
                   std::vector<Tensor>& results) {
  for (const Tensor& t : results)
    if (!allFinite(t, kMaxResultMagnitude)) return false;
  return !unstableCall(spec, KernelArgs{operands, attrs, results});
}

ValueId EvalBuilder::weight(Tensor data) {
  const ValueId v = graph_.addWeight(data);
  pool_.add(v, std::move(data));
  return v;
}

ValueId EvalBuilder::input(Tensor data) {
  const ValueId v = graph_.addInput(data.type);
  pool_.add(v, std::move(data));
  return v;
}

std::optional<std::vector<ValueId>> EvalBuilder::append(std::string_view op, std::vector<ValueId> inputs,
                                                        Attributes attrs) {
  const OpSpec* spec = findOp(op);
  if (!spec) return std::nullopt;
  std::vector<const TensorType*> types;
  std::vector<const Tensor*> constants, data;
  for (ValueId v : inputs) {
    const bool present = v != kNoValue;
    types.push_back(present ? &graph_.value(v).type : nullptr);
    constants.push_back(present && graph_.value(v).kind == ValueKind::Weight ? &pool_.data(v) : nullptr);
    data.push_back(present ? &pool_.data(v) : nullptr);
  }
  InferResult inferred = inferNode(*spec, types, constants, attrs);
  if (!inferred.ok()) return std::nullopt;
  for (const TensorType& t : inferred.types)
    if (t.numel() == 0) return std::nullopt;
  std::vector<Tensor> results = evalOp(*spec, data, attrs, inferred.types);
  if (!usableResults(*spec, data, attrs, results)) return std::nullopt;
  const NodeId node = commit(op, std::move(inputs), std::move(attrs), inferred.types, std::move(results));
  return graph_.node(node).outputs;
}

NodeId EvalBuilder::commit(std::string_view op, std::vector<ValueId> inputs, Attributes attrs,
                           const std::vector<TensorType>& outputTypes, std::vector<Tensor> results,
                           std::vector<ValueId> captures) {
  const NodeId node =
      graph_.addNode(std::string(op), std::move(inputs), std::move(attrs), outputTypes, std::move(captures));
  for (size_t r = 0; r < results.size(); ++r) pool_.add(graph_.node(node).outputs[r], std::move(results[r]));
  appended_.push_back(node);
  return node;
}

void EvalBuilder::rollback(size_t mark) {
  while (appended_.size() > mark) {
    graph_.removeNode(appended_.back());
    appended_.pop_back();
  }
}

}  // namespace nnfuzz
