// reduce_reset_attributes.cpp - the pass that resets attributes to their ONNX defaults (see
// reduce_pass.h). An absent attribute means its default in ONNX, so resetting is removing;
// a required attribute cannot go, and shape inference refuses the variant. Instance k is the
// k-th (node, attribute) pair in node order and name order.
#include "triage/reduce_pass.h"

namespace nnfuzz {

namespace {

std::vector<std::pair<NodeId, std::string>> attributesOf(const Graph& g) {
  std::vector<std::pair<NodeId, std::string>> out;
  for (NodeId id : g.nodes())
    for (const auto& [name, value] : g.node(id).attrs)
      if (!std::holds_alternative<GraphAttr>(value)) out.push_back({id, name});  // a body is required
  return out;
}

class ResetAttributes final : public EditListPass<std::pair<NodeId, std::string>> {
 public:
  std::string_view name() const override { return "reset-attributes"; }

 protected:
  std::vector<std::pair<NodeId, std::string>> edits(const Graph& g) const override { return attributesOf(g); }
  bool apply(SubCase& c, const std::vector<Tensor>&, const std::pair<NodeId, std::string>& e) const override {
    c.graph.node(e.first).attrs.erase(e.second);
    return true;
  }
};

}  // namespace

std::unique_ptr<ReducePass> makeResetAttributesPass() { return std::make_unique<ResetAttributes>(); }

}  // namespace nnfuzz
