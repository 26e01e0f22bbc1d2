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

onnx::ModelProto exportModel(const Graph& graph, int opset) {
  onnx::ModelProto model;
  model.set_ir_version(kIrVersion);
  model.set_producer_name("nnfuzz");
  auto* imp = model.add_opset_import();
  imp->set_domain("");
  imp->set_version(opset);
  onnx::GraphProto& g = *model.mutable_graph();
  g.set_name("nnfuzz");

  std::unordered_map<ValueId, std::string> names;
  const auto inputs = graph.inputs();
  for (size_t k = 0; k < inputs.size(); ++k) {
    names[inputs[k]] = "input_" + std::to_string(k);
    addValueInfo(g.add_input(), names[inputs[k]], graph.value(inputs[k]).type);
  }
  const auto weights = graph.weights();
  for (size_t k = 0; k < weights.size(); ++k) {
    names[weights[k]] = "weight_" + std::to_string(k);
    *g.add_initializer() = toTensorProto(*graph.value(weights[k]).data, names[weights[k]]);
  }
  const auto& outputs = graph.outputs();
  for (size_t k = 0; k < outputs.size(); ++k)
    if (graph.value(outputs[k]).kind == ValueKind::Result && !names.count(outputs[k]))
      names[outputs[k]] = "output_" + std::to_string(k);

  const std::unordered_set<ValueId> graphOutputs(outputs.begin(), outputs.end());
  size_t temp = 0, nodeIndex = 0;
  for (NodeId id : graph.nodes()) {
    const Node& n = graph.node(id);
    onnx::NodeProto& node = *g.add_node();
    node.set_name(n.op + "_" + std::to_string(nodeIndex++));
    node.set_op_type(n.op);
    size_t used = n.inputs.size();
    while (used > 0 && n.inputs[used - 1] == kNoValue) --used;
    for (size_t k = 0; k < used; ++k) node.add_input(n.inputs[k] == kNoValue ? std::string() : names.at(n.inputs[k]));
    const OpSpec* spec = findOp(n.op);
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const ValueId v = n.outputs[k];
      // An optional result nobody reads is left absent (an empty name), as ONNX allows.
      if (spec && spec->isOptionalOutput(k) && graph.value(v).uses.empty() && !graphOutputs.count(v)) {
        node.add_output(std::string());
        continue;
      }
      auto [it, fresh] = names.emplace(v, "t" + std::to_string(temp));
      if (fresh) {
        ++temp;
        addValueInfo(g.add_value_info(), it->second, graph.value(v).type);
      }
      node.add_output(it->second);
    }
    while (node.output_size() > 0 && node.output(node.output_size() - 1).empty()) node.mutable_output()->RemoveLast();
    for (const auto& [key, value] : n.attrs) setAttribute(*node.add_attribute(), key, value);
  }
  for (ValueId v : outputs) {
    auto it = names.find(v);
    if (it == names.end()) throw Error("graph output %" + std::to_string(v) + " is not defined");
    addValueInfo(g.add_output(), it->second, graph.value(v).type);
  }
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
