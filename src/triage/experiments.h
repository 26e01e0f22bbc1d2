// experiments.h - variants of a reduced case that tell what a failure needs, beyond its nodes.
//
// The reducer keeps the nodes a failure needs; some failures also need how the case is written.
// An ONNX node omits an optional input by an empty name, and a frontend that turns every empty
// name into a placeholder of unknown rank fails in each operator's own words (a ConvTranspose
// without bias, a ReduceSum without axes, a QuantizeLinear without zero point), while the same
// nodes with those inputs simply left off (allowed for trailing ones) pass. Such an error is
// named by the experiment (fold.h's kOmittedInputExperiment), not by its words.
#pragma once

#include <optional>

#include "triage/reduce.h"

namespace nnfuzz {

/// The case with every node's trailing omitted inputs left off (the same model: an omitted
/// trailing input and an absent one mean the same); nullopt when no node has one.
std::optional<SubCase> withoutTrailingOmittedInputs(const SubCase& sub);

}  // namespace nnfuzz
