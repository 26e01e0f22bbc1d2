// import.h - ONNX ModelProto to GraphIR, model file loading and schema versions.
//
// importModel accepts any model whose nodes are all nnfuzz operators in the default
// domain, with static tensor types: initializers become weights (also when listed as
// graph inputs), the other graph inputs become runtime inputs (in graph.input order,
// before all weights), Constant nodes become weights, node result types come from our
// inferNode (seeing constant operands' contents), and graph outputs keep their order.
// Anything else raises a one-line nnfuzz::Error naming the problem, e.g.
// "unsupported operator: Foo". Declared value_info and output types are not trusted;
// checkModel (checker.h) compares them. Graph attributes (If, Loop, Scan) become bodies:
// their input types come from the node (ops/control_flow.h), not their declarations, and
// a name a body does not define resolves in the enclosing graphs (an outer parameter and
// a capture of the node, graph.h).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "ir/graph.h"
#include "onnx/onnx_pb.h"
#include "support/error.h"

namespace nnfuzz {

/// The Error importModel raises when our shape inference rejects a node that ONNX allows
/// (an unmodelled form of the op, or a bug in our inference); other import Errors are
/// features nnfuzz does not model at all.
class InferenceRejected : public Error {
 public:
  using Error::Error;
};

Graph importModel(const onnx::ModelProto& model);

/// Parses a model file; one-line Error for a missing, unreadable or corrupt file.
onnx::ModelProto loadModelFile(const std::filesystem::path& path);
/// Parses model bytes; `what` names the source in errors.
onnx::ModelProto parseModel(const std::string& bytes, const std::string& what);

/// The model's opset for the default ONNX domain ("" or "ai.onnx"), or nullopt.
std::optional<int> defaultOpset(const onnx::ModelProto& model);

/// The highest default-domain opset the linked ONNX C++ library knows (17 for onnx 1.12).
int knownOpset();
/// since_version of the schema of `op` in force at `opset`, from the linked ONNX library;
/// nullopt when the op is unknown there or opset > knownOpset() (ask python's onnx then).
std::optional<int> schemaSinceVersion(const std::string& op, int opset);

/// Runtime input names of a model: graph inputs that are not initializers, in order.
std::vector<std::string> runtimeInputNames(const onnx::ModelProto& model);

}  // namespace nnfuzz
