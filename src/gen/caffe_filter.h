// caffe_filter.h - generating only what Caffe can express (config "format": "caffe"/"both").
//
// Isra's order draws an operation as usual; then each fresh operand's kind follows its
// Caffe role (a layer parameter becomes a weight, a blob a runtime input, either one by
// weight_rate), and the node is kept only if caffe_export::mapNode accepts it, so every
// generated model exports to Caffe. Results Caffe has no top for (optional ones such as
// MaxPool's Indices) are never made graph outputs.
#pragma once

#include <vector>

#include "gen/value_pool.h"
#include "ops/instantiate.h"

namespace nnfuzz {

/// Decides which operands are weights (per operand), before their contents are drawn.
void caffeWeightKinds(const Graph& graph, const OpSpec& spec, const Instantiation& inst, double weightRate, Rng& rng,
                      std::vector<bool>& isWeight);
/// Whether the node has a Caffe form. `operandData` holds every operand's contents.
bool caffeAccepts(const OpSpec& spec, const Instantiation& inst, const std::vector<const Tensor*>& operandData,
                  const std::vector<bool>& isWeight);

/// Whether a node already in the graph has a Caffe form (a required sequence's members and
/// the helpers that align them are placed whole, then checked).
bool caffeAcceptsNode(const Graph& graph, NodeId node);

/// Drops graph outputs that are optional results (Caffe layers have no top for them).
void dropOptionalOutputs(const Graph& graph, std::vector<ValueId>& outputs);

}  // namespace nnfuzz
