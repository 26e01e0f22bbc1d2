// model_mutations.h - Luo et al.'s mutations applied to an existing model (any imported ONNX
// model, ours or anyone's): what `nnfuzz mutate` does.
//
//  - tensor shape: one runtime input gets another size in one dimension;
//  - parameter: one attribute of one node takes the value a fresh draw of the op's own
//    sampler gives it (a random enum value or a random value in range);
//  - block node addition: a node whose result has its first operand's type is duplicated
//    after itself (the copy reads the original's result, the readers read the copy);
//  - block node removal: such a node is bypassed (its readers read its first operand).
// After the change every node's types are inferred again; a mutant our shape inference
// rejects is not a mutant (the caller draws again).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/graph.h"
#include "ops/op_spec.h"

namespace nnfuzz {

/// The parameter mutation's core: one attribute (present in `attrs` or in `redrawn`, not
/// in `fixed`) takes its value in `redrawn` (a fresh draw of the op's sampler), or its
/// default when `redrawn` lacks it. Returns {"op", "attr", "from", "to"}, or null when no
/// attribute can change.
nlohmann::json redrawOneAttribute(std::string_view op, Attributes& attrs, const Attributes& redrawn,
                                  const Attributes& fixed, Rng& rng);

/// Re-infers every node's result types in order, bodies included (their formal inputs and
/// outer parameters retyped first); the first node shape inference rejects.
std::optional<std::string> reinferTypes(Graph& graph);

/// Applies one random mutation of the four to `graph` (re-inferring its types) and says
/// what it did; nullopt (graph unusable, discard it) when the drawn mutation does not apply.
std::optional<nlohmann::json> mutateModel(Graph& graph, const Limits& limits, Rng& rng);

/// Runs `graph` on `inputs` and checks every node's results: finite, not huge, stable.
/// Returns the reference outputs, or nullopt.
std::optional<std::vector<Tensor>> referenceOutputs(const Graph& graph, const std::vector<Tensor>& inputs);

}  // namespace nnfuzz
