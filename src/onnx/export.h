// export.h - GraphIR to ONNX ModelProto, and deterministic model serialisation.
//
// exportModel writes ir_version 8, opset_import {"": opset} (plus {domain: 1} for every
// other domain a node uses, e.g. com.microsoft, whose nodes carry it), producer "nnfuzz", and
// canonical names that depend only on the graph's structure:
//   runtime inputs  input_0, input_1, ...   (graph.inputs() order; typed graph inputs)
//   weights         weight_0, weight_1, ... (graph.weights() order; initializers only)
//   node results    output_K when the value is graph output K (first mention), else t0, t1, ...
//   nodes           <Op>_<k>, k counting live nodes in order
// Omitted optional operands become "" and trailing ones are dropped. Attributes map one
// to one (int -> INT, double -> FLOAT as float32, string -> STRING, ints -> INTS, floats ->
// FLOATS). Graph inputs, outputs and every intermediate (value_info) carry full static
// types. A graph output that is an input or weight, or a repeated output, keeps the name
// it already has. serializeModel is deterministic, so equal graphs give equal bytes.
// A body (graph attribute) is written as a GraphProto named <node>_<attribute>, its own
// names under the prefix "<node>_<attribute>/" so that the model has one namespace; it
// reads outer values by their names, and an output that it does not compute itself (a
// formal input, weight or outer value, or one returned twice) goes through an Identity.
#pragma once

#include <filesystem>
#include <string>

#include "ir/graph.h"
#include "onnx/onnx_pb.h"

namespace nnfuzz {

inline constexpr int kDefaultOpset = 17;
inline constexpr int kIrVersion = 8;
/// The version imported for a non-default domain (com.microsoft has only version 1).
inline constexpr int kOtherDomainOpset = 1;

onnx::ModelProto exportModel(const Graph& graph, int opset = kDefaultOpset);

/// Deterministic protobuf bytes of a model.
std::string serializeModel(const onnx::ModelProto& model);
void saveModelFile(const std::filesystem::path& path, const onnx::ModelProto& model);

/// An ONNX tensor type of a GraphIR type (used by export and the checker).
onnx::TypeProto toTypeProto(const TensorType& type);

}  // namespace nnfuzz
