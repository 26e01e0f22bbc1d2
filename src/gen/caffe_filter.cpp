// caffe_filter.cpp - see caffe_filter.h.
#include "gen/caffe_filter.h"

#include <algorithm>

#include "caffe/layer_map.h"
#include "ops/registry.h"

namespace nnfuzz {

void caffeWeightKinds(const Graph& graph, const OpSpec& spec, const Instantiation& inst, double weightRate, Rng& rng,
                      std::vector<bool>& isWeight) {
  using caffe_export::Role;
  isWeight.assign(inst.operands.size(), false);
  for (size_t k = 0; k < inst.operands.size(); ++k) {
    const Operand& op = inst.operands[k];
    if (op.omitted) continue;
    if (op.existing != kNoValue) {
      isWeight[k] = graph.value(op.existing).kind == ValueKind::Weight;
    } else {
      const Role role = caffe_export::operandRole(spec.name, k);
      isWeight[k] = op.constant || role == Role::Param || (role == Role::Either && rng.bernoulli(weightRate));
    }
  }
}

namespace {

bool acceptsView(std::string_view op, const Attributes& attrs, const std::vector<const TensorType*>& types,
                 const std::vector<const Tensor*>& weights, const std::vector<TensorType>& outputTypes) {
  // Names only so that the mapping can write its layers: a Bias layer comes from the Bias
  // unit alone, at the odds "caffe_layers" gives it (OpenCV 4.12 has no Bias layer).
  // As at export, only the first result counts as used here (later ones may stay unused).
  std::vector<std::string> inNames(types.size(), "in"), outNames(outputTypes.size());
  if (!outNames.empty()) outNames[0] = "out";
  const caffe_export::NodeView view{op, attrs, types, weights, outputTypes, inNames, outNames, ""};
  caffe_export::Layers layers;
  if (caffe_export::mapNode(view, &layers)) return false;
  return std::none_of(layers.begin(), layers.end(), [](const auto& l) { return l.type() == "Bias"; });
}

}  // namespace

bool caffeAccepts(const OpSpec& spec, const Instantiation& inst, const std::vector<const Tensor*>& operandData,
                  const std::vector<bool>& isWeight) {
  const size_t n = inst.operands.size();
  std::vector<const TensorType*> types(n, nullptr);
  std::vector<const Tensor*> weights(n, nullptr);
  for (size_t k = 0; k < n; ++k) {
    if (inst.operands[k].omitted) continue;
    types[k] = &inst.operands[k].type;
    if (isWeight[k]) weights[k] = operandData[k];
  }
  return acceptsView(spec.name, inst.attrs, types, weights, inst.outputTypes);
}

bool caffeAcceptsNode(const Graph& graph, NodeId id) {
  const Node& node = graph.node(id);
  std::vector<const TensorType*> types;
  std::vector<const Tensor*> weights;
  for (ValueId v : node.inputs) {
    const bool present = v != kNoValue;
    types.push_back(present ? &graph.value(v).type : nullptr);
    weights.push_back(present && graph.value(v).data ? &*graph.value(v).data : nullptr);
  }
  std::vector<TensorType> outputTypes;
  for (ValueId v : node.outputs) outputTypes.push_back(graph.value(v).type);
  return acceptsView(node.op, node.attrs, types, weights, outputTypes);
}

void dropOptionalOutputs(const Graph& graph, std::vector<ValueId>& outputs) {
  std::erase_if(outputs, [&](ValueId v) {
    const Value& value = graph.value(v);
    if (value.kind != ValueKind::Result) return false;
    const OpSpec* spec = findOp(graph.node(value.producer));
    return spec && spec->isOptionalOutput(value.resultIndex);
  });
}

}  // namespace nnfuzz
