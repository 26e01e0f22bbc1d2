// recipe_mutations.h - the seed's block-node mutations (Luo et al. §III-F) on a subgraph
// block's recipe: Block Nodes Addition duplicates one member, Block Nodes Removal drops
// one, each rewiring the recipe so the block keeps its inputs and stays buildable.
#pragma once

#include <optional>

#include "gen/block_template.h"
#include "support/rng.h"

namespace nnfuzz {

/// BNA: a random member J gets a copy right after it that reads J's result in place of
/// J's first data flow (its other operands as J's); J's readers read the copy instead.
SubgraphTemplate duplicateMember(const SubgraphTemplate& recipe, Rng& rng);

/// BNR: a random member that others read is dropped and its readers read its first data
/// flow instead. nullopt when every candidate would leave a block input unread or the
/// recipe with fewer than two members.
std::optional<SubgraphTemplate> dropMember(const SubgraphTemplate& recipe, Rng& rng);

}  // namespace nnfuzz
