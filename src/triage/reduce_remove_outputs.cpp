// reduce_remove_outputs.cpp - the pass that drops graph outputs one at a time (see reduce_pass.h).
// Instance k drops output k; the settling step then removes what only that output needed.
#include "triage/reduce_pass.h"

namespace nnfuzz {

namespace {

class RemoveOutputs final : public ReducePass {
 public:
  std::string_view name() const override { return "remove-outputs"; }
  size_t instances(const SubCase& c) const override {
    return c.graph.outputs().size() > 1 ? c.graph.outputs().size() : 0;
  }
  bool transform(SubCase& c, const std::vector<Tensor>&, size_t k) const override {
    std::vector<ValueId> outputs = c.graph.outputs();
    if (outputs.size() < 2 || k >= outputs.size()) return false;
    outputs.erase(outputs.begin() + static_cast<std::ptrdiff_t>(k));
    c.graph.setOutputs(std::move(outputs));
    return true;
  }
};

}  // namespace

std::unique_ptr<ReducePass> makeRemoveOutputsPass() { return std::make_unique<RemoveOutputs>(); }

}  // namespace nnfuzz
