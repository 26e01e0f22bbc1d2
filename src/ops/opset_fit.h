// opset_fit.h - whether a whole graph can be written at an opset (version_forms.h).
#pragma once

#include <optional>
#include <string>

#include "ir/graph.h"

namespace nnfuzz {

/// The first node (bodies included) that `opset` cannot express, as one line, or nullopt.
/// Passes that rewrite a graph (the reducer, the mutator) drop candidates it names.
std::optional<std::string> opsetMisfit(const Graph& graph, int opset);

}  // namespace nnfuzz
