// model_check.h - ONNX's own validity checks on a model, optionally against our types.
//
// checkModel is python's onnx.checker.check_model(model, full_check=True): the structural
// checker, then strict shape inference with type checking on a copy whose value_info is
// cleared. With `ours` (the graph the model was exported from or imported into), the
// types ONNX infers for every node result, and the declared graph input and output types,
// must equal ours exactly; models and graphs are paired node by node in order (Constant
// nodes of the model are skipped, import turns them into weights). Returns the first
// problem as one line, or nullopt when the model is fine.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ir/graph.h"
#include "onnx/onnx_pb.h"

namespace nnfuzz {

std::optional<std::string> checkModel(const onnx::ModelProto& model, const Graph* ours = nullptr);

/// How long checkModelContained waits for ONNX's verdict.
inline constexpr int kContainedCheckSeconds = 60;

/// checkModel for models from outside: ONNX's checker and shape inference run in a child
/// process (forked at the first call, kept for the next ones), because libonnx has crashes
/// of its own on hostile models (ONNX 1.12's STFT inference reads past a rank-1 signal's
/// dims). A child that crashes or runs over kContainedCheckSeconds is that model's problem,
/// in one line, and the next call starts another. Our comparison runs here. Calls are
/// serialized. Make the first call before starting threads: fork keeps only the caller.
std::optional<std::string> checkModelContained(const onnx::ModelProto& model, const Graph* ours = nullptr);

/// Ops whose result dims ONNX 1.12's inference leaves symbolic: Einsum infers the rank only,
/// OneHot reads only an integer depth, and the value-dependent ones do not read their
/// constant operands; a Loop's scan outputs have as many rows as iterations, which ONNX
/// leaves symbolic.
bool onnxLeavesDimsSymbolic(std::string_view op);

}  // namespace nnfuzz
