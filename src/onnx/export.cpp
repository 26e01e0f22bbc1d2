// export.cpp - GraphIR -> onnx::ModelProto (naming rules in export.h).
#include "onnx/export.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <unordered_map>
#include <unordered_set>

#include "onnx/tensor_proto.h"
#include "ops/registry.h"
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

void addValueInfo(onnx::ValueInfoProto* info, const std::string& name, const TensorType& type) {
  info->set_name(name);
  *info->mutable_type() = toTypeProto(type);
}

}  // namespace

onnx::TypeProto toTypeProto(const TensorType& type) {
  onnx::TypeProto t;
  auto* tensor = t.mutable_tensor_type();
  tensor->set_elem_type(onnxElemType(type.dtype));
  auto* shape = tensor->mutable_shape();  // present even for scalars: rank 0 is known
  for (int64_t d : type.shape) shape->add_dim()->set_dim_value(d);
  return t;
}

namespace {

// Writes `graph` into `g`. `outerNames` names the owning node's captures (bodies only);
// `prefix` makes a body's names unique in the model (ONNX wants one namespace).
void exportGraph(const Graph& graph, onnx::GraphProto& g, const std::string& prefix,
                 const std::vector<std::string>* outerNames) {
  const bool body = outerNames != nullptr;
  std::unordered_map<ValueId, std::string> names;
  const auto inputs = graph.inputs();
  for (size_t k = 0; k < inputs.size(); ++k) {
    names[inputs[k]] = prefix + "input_" + std::to_string(k);
    addValueInfo(g.add_input(), names[inputs[k]], graph.value(inputs[k]).type);
  }
  const auto weights = graph.weights();
  for (size_t k = 0; k < weights.size(); ++k) {
    names[weights[k]] = prefix + "weight_" + std::to_string(k);
    *g.add_initializer() = toTensorProto(*graph.value(weights[k]).data, names[weights[k]]);
  }
  if (body)
    for (ValueId p : graph.paramList())
      if (graph.value(p).kind == ValueKind::Outer) names[p] = outerNames->at(graph.value(p).capture);
  const auto& outputs = graph.outputs();
  for (size_t k = 0; k < outputs.size(); ++k)
    if (graph.value(outputs[k]).kind == ValueKind::Result && !names.count(outputs[k]))
      names[outputs[k]] = prefix + "output_" + std::to_string(k);

  const std::unordered_set<ValueId> graphOutputs(outputs.begin(), outputs.end());
  size_t temp = 0, nodeIndex = 0;
  for (NodeId id : graph.nodes()) {
    const Node& n = graph.node(id);
    onnx::NodeProto& node = *g.add_node();
    const std::string nodeName = prefix + n.op + "_" + std::to_string(nodeIndex++);
    node.set_name(nodeName);
    node.set_op_type(n.op);
    if (!n.domain.empty()) node.set_domain(n.domain);
    size_t used = n.inputs.size();
    while (used > 0 && n.inputs[used - 1] == kNoValue) --used;
    for (size_t k = 0; k < used; ++k) node.add_input(n.inputs[k] == kNoValue ? std::string() : names.at(n.inputs[k]));
    const OpSpec* spec = findOp(n);
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const ValueId v = n.outputs[k];
      // An optional result nobody reads is left absent (an empty name), as ONNX allows.
      if (spec && spec->isOptionalOutput(k) && graph.value(v).uses.empty() && !graphOutputs.count(v)) {
        node.add_output(std::string());
        continue;
      }
      auto [it, fresh] = names.emplace(v, prefix + "t" + std::to_string(temp));
      if (fresh) {
        ++temp;
        addValueInfo(g.add_value_info(), it->second, graph.value(v).type);
      }
      node.add_output(it->second);
    }
    while (node.output_size() > 0 && node.output(node.output_size() - 1).empty()) node.mutable_output()->RemoveLast();
    std::vector<std::string> captureNames;
    for (ValueId c : n.captures) captureNames.push_back(names.at(c));
    for (const auto& [key, value] : n.attrs) {
      onnx::AttributeProto& a = *node.add_attribute();
      if (const auto* sub = std::get_if<GraphAttr>(&value)) {
        a.set_name(key);
        a.set_type(onnx::AttributeProto::GRAPH);
        a.mutable_g()->set_name(nodeName + "_" + key);
        exportGraph(sub->graph(), *a.mutable_g(), nodeName + "_" + key + "/", &captureNames);
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
    auto it = names.find(v);
    if (it == names.end()) throw Error("graph output %" + std::to_string(v) + " is not defined");
    std::string name = it->second;
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

onnx::ModelProto exportModel(const Graph& graph, int opset) {
  onnx::ModelProto model;
  model.set_ir_version(kIrVersion);
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
  exportGraph(graph, g, "", nullptr);
  return model;
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
