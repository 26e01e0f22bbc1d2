// import.cpp - onnx::ModelProto -> GraphIR (rules in import.h).
#include "onnx/import.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include "onnx/defs/schema.h"
#include "onnx/model_guard.h"
#include "onnx/tensor_proto.h"
#include "ops/infer_node.h"
#include "ops/registry.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

bool isDefaultDomain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

std::string nodeLabel(const onnx::NodeProto& node, int index) {
  std::string label = "node " + std::to_string(index);
  if (!node.name().empty()) label += " '" + node.name() + "'";
  return label + " (" + node.op_type() + ")";
}

const char* attrTypeName(int type) {
  switch (type) {
    case onnx::AttributeProto::FLOAT: return "FLOAT";
    case onnx::AttributeProto::INT: return "INT";
    case onnx::AttributeProto::STRING: return "STRING";
    case onnx::AttributeProto::TENSOR: return "TENSOR";
    case onnx::AttributeProto::GRAPH: return "GRAPH";
    case onnx::AttributeProto::SPARSE_TENSOR: return "SPARSE_TENSOR";
    case onnx::AttributeProto::TYPE_PROTO: return "TYPE_PROTO";
    case onnx::AttributeProto::FLOATS: return "FLOATS";
    case onnx::AttributeProto::INTS: return "INTS";
    case onnx::AttributeProto::STRINGS: return "STRINGS";
    case onnx::AttributeProto::TENSORS: return "TENSORS";
    case onnx::AttributeProto::GRAPHS: return "GRAPHS";
    case onnx::AttributeProto::SPARSE_TENSORS: return "SPARSE_TENSORS";
    case onnx::AttributeProto::TYPE_PROTOS: return "TYPE_PROTOS";
    default: return "UNDEFINED";
  }
}

// ONNX attribute names are identifiers; anything else could not be written as text IR.
bool isIdentifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

AttrValue attrValue(const onnx::AttributeProto& a, const std::string& where) {
  if (!isIdentifier(a.name())) throw Error(where + " has an attribute whose name is not an identifier");
  if (!a.ref_attr_name().empty())
    throw Error(where + " attribute '" + a.name() + "' refers to a function attribute, which is not supported");
  switch (a.type()) {
    case onnx::AttributeProto::INT: return a.i();
    case onnx::AttributeProto::FLOAT: return static_cast<double>(a.f());
    case onnx::AttributeProto::STRING: return a.s();
    case onnx::AttributeProto::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case onnx::AttributeProto::FLOATS: {
      std::vector<double> v;
      for (float f : a.floats()) v.push_back(static_cast<double>(f));
      return v;
    }
    case onnx::AttributeProto::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
    case onnx::AttributeProto::GRAPH:
    case onnx::AttributeProto::GRAPHS:
      throw Error(where + " has a subgraph attribute '" + a.name() + "', which is not supported");
    default:
      throw Error(where + " attribute '" + a.name() + "' has type " + attrTypeName(a.type()) +
                  ", which is not supported");
  }
}

TensorType staticType(const onnx::ValueInfoProto& info) {
  const std::string what = "graph input '" + info.name() + "'";
  if (!info.has_type()) throw Error(what + " has no type");
  if (!info.type().has_tensor_type()) throw Error(what + " is not a tensor, which is not supported");
  const auto& tt = info.type().tensor_type();
  TensorType type{dtypeOfOnnx(tt.elem_type(), what), {}};
  if (!tt.has_shape()) throw Error(what + " has an unknown shape");
  for (const auto& dim : tt.shape().dim()) {
    if (!dim.has_dim_value())
      throw Error(what + " has a dynamic dimension" + (dim.has_dim_param() ? " '" + dim.dim_param() + "'" : ""));
    if (dim.dim_value() < 0) throw Error(what + " has a negative dimension");
    type.shape.push_back(dim.dim_value());
  }
  return type;
}

// The tensor a Constant node holds, from whichever value attribute it uses.
Tensor constantValue(const onnx::NodeProto& node, const std::string& where) {
  if (node.attribute_size() != 1) throw Error(where + " must have exactly one value attribute");
  const auto& a = node.attribute(0);
  const std::string& n = a.name();
  if (n == "value") {
    if (a.type() != onnx::AttributeProto::TENSOR) throw Error(where + " attribute 'value' is not a tensor");
    try {
      return fromTensorProto(a.t());
    } catch (const Error& e) {
      throw Error(where + ": " + e.what());
    }
  }
  if (n == "value_float") return Tensor(TensorType{DType::Float32, {}}, {static_cast<double>(a.f())});
  if (n == "value_int") return Tensor(TensorType{DType::Int64, {}}, {static_cast<double>(a.i())});
  if (n == "value_floats") {
    Tensor t(TensorType{DType::Float32, {a.floats_size()}});
    for (int i = 0; i < a.floats_size(); ++i) t.data[static_cast<size_t>(i)] = static_cast<double>(a.floats(i));
    return t;
  }
  if (n == "value_ints") {
    Tensor t(TensorType{DType::Int64, {a.ints_size()}});
    for (int i = 0; i < a.ints_size(); ++i) t.data[static_cast<size_t>(i)] = static_cast<double>(a.ints(i));
    return t;
  }
  throw Error(where + " attribute '" + n + "' is not supported");
}

}  // namespace

