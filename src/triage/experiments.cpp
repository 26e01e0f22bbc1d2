// experiments.cpp - variants that tell what a failure needs (see experiments.h).
#include "triage/experiments.h"

namespace nnfuzz {

std::optional<SubCase> withoutTrailingOmittedInputs(const SubCase& sub) {
  SubCase plain = sub;
  bool changed = false;
  for (NodeId id : plain.graph.nodes()) {
    std::vector<ValueId>& inputs = plain.graph.node(id).inputs;
    while (!inputs.empty() && inputs.back() == kNoValue) {
      inputs.pop_back();  // an omitted operand has no use to unlink
      changed = true;
    }
  }
  if (!changed) return std::nullopt;
  return plain;
}

}  // namespace nnfuzz
