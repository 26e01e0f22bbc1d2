// export.cpp - GraphIR -> ONNX model bytes, written on the wire (wire.h; naming rules in export.h).
#include "onnx/export.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <charconv>
#include <cstring>
#include <list>
#include <span>
#include <unordered_set>

#include "onnx/tensor_proto.h"
#include "ops/registry.h"
#include "ops/version_forms.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

void setTypeProto(onnx::TypeProto& t, const TensorType& type) {
  auto* tensor = t.mutable_tensor_type();
  tensor->set_elem_type(onnxElemType(type.dtype));
  auto* shape = tensor->mutable_shape();  // present even for scalars: rank 0 is known
  for (int64_t d : type.shape) shape->add_dim()->set_dim_value(d);
}

// Field numbers of onnx.proto, by message.
namespace field {
constexpr int kModelIrVersion = 1, kModelProducer = 2, kModelGraph = 7, kModelOpset = 8;
constexpr int kOpsetDomain = 1, kOpsetVersion = 2;
constexpr int kGraphNode = 1, kGraphName = 2, kGraphInitializer = 5, kGraphInput = 11, kGraphOutput = 12,
              kGraphValueInfo = 13;
constexpr int kNodeInput = 1, kNodeOutput = 2, kNodeName = 3, kNodeOpType = 4, kNodeAttribute = 5, kNodeDomain = 7;
constexpr int kAttrName = 1, kAttrF = 2, kAttrI = 3, kAttrS = 4, kAttrT = 5, kAttrG = 6, kAttrFloats = 7,
              kAttrInts = 8, kAttrStrings = 9, kAttrType = 20;
constexpr int kValueName = 1, kValueType = 2;
constexpr int kTypeTensor = 1, kTensorElemType = 1, kTensorShape = 2, kShapeDim = 1, kDimValue = 1;
}  // namespace field

// A ValueInfoProto with its full static type (the shape is present even for a scalar). Its
// size is worked out first, and the bytes written in one go: one of these per value.
void writeValueInfo(Wire& w, int fieldNumber, std::string_view name, const TensorType& type) {
  const auto elemType = static_cast<uint64_t>(onnxElemType(type.dtype));
  size_t shape = 0;
  for (int64_t d : type.shape) shape += 2 + 1 + Wire::varintSize(static_cast<uint64_t>(d));  // tag, length, dim_value
  const size_t tensor = 1 + Wire::varintSize(elemType) + Wire::fieldSize(field::kTensorShape, shape);
  const size_t typeProto = Wire::fieldSize(field::kTypeTensor, tensor);
  const size_t info = Wire::fieldSize(field::kValueName, name.size()) + Wire::fieldSize(field::kValueType, typeProto);
  char* p = w.extend(Wire::fieldSize(fieldNumber, info));
  p = Wire::putVarint(Wire::putTag(p, fieldNumber, true), info);
  p = Wire::putVarint(Wire::putTag(p, field::kValueName, true), name.size());
  p = std::copy(name.begin(), name.end(), p);
  p = Wire::putVarint(Wire::putTag(p, field::kValueType, true), typeProto);
  p = Wire::putVarint(Wire::putTag(p, field::kTypeTensor, true), tensor);
  p = Wire::putVarint(Wire::putTag(p, field::kTensorElemType, false), elemType);
  p = Wire::putVarint(Wire::putTag(p, field::kTensorShape, true), shape);
  for (int64_t d : type.shape) {
    const auto dim = static_cast<uint64_t>(d);
    p = Wire::putVarint(Wire::putTag(p, field::kShapeDim, true), 1 + Wire::varintSize(dim));
    p = Wire::putVarint(Wire::putTag(p, field::kDimValue, false), dim);
  }
}

void writeAttribute(Wire& w, std::string_view name, const AttrValue& value) {
  const size_t attr = w.open(field::kNodeAttribute);
  w.stringField(field::kAttrName, name);
  onnx::AttributeProto::AttributeType type;
  if (auto* i = std::get_if<int64_t>(&value)) {
    w.intField(field::kAttrI, *i);
    type = onnx::AttributeProto::INT;
  } else if (auto* f = std::get_if<double>(&value)) {
    w.floatField(field::kAttrF, static_cast<float>(*f));
    type = onnx::AttributeProto::FLOAT;
  } else if (auto* s = std::get_if<std::string>(&value)) {
    w.stringField(field::kAttrS, *s);
    type = onnx::AttributeProto::STRING;
  } else if (auto* is = std::get_if<std::vector<int64_t>>(&value)) {
    for (int64_t x : *is) w.intField(field::kAttrInts, x);
    type = onnx::AttributeProto::INTS;
  } else if (auto* fs = std::get_if<std::vector<double>>(&value)) {
    for (double x : *fs) w.floatField(field::kAttrFloats, static_cast<float>(x));
    type = onnx::AttributeProto::FLOATS;
  } else if (auto* ss = std::get_if<std::vector<std::string>>(&value)) {
    for (const std::string& x : *ss) w.stringField(field::kAttrStrings, x);
    type = onnx::AttributeProto::STRINGS;
  } else {
    throw Error("attribute '" + std::string(name) + "' holds a graph; exportGraph writes bodies");
  }
  w.intField(field::kAttrType, type);
  w.close(attr);
}

