// sequences.h - placing a required sequence (limits.h) as one chain: each operator's first
// operand is the previous operator's result, aligned with helper operators where its type
// does not fit (align.h); the other operands are fresh. Shared by the isra and graph
// generators.
#pragma once

#include <optional>

#include "gen/block_place.h"
#include "gen/limits.h"

namespace nnfuzz {

/// The chain's recipe: member j reads member j-1's first result (member 0 reads block input 0).
SubgraphTemplate sequenceRecipe(const RequiredSequence& sequence);

/// Appends the chain on `start` through `builder`; nullopt (nothing appended) if a member
/// cannot be used there.
std::optional<Placement> placeSequence(EvalBuilder& builder, const GenConfig& config, const RequiredSequence& sequence,
                                       ValueId start, Rng& rng);

}  // namespace nnfuzz