std::optional<int> defaultOpset(const onnx::ModelProto& model) {
  for (const auto& imp : model.opset_import())
    if (isDefaultDomain(imp.domain())) return static_cast<int>(imp.version());
  return std::nullopt;
}

int knownOpset() {
  const auto& map = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = map.find("");
  return it == map.end() ? 0 : it->second.second;
}

std::optional<int> schemaSinceVersion(const std::string& op, int opset) {
  if (opset > knownOpset()) return std::nullopt;
  const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(op, opset, "");
  if (!schema) return std::nullopt;
  return schema->since_version();
}

std::vector<std::string> runtimeInputNames(const onnx::ModelProto& model) {
  std::unordered_set<std::string> inits;
  for (const auto& t : model.graph().initializer()) inits.insert(t.name());
  std::vector<std::string> names;
  for (const auto& in : model.graph().input())
    if (!inits.count(in.name())) names.push_back(in.name());
  return names;
}

Graph importModel(const onnx::ModelProto& model) {
  if (!defaultOpset(model)) throw Error("the model imports no opset of the default ONNX domain");
  const onnx::GraphProto& g = model.graph();
  if (g.sparse_initializer_size() > 0) throw Error("the model has sparse initializers, which are not supported");
  Graph graph;
  std::unordered_map<std::string, ValueId> ids;
  auto define = [&](const std::string& name, ValueId id, const std::string& where) {
    if (name.empty()) return;
    if (!ids.emplace(name, id).second) throw Error(where + " redefines value '" + name + "'");
  };

  std::unordered_set<std::string> initNames;
  for (const auto& t : g.initializer()) initNames.insert(t.name());
  for (const auto& in : g.input())
    if (!initNames.count(in.name())) define(in.name(), graph.addInput(staticType(in)), "graph input");
  for (const auto& t : g.initializer()) {
    Tensor data;
    try {
      data = fromTensorProto(t);
    } catch (const Error& e) {
      throw Error("initializer '" + t.name() + "': " + e.what());
    }
    define(t.name(), graph.addWeight(std::move(data)), "initializer");
  }

  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& node = g.node(i);
    const std::string where = nodeLabel(node, i);
    if (!isDefaultDomain(node.domain()))
      throw Error(where + " is in domain '" + node.domain() + "', which is not supported");
    if (node.op_type() == "Constant") {
      if (node.output_size() != 1) throw Error(where + " must have one output");
      define(node.output(0), graph.addWeight(constantValue(node, where)), where);
      continue;
    }
    const OpSpec* spec = findOp(node.op_type());
    if (!spec) throw Error("unsupported operator: " + node.op_type());
    Attributes attrs;
    for (const auto& a : node.attribute()) attrs.set(a.name(), attrValue(a, where));
    std::vector<ValueId> inputs;
    std::vector<const TensorType*> types;
    std::vector<const Tensor*> constants;
    for (const std::string& name : node.input()) {
      if (name.empty()) {
        inputs.push_back(kNoValue);
        types.push_back(nullptr);
        constants.push_back(nullptr);
        continue;
      }
      auto it = ids.find(name);
      if (it == ids.end()) throw Error(where + " reads undefined value '" + name + "'");
      const Value& v = graph.value(it->second);
      inputs.push_back(it->second);
      types.push_back(&v.type);
      constants.push_back(v.data ? &*v.data : nullptr);
    }
    while (!types.empty() && !types.back()) {
      inputs.pop_back();
      types.pop_back();
      constants.pop_back();
    }
    if (types.empty()) throw Error(where + " has no inputs");
    InferResult r = inferNode(*spec, types, constants, attrs);
    if (!r.ok()) throw InferenceRejected(where + ": " + r.error);
    for (const TensorType& t : r.types)
      if (elementCount(t) > static_cast<double>(ModelBudget{}.maxTensorElements))
        throw Error(where + " makes a tensor " + toString(t) + " of more than " +
                    std::to_string(ModelBudget{}.maxTensorElements) + " elements");
    if (static_cast<size_t>(node.output_size()) > r.types.size())
      throw Error(where + " has " + std::to_string(node.output_size()) + " outputs, nnfuzz models " +
                  std::to_string(r.types.size()));
    const NodeId id = graph.addNode(node.op_type(), inputs, std::move(attrs), r.types);
    for (int k = 0; k < node.output_size(); ++k)
      define(node.output(k), graph.node(id).outputs[static_cast<size_t>(k)], where);
  }

  if (g.output_size() == 0) throw Error("the model has no outputs");
  std::vector<ValueId> outputs;
  for (const auto& out : g.output()) {
    auto it = ids.find(out.name());
    if (it == ids.end()) throw Error("graph output '" + out.name() + "' is not defined");
    outputs.push_back(it->second);
  }
  graph.setOutputs(std::move(outputs));
  return graph;
}

onnx::ModelProto parseModel(const std::string& bytes, const std::string& what) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) throw Error(what + " is not a valid ONNX model (protobuf parse failed)");
  if (!model.has_graph()) throw Error(what + " is not a valid ONNX model (it has no graph)");
  if (auto problem = guardModel(model)) throw Error(what + " is refused: " + *problem);
  return model;
}

onnx::ModelProto loadModelFile(const std::filesystem::path& path) {
  return parseModel(readFileBytes(path), path.string());
}

}  // namespace nnfuzz
