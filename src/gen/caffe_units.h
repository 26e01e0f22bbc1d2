// caffe_units.h - the generator's side of caffe/pattern.h: Caffe layers with no one-node
// ONNX twin, emitted as short runs of ONNX nodes (config "caffe_layers").
//
// With a Caffe format, isra draws a unit like an operator, at the odds the config's
// "caffe_layers" gives it: the unit appends its run on an existing float value (or a
// fresh runtime input), every node evaluated as usual, and keeps the run only if the
// exporter then writes it as the one layer it names. The run's interior results are
// withheld from reuse (a later reader would split the run), so the layer survives.
//
// Units: Power, Exp, Log (all three parameters), Reduction (with coeff), ArgMax, Crop,
// LRNWithinChannel (pattern_*.cpp), Bias (an Add of a weight spanning axes from `axis`,
// map_elementwise.cpp), Pooling (Caffe's pooling parameters drawn first, so its ceil
// rounding and last-window clipping come up often; map_conv.cpp).
#pragma once

#include <span>
#include <string_view>

#include "gen/config.h"
#include "gen/eval_builder.h"

namespace nnfuzz {

/// The unit names ("caffe_layers" keys), in a fixed order.
std::span<const std::string_view> caffeUnitNames();
/// The Caffe layer type a unit writes (e.g. LRNWithinChannel writes "LRN").
std::string_view caffeUnitLayer(std::string_view unit);

/// Appends the unit's run; false (nothing kept) when it found no operand, its values were
/// unusable or the exporter would not write it as one layer.
bool emitCaffeUnit(std::string_view unit, EvalBuilder& builder, const GenConfig& config, Rng& rng);

}  // namespace nnfuzz
