#include "gen/sequences.h"

namespace nnfuzz {

SubgraphTemplate sequenceRecipe(const RequiredSequence& sequence) {
  SubgraphTemplate t;
  for (size_t j = 0; j < sequence.ops.size(); ++j) {
    MemberTemplate m;
    m.op = std::string(sequence.ops[j]->name);
    m.operands.push_back(j == 0 ? OperandRef{OperandRef::Kind::BlockInput, 0}
                                : OperandRef{OperandRef::Kind::Member, static_cast<int>(j) - 1});
    t.members.push_back(std::move(m));
  }
  t.outputs.push_back({OperandRef::Kind::Member, static_cast<int>(sequence.ops.size()) - 1});
  return t;
}

std::optional<Placement> placeSequence(EvalBuilder& builder, const GenConfig& config, const RequiredSequence& sequence,
                                       ValueId start, Rng& rng) {
  const SubgraphTemplate recipe = sequenceRecipe(sequence);
  // An operator block: each member's arity is drawn as usual, beyond the one data flow.
  const PlaceRequest request{&recipe, true, std::span<const ValueId>(&start, 1), false};
  return placeBlock(builder, config, request, rng);
}

}  // namespace nnfuzz
