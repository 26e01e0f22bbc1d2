// op_notes.h - what the ONNX specification says about an operator, in a sentence or three:
// the semantics and the attributes a bug report needs (defaults, edge cases, broadcasting),
// summarised in our own words from the ONNX operator documentation. Compiled in, so a bug
// bundle's README can quote it without a network; covers every operator of src/ops/ops.def.
#pragma once

#include <optional>
#include <string>

namespace nnfuzz {

/// The note on `op` (an ONNX operator type of the default domain), or nullopt when we have none.
std::optional<std::string> onnxOpNote(const std::string& op);

/// The operator's page in the ONNX documentation.
std::string onnxOpDocUrl(const std::string& op);

}  // namespace nnfuzz