// A GraphProto's repeated fields, each in its own buffer while the graph is written in node
// order, joined in field-number order at the end.
struct GraphWire {
  Wire nodes, initializers, inputs, outputs, valueInfos;

  size_t size() const {
    return nodes.bytes.size() + initializers.bytes.size() + inputs.bytes.size() + outputs.bytes.size() +
           valueInfos.bytes.size();
  }
  void appendTo(Wire& w, std::string_view name) const {
    w.bytes += nodes.bytes;
    w.stringField(field::kGraphName, name);
    w.bytes += initializers.bytes;
    w.bytes += inputs.bytes;
    w.bytes += outputs.bytes;
    w.bytes += valueInfos.bytes;
  }
};

// A node's fields in order: input, output, name, op_type; the caller adds attributes and
// then calls endNode.
size_t beginNode(Wire& w, std::span<const std::string_view> inputs, std::span<const std::string_view> outputs,
                 std::string_view name, std::string_view opType) {
  const size_t node = w.open(field::kGraphNode);
  for (std::string_view in : inputs) w.stringField(field::kNodeInput, in);
  for (std::string_view out : outputs) w.stringField(field::kNodeOutput, out);
  w.stringField(field::kNodeName, name);
  w.stringField(field::kNodeOpType, opType);
  return node;
}
void endNode(Wire& w, size_t node, std::string_view domain) {
  if (!domain.empty()) w.stringField(field::kNodeDomain, domain);
  w.close(node);
}

// A constant operand: an initializer (also a graph input before ir_version 4), or in a body
// before ir_version 4, where initializers would have to be body inputs, a Constant node.
void addConstant(GraphWire& g, const std::string& name, const Tensor& value, bool body, int opset) {
  if (body && initializersAreInputs(opset)) {
    const std::string_view output = name;
    const size_t node = beginNode(g.nodes, {}, std::span(&output, 1), name, "Constant");
    const size_t attr = g.nodes.open(field::kNodeAttribute);
    g.nodes.stringField(field::kAttrName, "value");
    const size_t tensor = g.nodes.open(field::kAttrT);
    writeTensorFields(g.nodes, value, name);
    g.nodes.close(tensor);
    g.nodes.intField(field::kAttrType, onnx::AttributeProto::TENSOR);
    g.nodes.close(attr);
    endNode(g.nodes, node, "");
    return;
  }
  const size_t tensor = g.initializers.open(field::kGraphInitializer);
  writeTensorFields(g.initializers, value, name);
  g.initializers.close(tensor);
  if (!body && initializersAreInputs(opset)) writeValueInfo(g.inputs, field::kGraphInput, name, value.type);
}

// prefix + stem + separator + number, built in place: export names every value and node.
std::string numbered(std::string_view prefix, std::string_view stem, size_t number, std::string_view separator = {}) {
  char digits[20];
  const auto length = static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, number).ptr - digits);
  std::string name(prefix.size() + stem.size() + separator.size() + length, '\0');
  char* out = name.data();
  for (std::string_view part : {prefix, stem, separator, std::string_view(digits, length)}) {
    if (part.empty()) continue;  // an empty view may hold no pointer at all
    std::memcpy(out, part.data(), part.size());
    out += part.size();
  }
  return name;
}

