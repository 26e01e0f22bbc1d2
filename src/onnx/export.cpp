// export.cpp - GraphIR -> onnx::ModelProto (naming rules in export.h).
#include "onnx/export.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <unordered_set>

#include "onnx/tensor_proto.h"
#include "ops/registry.h"
#include "ops/version_forms.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

void setAttribute(onnx::AttributeProto& a, const std::string& name, const AttrValue& value) {
  a.set_name(name);
  if (auto* i = std::get_if<int64_t>(&value)) {
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(*i);
  } else if (auto* f = std::get_if<double>(&value)) {
    a.set_type(onnx::AttributeProto::FLOAT);
    a.set_f(static_cast<float>(*f));
  } else if (auto* s = std::get_if<std::string>(&value)) {
    a.set_type(onnx::AttributeProto::STRING);
    a.set_s(*s);
  } else if (auto* is = std::get_if<std::vector<int64_t>>(&value)) {
    a.set_type(onnx::AttributeProto::INTS);
    for (int64_t x : *is) a.add_ints(x);
  } else if (auto* fs = std::get_if<std::vector<double>>(&value)) {
    a.set_type(onnx::AttributeProto::FLOATS);
    for (double x : *fs) a.add_floats(static_cast<float>(x));
  } else if (auto* ss = std::get_if<std::vector<std::string>>(&value)) {
    a.set_type(onnx::AttributeProto::STRINGS);
    for (const std::string& x : *ss) a.add_strings(x);
  } else {
    throw Error("attribute '" + name + "' holds a graph; exportGraph writes bodies");
  }
}

void setTypeProto(onnx::TypeProto& t, const TensorType& type) {
  auto* tensor = t.mutable_tensor_type();
  tensor->set_elem_type(onnxElemType(type.dtype));
  auto* shape = tensor->mutable_shape();  // present even for scalars: rank 0 is known
  for (int64_t d : type.shape) shape->add_dim()->set_dim_value(d);
}

void addValueInfo(onnx::ValueInfoProto* info, const std::string& name, const TensorType& type) {
  info->set_name(name);
  setTypeProto(*info->mutable_type(), type);  // in place: no TypeProto copied
}

// A constant operand: an initializer (also a graph input before ir_version 4), or in a body
// before ir_version 4, where initializers would have to be body inputs, a Constant node.
void addConstant(onnx::GraphProto& g, const std::string& name, const Tensor& value, bool body, int opset) {
  if (body && initializersAreInputs(opset)) {
    onnx::NodeProto& node = *g.add_node();
    node.set_name(name);
    node.set_op_type("Constant");
    node.add_output(name);
    onnx::AttributeProto& a = *node.add_attribute();
    a.set_name("value");
    a.set_type(onnx::AttributeProto::TENSOR);
    setTensorProto(*a.mutable_t(), value, name);
    return;
  }
  setTensorProto(*g.add_initializer(), value, name);
  if (!body && initializersAreInputs(opset)) addValueInfo(g.add_input(), name, value.type);
}

}  // namespace

onnx::TypeProto toTypeProto(const TensorType& type) {
  onnx::TypeProto t;
  setTypeProto(t, type);
  return t;
}

