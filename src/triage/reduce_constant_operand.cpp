// reduce_constant_operand.cpp - the pass that replaces an operand by a constant holding its
// reference contents (see reduce_pass.h). Instances are the runtime inputs first (each becomes
// a weight: one input fewer), then every computed operand of every node (its producer may then
// go). A bug that needs a computed operand survives neither edit, and so keeps its producer.
#include "triage/reduce_pass.h"

namespace nnfuzz {

namespace {

struct Operand {
  NodeId node;
  uint32_t index;
};

std::vector<Operand> computedOperands(const Graph& g) {
  std::vector<Operand> out;
  for (NodeId id : g.nodes()) {
    const Node& n = g.node(id);
    for (uint32_t i = 0; i < n.inputs.size(); ++i)
      if (n.inputs[i] != kNoValue && g.value(n.inputs[i]).kind == ValueKind::Result) out.push_back({id, i});
  }
  return out;
}

class ConstantOperand final : public ReducePass {
 public:
  std::string_view name() const override { return "constant-operand"; }
  size_t instances(const SubCase& c) const override {
    return c.graph.inputs().size() + computedOperands(c.graph).size();
  }
  bool transform(SubCase& c, const std::vector<Tensor>& values, size_t k) const override {
    const auto inputs = c.graph.inputs();
    if (k < inputs.size()) {
      const ValueId weight = c.graph.addWeight(c.inputs[k]);
      c.graph.replaceAllUses(inputs[k], weight);
      return true;  // the input, now unused, is dropped when the variant settles
    }
    const auto operands = computedOperands(c.graph);
    k -= inputs.size();
    if (k >= operands.size()) return false;
    const Operand o = operands[k];
    const ValueId weight = c.graph.addWeight(values.at(c.graph.node(o.node).inputs[o.index]));
    c.graph.setOperand(o.node, o.index, weight);
    return true;
  }
};

}  // namespace

std::unique_ptr<ReducePass> makeConstantOperandPass() { return std::make_unique<ConstantOperand>(); }

}  // namespace nnfuzz
