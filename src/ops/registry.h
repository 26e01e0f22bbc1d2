// registry.h - the list of operators nnfuzz knows, in the order of ops.def.
//
// The order is the sorted ops.def, never link or static-initialisation order, so a seed
// replays the same way on every build.
#pragma once

#include <span>
#include <string_view>

#include "ops/op_spec.h"

namespace nnfuzz {

std::span<const OpSpec* const> allOps();
/// The spec of an ONNX op type, or nullptr if nnfuzz does not know it.
const OpSpec* findOp(std::string_view name);

}  // namespace nnfuzz
