// import.cpp - onnx::ModelProto -> GraphIR (rules in import.h).
#include "onnx/import.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include "onnx/defs/schema.h"
#include "onnx/model_guard.h"
#include "onnx/tensor_proto.h"
#include "ops/control_flow.h"
#include "ops/infer_node.h"
#include "ops/registry.h"
#include "ops/schema_history.h"
#include "ops/version_forms.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

bool isDefaultDomain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

bool identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// "com.microsoft": identifiers joined by dots, as the text form writes `domain.Op(...)`.
bool dottedIdentifier(const std::string& s) {
  size_t start = 0;
  for (size_t dot; (dot = s.find('.', start)) != std::string::npos; start = dot + 1)
    if (!identifier(s.substr(start, dot - start))) return false;
  return identifier(s.substr(start));
}

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
    case onnx::AttributeProto::GRAPHS:
      throw Error(where + " has a list of subgraphs '" + a.name() + "', which is not supported");
    default:
      throw Error(where + " attribute '" + a.name() + "' has type " + attrTypeName(a.type()) +
                  ", which is not supported");
  }
}

TensorType staticType(const onnx::ValueInfoProto& info, const char* kind = "graph input") {
  const std::string what = std::string(kind) + " '" + info.name() + "'";
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

namespace {

// Imports a graph and, recursively, its bodies. A body's names resolve in its own scope
// first, then in the enclosing ones: an enclosing value becomes an outer parameter of the
// body and a capture of the node being imported in the enclosing graph.
class GraphImporter {
 public:
  GraphImporter(const onnx::GraphProto& g, GraphImporter* parent, int opset)
      : proto_(g), parent_(parent), opset_(opset) {
    if (parent_) graph_.markBody();
    graph_.setOpset(opset);
  }

  // formals: the body's input types (nullopt: the main graph, typed by its declarations).
  Graph run(const std::optional<std::vector<TensorType>>& formals) {
    const onnx::GraphProto& g = proto_;
    if (g.sparse_initializer_size() > 0) throw Error("the model has sparse initializers, which are not supported");
    std::unordered_set<std::string> initNames;
    for (const auto& t : g.initializer()) initNames.insert(t.name());
    if (formals) {
      if (static_cast<size_t>(g.input_size()) != formals->size())
        throw Error("body '" + g.name() + "' has " + std::to_string(g.input_size()) + " inputs, its node gives " +
                    std::to_string(formals->size()));
      for (int k = 0; k < g.input_size(); ++k)
        define(g.input(k).name(), graph_.addInput((*formals)[static_cast<size_t>(k)]), "body input");
    } else {
      for (const auto& in : g.input())
        if (!initNames.count(in.name())) define(in.name(), graph_.addInput(staticType(in)), "graph input");
    }
    for (const auto& t : g.initializer()) {
      Tensor data;
      try {
        data = fromTensorProto(t);
      } catch (const Error& e) {
        throw Error("initializer '" + t.name() + "': " + e.what());
      }
      define(t.name(), graph_.addWeight(std::move(data)), "initializer");
    }
    for (int i = 0; i < g.node_size(); ++i) importNode(g.node(i), i);
    if (g.output_size() == 0) throw Error(parent_ ? "a body has no outputs" : "the model has no outputs");
    std::vector<ValueId> outputs;
    for (const auto& out : g.output()) {
      const ValueId v = lookup(out.name());
      if (v == kNoValue) throw Error("graph output '" + out.name() + "' is not defined");
      outputs.push_back(v);
    }
    graph_.setOutputs(std::move(outputs));
    return std::move(graph_);
  }

 private:
  void define(const std::string& name, ValueId id, const std::string& where) {
    if (name.empty()) return;
    if (!ids_.emplace(name, id).second) throw Error(where + " redefines value '" + name + "'");
  }

  // The value `name` names here, making an outer parameter for an enclosing one.
  ValueId lookup(const std::string& name) {
    if (auto it = ids_.find(name); it != ids_.end()) return it->second;
    if (!parent_) return kNoValue;
    const ValueId outer = parent_->lookup(name);
    if (outer == kNoValue) return kNoValue;
    auto& captures = parent_->nodeCaptures_;
    auto at = std::find(captures.begin(), captures.end(), outer);
    const auto capture = static_cast<uint32_t>(at - captures.begin());
    if (at == captures.end()) captures.push_back(outer);
    const ValueId param = graph_.addOuter(parent_->graph_.value(outer).type, capture);
    ids_.emplace(name, param);
    return param;
  }

  void importNode(const onnx::NodeProto& node, int i) {
    const std::string where = nodeLabel(node, i);
    if (!isDefaultDomain(node.domain())) {
      importOpaque(node, where);
      return;
    }
    if (node.op_type() == "Constant") {
      if (node.output_size() != 1) throw Error(where + " must have one output");
      define(node.output(0), graph_.addWeight(constantValue(node, where)), where);
      return;
    }
    const OpSpec* spec = findOp(node.op_type());
    if (!spec) throw Error("unsupported operator: " + node.op_type());
    std::vector<ValueId> inputs;
    std::vector<const TensorType*> types;
    std::vector<const Tensor*> constants;
    nodeCaptures_.clear();
    // Ids first: a lookup may add an outer parameter, which moves the graph's values.
    for (const std::string& name : node.input()) {
      if (name.empty()) {
        inputs.push_back(kNoValue);
        continue;
      }
      const ValueId id = lookup(name);
      if (id == kNoValue) throw Error(where + " reads undefined value '" + name + "'");
      inputs.push_back(id);
    }
    // Trailing empty names are kept (export writes them back) where the operator has room.
    while (!inputs.empty() && inputs.back() == kNoValue && inputs.size() > static_cast<size_t>(spec->maxInputs))
      inputs.pop_back();
    // Pointers into the graph's values: taken again after bodies import, which may add
    // outer parameters to this graph too (names from further out).
    auto pointOperands = [&] {
      types.clear();
      constants.clear();
      for (ValueId id : inputs) {
        const Value* v = id == kNoValue ? nullptr : &graph_.value(id);
        types.push_back(v ? &v->type : nullptr);
        constants.push_back(v && v->data ? &*v->data : nullptr);
      }
    };
    pointOperands();
    if (types.empty()) throw Error(where + " has no inputs");
    Attributes attrs;
    for (const auto& a : node.attribute())
      if (a.type() != onnx::AttributeProto::GRAPH) attrs.set(a.name(), attrValue(a, where));
    if (opset_ != kCanonicalOpset) {
      toCanonical(node, where, inputs, attrs);
      pointOperands();
    }
    for (const auto& a : node.attribute()) {
      if (a.type() != onnx::AttributeProto::GRAPH) continue;
      if (!isIdentifier(a.name())) throw Error(where + " has an attribute whose name is not an identifier");
      const BodyFormals formals = bodyFormals(node.op_type(), a.name(), types, attrs);
      if (!formals.error.empty()) throw InferenceRejected(where + ": " + formals.error);
      if (depth() >= kMaxBodyDepth) throw Error(where + " nests bodies more than " + std::to_string(kMaxBodyDepth) + " deep");
      GraphImporter body(a.g(), this, opset_);
      attrs.setGraph(a.name(), GraphAttr(body.run(formals.types)));
      pointOperands();
    }
    InferResult r = inferNode(*spec, types, constants, attrs);
    if (!r.ok()) throw InferenceRejected(where + ": " + r.error);
    for (const TensorType& t : r.types)
      if (elementCount(t) > static_cast<double>(ModelBudget{}.maxTensorElements))
        throw Error(where + " makes a tensor " + toString(t) + " of more than " +
                    std::to_string(ModelBudget{}.maxTensorElements) + " elements");
    if (static_cast<size_t>(node.output_size()) > r.types.size())
      throw Error(where + " has " + std::to_string(node.output_size()) + " outputs, nnfuzz models " +
                  std::to_string(r.types.size()));
    const NodeId id = graph_.addNode(node.op_type(), inputs, std::move(attrs), r.types, std::move(nodeCaptures_));
    nodeCaptures_.clear();
    for (int k = 0; k < node.output_size(); ++k)
      define(node.output(k), graph_.node(id).outputs[static_cast<size_t>(k)], where);
  }

  // A node of another domain (com.microsoft, ...): no spec, so its result types are the
  // model's declarations (value_info or graph outputs), which every result must have.
  void importOpaque(const onnx::NodeProto& node, const std::string& where) {
    if (parent_) throw Error(where + " is in domain '" + node.domain() + "', which bodies may not use");
    if (!dottedIdentifier(node.domain()) || !identifier(node.op_type()))
      throw Error(where + ": domain '" + node.domain() + "' and operator '" + node.op_type() + "' must be identifiers");
    for (const auto& a : node.attribute())
      if (a.type() == onnx::AttributeProto::GRAPH) throw Error(where + " is in domain '" + node.domain() + "' and has a body");
    std::vector<ValueId> inputs;
    for (const std::string& name : node.input()) {
      const ValueId id = name.empty() ? kNoValue : lookup(name);
      if (!name.empty() && id == kNoValue) throw Error(where + " reads undefined value '" + name + "'");
      inputs.push_back(id);
    }
    while (!inputs.empty() && inputs.back() == kNoValue) inputs.pop_back();
    Attributes attrs;
    for (const auto& a : node.attribute()) attrs.set(a.name(), attrValue(a, where));
    std::vector<TensorType> types;
    for (const std::string& name : node.output()) {
      const onnx::ValueInfoProto* declared = name.empty() ? nullptr : declaration(name);
      if (!declared || !declared->has_type())
        throw Error(where + " is in domain '" + node.domain() + "': its result '" + name + "' needs a declared type");
      types.push_back(staticType(*declared, "result"));
    }
    const NodeId id = graph_.addNode(node.op_type(), inputs, std::move(attrs), types);
    graph_.node(id).domain = node.domain();
    for (int k = 0; k < node.output_size(); ++k)
      define(node.output(k), graph_.node(id).outputs[static_cast<size_t>(k)], where);
  }

  const onnx::ValueInfoProto* declaration(const std::string& name) const {
    for (const auto& v : proto_.value_info())
      if (v.name() == name) return &v;
    for (const auto& v : proto_.output())
      if (v.name() == name) return &v;
    return nullptr;
  }

  int depth() const { return parent_ ? parent_->depth() + 1 : 0; }

  // Rewrites a node written in opset_'s form into the canonical one: constants the form
  // adds become weights, inputs that become attributes are dropped.
  void toCanonical(const onnx::NodeProto& node, const std::string& where, std::vector<ValueId>& inputs,
                   Attributes& attrs) {
    std::vector<const TensorType*> types;
    std::vector<const Tensor*> constants;
    for (ValueId id : inputs) {
      const Value* v = id == kNoValue ? nullptr : &graph_.value(id);
      types.push_back(v ? &v->type : nullptr);
      constants.push_back(v && v->data ? &*v->data : nullptr);
    }
    NodeForm form = canonicalFrom(NodeView{node.op_type(), types, constants, attrs, static_cast<size_t>(node.output_size())}, opset_);
    if (!form.ok()) throw InferenceRejected(where + ": " + form.error);
    std::vector<ValueId> canonical;
    for (FormOperand& in : form.inputs)
      canonical.push_back(in.empty() ? kNoValue
                          : in.constant ? graph_.addWeight(std::move(*in.constant))
                                        : inputs[static_cast<size_t>(in.operand)]);
    inputs = std::move(canonical);
    attrs = std::move(form.attrs);
  }

  static constexpr int kMaxBodyDepth = 16;
  const onnx::GraphProto& proto_;
  GraphImporter* parent_;
  int opset_;
  Graph graph_;
  std::unordered_map<std::string, ValueId> ids_;
  std::vector<ValueId> nodeCaptures_;  // of the node being imported
};

}  // namespace

Graph importModel(const onnx::ModelProto& model) {
  const auto opset = defaultOpset(model);
  if (!opset) throw Error("the model imports no opset of the default ONNX domain");
  // Opsets before 7 are read as 7 (the oldest forms nnfuzz knows), newer ones than 21 as
  // their own (the forms of 21 where no later change is known); the node-test harness
  // compares schema versions itself.
  return GraphImporter(model.graph(), nullptr, std::max(*opset, kMinOpset)).run(std::nullopt);
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