// True when export writes `n` as it is: its operator's form at the opset is the node itself,
// and no trailing empty operand asks the schema whether to keep it (trimInputs).
bool writtenAsItIs(const Node& n, int opset) {
  return canonicalAsItIs(n.op, n.domain.empty() ? opset : kCanonicalOpset) && (n.inputs.empty() || n.inputs.back() != kNoValue);
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
void exportGraph(const Graph& graph, GraphWire& g, const std::string& prefix,
                 const std::vector<std::string>* outerNames, int opset, ExportedNames* exported) {
  const bool body = outerNames != nullptr;
  // Room for what a node, a value's type and a weight's bytes usually take: buffers grown
  // from empty cost a dozen reallocations a model.
  g.nodes.bytes.reserve(96 * graph.order().size());
  g.valueInfos.bytes.reserve(48 * graph.valueCapacity());
  const std::vector<ValueId> allWeights = graph.weights();
  size_t weightBytes = 0;
  for (ValueId w : allWeights) weightBytes += 32 + 8 * graph.value(w).data->data.size();
  g.initializers.bytes.reserve(weightBytes);
  // By value id (empty: not named yet); vectors, not hash maps: ids are dense.
  std::vector<std::string> names(graph.valueCapacity());
  const auto nameOf = [&](ValueId v) -> const std::string& {
    if (v >= names.size() || names[v].empty()) throw Error("value %" + std::to_string(v) + " is not defined");
    return names[v];
  };
  const auto inputs = graph.inputs();
  for (size_t k = 0; k < inputs.size(); ++k) {
    names[inputs[k]] = numbered(prefix, "input_", k);
    writeValueInfo(g.inputs, field::kGraphInput, names[inputs[k]], graph.value(inputs[k]).type);
    if (exported) exported->inputs.push_back(names[inputs[k]]);
  }
  // Each node's form at the opset first: a weight that only became an attribute (Slice's
  // starts before opset 10, say) is left out.
  const std::vector<NodeId>& order = graph.order();
  std::vector<NodeForm> forms;  // by position in order; an empty one for a node written as it is
  forms.reserve(order.size());
  std::vector<bool> asItIs(order.size(), false);
  std::vector<bool> read(graph.valueCapacity(), false);
  for (ValueId v : graph.outputs()) read[v] = true;
  for (size_t position = 0; position < order.size(); ++position) {
    const NodeId id = order[position];
    const Node& n = graph.node(id);
    if (writtenAsItIs(n, opset)) {
      asItIs[position] = true;
      for (ValueId v : n.inputs)
        if (v != kNoValue) read[v] = true;
      for (ValueId c : n.captures) read[c] = true;
      forms.emplace_back();
      continue;
    }
    NodeForm form = nodeFormAt(graph, n, opset, false);
    if (!form.ok()) throw Error("cannot export node " + std::to_string(id) + ": " + form.error);
    for (const FormOperand& in : form.inputs)
      if (in.operand >= 0) read[n.inputs[static_cast<size_t>(in.operand)]] = true;
    for (ValueId c : n.captures) read[c] = true;
    forms.push_back(std::move(form));
  }
  std::vector<ValueId> weights;
  for (ValueId w : allWeights)
    if (read[w] || opset == kCanonicalOpset) weights.push_back(w);
  for (size_t k = 0; k < weights.size(); ++k) {
    names[weights[k]] = numbered(prefix, "weight_", k);
    addConstant(g, names[weights[k]], *graph.value(weights[k]).data, body, opset);
  }
  size_t formConstants = 0;  // constants a version's form adds (an attribute turned input)
  if (body)
    for (ValueId p : graph.paramList())
      if (graph.value(p).kind == ValueKind::Outer) names[p] = outerNames->at(graph.value(p).capture);
  const auto& outputs = graph.outputs();
  for (size_t k = 0; k < outputs.size(); ++k)
    if (graph.value(outputs[k]).kind == ValueKind::Result && names[outputs[k]].empty())
      names[outputs[k]] = numbered(prefix, "output_", k);

  std::vector<bool> graphOutput(graph.valueCapacity(), false);
  for (ValueId v : outputs) graphOutput[v] = true;
  size_t temp = 0, nodeIndex = 0;
  // One node's operand names, viewing `names` (sized once, never moved) or `formNames`.
  std::vector<std::string_view> inputNames, outputNames;
  std::list<std::string> formNames;  // names of the constants forms add (a list: they stay put)
  for (size_t position = 0; position < order.size(); ++position) {
    const Node& n = graph.node(order[position]);
    const NodeForm& form = forms[position];
    // Constants the form adds come first: in a body before ir_version 4 they are nodes.
    inputNames.clear();
    if (asItIs[position])
      for (ValueId v : n.inputs) inputNames.push_back(v == kNoValue ? std::string_view() : std::string_view(nameOf(v)));
    for (const FormOperand& in : form.inputs) {
      if (in.empty()) {
        inputNames.emplace_back();
      } else if (in.constant) {
        // Named as import names initializers, so export -> import -> export is the identity.
        const std::string& name = formNames.emplace_back(numbered(prefix, "weight_", weights.size() + formConstants++));
        inputNames.push_back(name);
        addConstant(g, name, *in.constant, body, opset);
      } else {
        inputNames.push_back(nameOf(n.inputs[static_cast<size_t>(in.operand)]));
      }
    }
    const std::string nodeName = numbered(prefix, n.op, nodeIndex++, "_");
    const OpSpec* spec = findOp(n);
    outputNames.clear();
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const ValueId v = n.outputs[k];
      // An optional result nobody reads is left absent (an empty name), as ONNX allows.
      if (spec && spec->isOptionalOutput(k) && graph.value(v).uses.empty() && !graphOutput[v]) {
        outputNames.emplace_back();
        continue;
      }
      if (names[v].empty()) {
        names[v] = numbered(prefix, "t", temp++);
        writeValueInfo(g.valueInfos, field::kGraphValueInfo, names[v], graph.value(v).type);
      }
      outputNames.push_back(names[v]);
    }
    while (!outputNames.empty() && outputNames.back().empty()) outputNames.pop_back();
    std::vector<std::string> captureNames;
    for (ValueId c : n.captures) captureNames.push_back(nameOf(c));
    const size_t node = beginNode(g.nodes, inputNames, outputNames, nodeName, asItIs[position] ? n.op : form.op);
    for (const auto& [key, value] : asItIs[position] || form.nodesAttributes ? n.attrs : form.attrs) {
      if (const auto* sub = std::get_if<GraphAttr>(&value)) {
        const size_t attr = g.nodes.open(field::kNodeAttribute);
        g.nodes.stringField(field::kAttrName, key);
        const std::string bodyName = nodeName + "_" + key;
        GraphWire bodyWire;
        exportGraph(sub->graph(), bodyWire, bodyName + "/", &captureNames, opset, nullptr);
        const size_t bodyGraph = g.nodes.open(field::kAttrG);
        bodyWire.appendTo(g.nodes, bodyName);
        g.nodes.close(bodyGraph);
        g.nodes.intField(field::kAttrType, onnx::AttributeProto::GRAPH);
        g.nodes.close(attr);
      } else {
        writeAttribute(g.nodes, key, value);
      }
    }
    endNode(g.nodes, node, n.domain);
  }
  // A body's output must be made inside it: a formal input, weight or outer value it
  // returns, or one it returns twice, goes through an Identity.
  std::unordered_set<ValueId> returned;
  for (size_t k = 0; k < outputs.size(); ++k) {
    const ValueId v = outputs[k];
    if (names[v].empty()) throw Error("graph output %" + std::to_string(v) + " is not defined");
    std::string name = names[v];
    if (body && (graph.value(v).kind != ValueKind::Result || !returned.insert(v).second)) {
      const std::string copied = numbered(prefix, "output_", k);
      const std::string_view from = name, to = copied;
      endNode(g.nodes, beginNode(g.nodes, std::span(&from, 1), std::span(&to, 1),
                                 numbered(prefix, "Identity_output_", k), "Identity"), "");
      name = copied;
    }
    writeValueInfo(g.outputs, field::kGraphOutput, name, graph.value(v).type);
    if (exported) exported->outputs.push_back(name);
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

NodeForm nodeFormAt(const Graph& graph, const Node& n, int opset, bool copyAttributes) {
  OperandTypes types;
  OperandConstants constants;
  for (ValueId v : n.inputs) {
    types.push_back(v == kNoValue ? nullptr : &graph.value(v).type);
    constants.push_back(v == kNoValue || !graph.value(v).data ? nullptr : &*graph.value(v).data);
  }
  // Another domain's operator has one version (kOtherDomainOpset): its canonical form.
  return formAt(NodeView{n.op, types, constants, n.attrs, n.outputs.size()}, n.domain.empty() ? opset : kCanonicalOpset,
                copyAttributes);
}

onnx::ModelProto exportModel(const Graph& graph, int opset) {
  onnx::ModelProto model;
  if (!model.ParseFromString(exportModelBytes(graph, opset))) throw Error("cannot parse the exported model");
  return model;
}

std::string exportModelBytes(const Graph& graph, int opset, ExportedNames* names) {
  if (opset == 0) opset = graph.opset();
  GraphWire g;
  exportGraph(graph, g, "", nullptr, opset, names);
  Wire w;
  w.bytes.reserve(g.size() + 64);
  w.intField(field::kModelIrVersion, irVersionFor(opset));
  w.stringField(field::kModelProducer, "nnfuzz");
  const size_t graphStart = w.open(field::kModelGraph);
  g.appendTo(w, "nnfuzz");
  w.close(graphStart);
  const auto writeOpset = [&](std::string_view domain, int version) {
    const size_t imp = w.open(field::kModelOpset);
    w.stringField(field::kOpsetDomain, domain);
    w.intField(field::kOpsetVersion, version);
    w.close(imp);
  };
  writeOpset("", opset);
  for (const std::string& domain : domainsUsed(graph)) writeOpset(domain, kOtherDomainOpset);
  return std::move(w.bytes);
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
