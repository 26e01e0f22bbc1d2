// export.h - GraphIR to ONNX ModelProto, and deterministic model serialisation.
//
// exportModel writes opset_import {"": opset} (by default the graph's own; plus {domain: 1}
// for every other domain a node uses, e.g. com.microsoft, whose nodes carry it), the
// ir_version that opset came with (irVersionFor), producer "nnfuzz", each default-domain node
// in that opset's form (ops/version_forms.h: a constant the form adds is an initializer
// const_K), and
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
#include <vector>

#include "ir/graph.h"
#include "ops/version_forms.h"
#include "onnx/onnx_pb.h"

namespace nnfuzz {

inline constexpr int kDefaultOpset = kCanonicalOpset;
/// The version imported for a non-default domain (com.microsoft has only version 1).
inline constexpr int kOtherDomainOpset = 1;

/// The ir_version an opset was released with (7, 8 -> 3; 9 -> 4; ... 21 -> 10).
int irVersionFor(int opset);
/// Before ir_version 4 every initializer must also be a graph input.
inline bool initializersAreInputs(int opset) { return irVersionFor(opset) < 4; }

/// The names export gave the main graph's inputs and outputs, in order.
struct ExportedNames {
  std::vector<std::string> inputs, outputs;
};

/// The model's bytes, as serializeModel(exportModel(graph, opset)) would give them; written
/// on the wire (onnx/wire.h) without building protobuf objects. opset 0: the graph's own
/// (Graph::opset). Throws nnfuzz::Error naming a node the opset cannot express.
std::string exportModelBytes(const Graph& graph, int opset = 0, ExportedNames* names = nullptr);
/// The same model parsed into protobuf objects, for those who read it (the checker, bundles).
onnx::ModelProto exportModel(const Graph& graph, int opset = 0);
/// The ONNX form of node `n` of `graph` at `opset` (ops/version_forms.h).
NodeForm nodeFormAt(const Graph& graph, const Node& n, int opset, bool copyAttributes = true);

/// Deterministic protobuf bytes of a model.
std::string serializeModel(const onnx::ModelProto& model);
void saveModelFile(const std::filesystem::path& path, const onnx::ModelProto& model);

/// An ONNX tensor type of a GraphIR type (used by export and the checker).
onnx::TypeProto toTypeProto(const TensorType& type);

}  // namespace nnfuzz