namespace {

// Writes `graph` into `g`. `outerNames` names the owning node's captures (bodies only);
// `prefix` makes a body's names unique in the model (ONNX wants one namespace).
void exportGraph(const Graph& graph, onnx::GraphProto& g, const std::string& prefix,
                 const std::vector<std::string>* outerNames, int opset) {
  const bool body = outerNames != nullptr;
  // By value id (empty: not named yet); vectors, not hash maps: ids are dense.
  std::vector<std::string> names(graph.valueCapacity());
  const auto nameOf = [&](ValueId v) -> const std::string& {
    if (v >= names.size() || names[v].empty()) throw Error("value %" + std::to_string(v) + " is not defined");
    return names[v];
  };
  const auto inputs = graph.inputs();
  for (size_t k = 0; k < inputs.size(); ++k) {
    names[inputs[k]] = prefix + "input_" + std::to_string(k);
    addValueInfo(g.add_input(), names[inputs[k]], graph.value(inputs[k]).type);
  }
  // Each node's form at the opset first: a weight that only became an attribute (Slice's
  // starts before opset 10, say) is left out.
  const std::vector<NodeId>& order = graph.order();
  std::vector<NodeForm> forms;  // by position in order
  forms.reserve(order.size());
  std::vector<bool> read(graph.valueCapacity(), false);
  for (ValueId v : graph.outputs()) read[v] = true;
  for (NodeId id : order) {
    const Node& n = graph.node(id);
    NodeForm form = nodeFormAt(graph, n, opset);
    if (!form.ok()) throw Error("cannot export node " + std::to_string(id) + ": " + form.error);
    for (const FormOperand& in : form.inputs)
      if (in.operand >= 0) read[n.inputs[static_cast<size_t>(in.operand)]] = true;
    for (ValueId c : n.captures) read[c] = true;
    forms.push_back(std::move(form));
  }
  std::vector<ValueId> weights;
  for (ValueId w : graph.weights())
    if (read[w] || opset == kCanonicalOpset) weights.push_back(w);
  for (size_t k = 0; k < weights.size(); ++k) {
    names[weights[k]] = prefix + "weight_" + std::to_string(k);
    addConstant(g, names[weights[k]], *graph.value(weights[k]).data, body, opset);
  }
  size_t formConstants = 0;  // constants a version's form adds (an attribute turned input)
  if (body)
    for (ValueId p : graph.paramList())
      if (graph.value(p).kind == ValueKind::Outer) names[p] = outerNames->at(graph.value(p).capture);
  const auto& outputs = graph.outputs();
  for (size_t k = 0; k < outputs.size(); ++k)
    if (graph.value(outputs[k]).kind == ValueKind::Result && names[outputs[k]].empty())
      names[outputs[k]] = prefix + "output_" + std::to_string(k);

  std::vector<bool> graphOutput(graph.valueCapacity(), false);
  for (ValueId v : outputs) graphOutput[v] = true;
  size_t temp = 0, nodeIndex = 0;
  std::vector<std::string> inputNames;  // one node's; kept across nodes so it grows once
  for (size_t position = 0; position < order.size(); ++position) {
    const Node& n = graph.node(order[position]);
    const NodeForm& form = forms[position];
    // Constants the form adds come first: in a body before ir_version 4 they are nodes.
    inputNames.clear();
    for (const FormOperand& in : form.inputs) {
      if (in.empty()) {
        inputNames.emplace_back();
      } else if (in.constant) {
        // Named as import names initializers, so export -> import -> export is the identity.
        inputNames.push_back(prefix + "weight_" + std::to_string(weights.size() + formConstants++));
        addConstant(g, inputNames.back(), *in.constant, body, opset);
      } else {
        inputNames.push_back(nameOf(n.inputs[static_cast<size_t>(in.operand)]));
      }
    }
    onnx::NodeProto& node = *g.add_node();
    const std::string nodeName = prefix + n.op + "_" + std::to_string(nodeIndex++);
    node.set_name(nodeName);
    node.set_op_type(form.op);
    if (!n.domain.empty()) node.set_domain(n.domain);
    for (const std::string& name : inputNames) node.add_input(name);
    const OpSpec* spec = findOp(n);
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const ValueId v = n.outputs[k];
      // An optional result nobody reads is left absent (an empty name), as ONNX allows.
      if (spec && spec->isOptionalOutput(k) && graph.value(v).uses.empty() && !graphOutput[v]) {
        node.add_output(std::string());
        continue;
      }
      if (names[v].empty()) {
        names[v] = prefix + "t" + std::to_string(temp++);
        addValueInfo(g.add_value_info(), names[v], graph.value(v).type);
      }
      node.add_output(names[v]);
    }
    while (node.output_size() > 0 && node.output(node.output_size() - 1).empty()) node.mutable_output()->RemoveLast();
    std::vector<std::string> captureNames;
    for (ValueId c : n.captures) captureNames.push_back(nameOf(c));
    for (const auto& [key, value] : form.attrs) {
      onnx::AttributeProto& a = *node.add_attribute();
      if (const auto* sub = std::get_if<GraphAttr>(&value)) {
        a.set_name(key);
        a.set_type(onnx::AttributeProto::GRAPH);
        a.mutable_g()->set_name(nodeName + "_" + key);
        exportGraph(sub->graph(), *a.mutable_g(), nodeName + "_" + key + "/", &captureNames, opset);
      } else {
        setAttribute(a, key, value);
      }
    }
  }
  // A body's output must be made inside it: a formal input, weight or outer value it
  // returns, or one it returns twice, goes through an Identity.
  std::unordered_set<ValueId> returned;
  for (size_t k = 0; k < outputs.size(); ++k) {
    const ValueId v = outputs[k];
    if (names[v].empty()) throw Error("graph output %" + std::to_string(v) + " is not defined");
    std::string name = names[v];
    if (body && (graph.value(v).kind != ValueKind::Result || !returned.insert(v).second)) {
      onnx::NodeProto& copy = *g.add_node();
      copy.set_name(prefix + "Identity_output_" + std::to_string(k));
      copy.set_op_type("Identity");
      copy.add_input(name);
      name = prefix + "output_" + std::to_string(k);
      copy.add_output(name);
    }
    addValueInfo(g.add_output(), name, graph.value(v).type);
  }
}

}  // namespace

