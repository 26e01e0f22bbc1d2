// control_flow.h - what import and the generators need to know of bodies' signatures.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attributes.h"
#include "ir/tensor.h"

namespace nnfuzz {

/// The types of the formal inputs of body `body` of a node of `op` (If, Loop, Scan) with
/// these operand types (nullptr = omitted) and attributes (bodies themselves not read),
/// or an error text.
struct BodyFormals {
  std::vector<TensorType> types;
  std::string error;
};
BodyFormals bodyFormals(std::string_view op, std::string_view body, const std::vector<const TensorType*>& operands,
                        const Attributes& attrs);

}  // namespace nnfuzz
