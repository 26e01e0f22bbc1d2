// block_place.h - instantiating one block (an operator or a subgraph recipe) on given
// input values: the graph generator's step for one digraph node.
//
// Each member is instantiated in Isra's order (ops/instantiate.h) through a source that
// pins the member's data-flow operands to the block inputs or earlier members' results
// (aligned with helper operators where the types differ, align.h), leaves the other
// operands fresh, sets the recipe's fixed and derived attributes after Isra's step (3) and
// may re-draw one attribute (the parameter mutation). Every member is evaluated as it is
// appended; if one cannot be used (unstable or non-finite results, an avoided
// configuration), the whole block is rolled back and the caller draws another.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gen/block_template.h"
#include "gen/config.h"
#include "gen/eval_builder.h"

namespace nnfuzz {

/// The recipe of operator `spec` holding `flows` data flows: in:0..flows-1 on its first
/// non-constant operand slots (the other slots are Isra's); nullopt when it has too few.
std::optional<SubgraphTemplate> operatorRecipe(const OpSpec& spec, int flows);

struct PlaceRequest {
  const SubgraphTemplate* recipe = nullptr;
  bool operatorBlock = false;     ///< a single operator: its arity may exceed the recipe's slots
  std::span<const ValueId> inputs;  ///< one per block input
  bool mutateParameter = false;   ///< re-draw one attribute of one member
};

struct Placement {
  std::vector<ValueId> outputs;         ///< the block's results, recipe order
  std::vector<NodeId> members;          ///< the member nodes
  std::vector<std::string> helperOps;   ///< the helper operators inserted, in order
  nlohmann::json parameterMutation;     ///< {"op", "attr", "from", "to"} or null
  int samePadding = 0;                  ///< members given same-size padding
};

/// Appends the block through `builder`; nullopt (and nothing appended) when it cannot be used.
std::optional<Placement> placeBlock(EvalBuilder& builder, const GenConfig& config, const PlaceRequest& request,
                                    Rng& rng);

}  // namespace nnfuzz