int irVersionFor(int opset) {
  if (opset <= 8) return 3;
  if (opset <= 11) return opset - 5;  // 9 -> 4, 10 -> 5, 11 -> 6
  if (opset <= 14) return 7;
  if (opset <= 18) return 8;
  if (opset <= 20) return 9;
  return 10;
}

NodeForm nodeFormAt(const Graph& graph, const Node& n, int opset) {
  OperandTypes types;
  OperandConstants constants;
  for (ValueId v : n.inputs) {
    types.push_back(v == kNoValue ? nullptr : &graph.value(v).type);
    constants.push_back(v == kNoValue || !graph.value(v).data ? nullptr : &*graph.value(v).data);
  }
  // Another domain's operator has one version (kOtherDomainOpset): its canonical form.
  return formAt(NodeView{n.op, types, constants, n.attrs, n.outputs.size()}, n.domain.empty() ? opset : kCanonicalOpset);
}

onnx::ModelProto exportModel(const Graph& graph, int opset) {
  onnx::ModelProto model;
  exportModelTo(graph, model, opset);
  return model;
}

std::string exportModelBytes(const Graph& graph, int opset) {
  google::protobuf::Arena arena;
  auto& model = *google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
  exportModelTo(graph, model, opset);
  return serializeModel(model);
}

void exportModelTo(const Graph& graph, onnx::ModelProto& model, int opset) {
  if (opset == 0) opset = graph.opset();
  model.set_ir_version(irVersionFor(opset));
  model.set_producer_name("nnfuzz");
  auto* imp = model.add_opset_import();
  imp->set_domain("");
  imp->set_version(opset);
  for (const std::string& domain : domainsUsed(graph)) {
    auto* other = model.add_opset_import();
    other->set_domain(domain);
    other->set_version(kOtherDomainOpset);
  }
  onnx::GraphProto& g = *model.mutable_graph();
  g.set_name("nnfuzz");
  exportGraph(graph, g, "", nullptr, opset);
}

std::string serializeModel(const onnx::ModelProto& model) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!model.SerializeToCodedStream(&coded)) throw Error("cannot serialize the ONNX model");
  }
  return bytes;
}

void saveModelFile(const std::filesystem::path& path, const onnx::ModelProto& model) {
  writeFileBytes(path, serializeModel(model));
}

}  // namespace nnfuzz
