// padding.h - Luo et al.'s "same" padding (§III-G, formulas 9-13): for Conv, ConvTranspose,
// MaxPool and AveragePool, choose stride 1 and pads so the output keeps the input's
// spatial size. With stride 1, formula (9) = (10) gives pads_begin + pads_end = d(f - 1);
// nnfuzz splits them floor/ceil, and where a pool would then pad as much as its kernel
// (ONNX pools need pads < kernel, formula 11), its dilation goes back to 1.
#pragma once

#include "ops/instantiate.h"

namespace nnfuzz {

/// True if `op` has padding the solver handles.
bool hasSpatialPadding(std::string_view op);
/// Rewrites `inst`'s attributes and output types for same-size output; false (and `inst`
/// unchanged) when the op has no such padding or shape inference rejects the result.
bool solveSamePadding(const OpSpec& spec, Instantiation& inst);

}  // namespace nnfuzz
