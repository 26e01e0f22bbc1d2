// onnx_facts.cpp - ModelFacts from any ONNX model, without the operator registry.
//
// Shapes: true shapes (Luo) come from initializers, graph inputs, value_info and graph
// outputs, after non-strict ONNX shape inference when some node result is undeclared.
// Isra's script reads an operand's dims from the value_info of *its* inferred model, which
// has produced graph outputs renamed and empty operand names removed; where that changes
// what inference can see (a consumed graph output, or an empty operand, in a model whose
// results are not all declared) we run inference on such a renamed copy, so the dims match.
#include <algorithm>
#include <functional>
#include <unordered_map>

#include "onnx/shape_inference/implementation.h"
#include "search/model_facts.h"

namespace nnfuzz::search {

namespace {

using TypeMap = std::unordered_map<std::string, const onnx::TypeProto*>;

void inferShapes(onnx::ModelProto& model) {
  try {
    const onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/0);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception&) {
    // Non-strict: whatever was inferred before the failure stays; the rest is unknown.
  }
}

TypeMap typeMap(const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& infos) {
  TypeMap map;
  for (const auto& vi : infos) map.emplace(vi.name(), &vi.type());  // first entry wins, as in Isra's scan
  return map;
}

bool hasShape(const onnx::TypeProto* t) { return t && t->has_tensor_type() && t->tensor_type().has_shape(); }

void appendDims(const onnx::TypeProto& t, std::vector<int64_t>& dims) {
  for (const auto& d : t.tensor_type().shape().dim()) dims.push_back(d.dim_value());  // dim_param -> 0
}

const onnx::TypeProto* find(const TypeMap& map, const std::string& name) {
  auto it = map.find(name);
  return it == map.end() ? nullptr : it->second;
}

uint64_t attributeDigest(const onnx::AttributeProto& a) {
  detail::AttrDigest d(a.name(), static_cast<int>(a.type()));
  Hasher& h = d.hasher();
  // Only the field of the declared type: that is all the GraphIR builder can see, and
  // ONNX's checker rejects attributes that set another one.
  switch (a.type()) {
    case onnx::AttributeProto::INT: h.addInt(a.i()); break;
    case onnx::AttributeProto::FLOAT: h.addFloat(a.f()); break;
    case onnx::AttributeProto::STRING: h.addString(a.s()); break;
    case onnx::AttributeProto::INTS:
      h.add(static_cast<uint64_t>(a.ints_size()));
      for (int64_t x : a.ints()) h.addInt(x);
      break;
    case onnx::AttributeProto::FLOATS:
      h.add(static_cast<uint64_t>(a.floats_size()));
      for (float x : a.floats()) h.addFloat(x);
      break;
    case onnx::AttributeProto::STRINGS:
      h.add(static_cast<uint64_t>(a.strings_size()));
      for (const auto& s : a.strings()) h.addString(s);
      break;
    case onnx::AttributeProto::GRAPH: break;  // a body's operators count as nodes (model_facts.cpp)
    default: h.addString(a.SerializeAsString()); break;  // tensors, type protos
  }
  if (!a.ref_attr_name().empty()) h.addString(a.ref_attr_name());
  if (!a.doc_string().empty()) h.addString(a.doc_string());
  return d.digest();
}

// Isra's edits before its shape inference: produced graph outputs get fresh names (so
// their consumers read a name nobody produces) and empty operand names are dropped.
onnx::ModelProto israView(const onnx::ModelProto& model) {
  onnx::ModelProto copy = model;
  auto* g = copy.mutable_graph();
  for (int k = 0; k < g->output_size(); ++k) {
    const std::string name = g->output(k).name();
    const std::string fresh = "model_output_" + std::to_string(k);
    for (auto& node : *g->mutable_node())
      for (auto& out : *node.mutable_output())
        if (out == name) {
          out = fresh;
          g->mutable_output(k)->set_name(fresh);
        }
  }
  for (auto& node : *g->mutable_node()) {
    auto* in = node.mutable_input();
    in->erase(std::remove(in->begin(), in->end(), std::string()), in->end());
  }
  return copy;
}

}  // namespace

void factsFromOnnx(onnx::ModelProto model, const BlockCorpus& corpus, ModelFacts& out) {
  out.clear();
  const onnx::GraphProto& g = model.graph();
  std::unordered_map<std::string, uint32_t> ids;
  auto valueOf = [&](const std::string& name) {
    auto [it, fresh] = ids.emplace(name, static_cast<uint32_t>(out.values.size()));
    if (fresh) out.values.emplace_back();
    return it->second;
  };
  for (const auto& t : g.initializer()) valueOf(t.name());
  for (const auto& in : g.input()) valueOf(in.name());

  bool anyEmptyOperand = false;
  std::vector<std::pair<std::string, uint64_t>> named;
  std::vector<uint64_t> digests;
  auto addNode = [&](const onnx::NodeProto& n, bool inBody) {
    ModelFacts::Node node;
    detail::setOperator(out, node, corpus, n.op_type());
    // Isra's script reads the main graph's nodes only, never a body's.
    node.israSkip = inBody || n.name().find("flatten_node") != std::string::npos ||
                    n.name().find("concat_outputs") != std::string::npos;
    node.operandBegin = static_cast<uint32_t>(out.operands.size());
    for (const auto& in : n.input()) {
      anyEmptyOperand |= in.empty();
      out.operands.push_back(in.empty() ? kOmitted : valueOf(in));
    }
    node.operandEnd = static_cast<uint32_t>(out.operands.size());
    node.resultBegin = static_cast<uint32_t>(out.results.size());
    for (const auto& o : n.output()) {
      // An empty (omitted) result is a value of its own that nobody can consume.
      const uint32_t v = o.empty() ? static_cast<uint32_t>(out.values.size()) : valueOf(o);
      if (o.empty()) out.values.emplace_back();
      out.values[v].producer = static_cast<int32_t>(out.nodes.size());
      out.results.push_back(v);
    }
    node.resultEnd = static_cast<uint32_t>(out.results.size());
    node.hasAttrs = n.attribute_size() > 0;
    named.clear();
    digests.clear();
    for (const auto& a : n.attribute()) {
      named.emplace_back(a.name(), attributeDigest(a));
      digests.push_back(named.back().second);
    }
    node.attrsInOrder = detail::listDigest(digests);
    std::stable_sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t k = 0; k < named.size(); ++k) digests[k] = named[k].second;
    node.attrsByName = detail::listDigest(digests);
    out.nodes.push_back(node);
  };
  for (const auto& n : g.node()) addNode(n, false);
  // Body nodes after the main graph's, in the order model_facts.cpp walks GraphIR bodies:
  // per node, per graph attribute, the body's nodes, then the bodies inside them. Body
  // names resolve like the main graph's (ONNX keeps one namespace across scopes).
  std::vector<const onnx::GraphProto*> bodies;
  std::function<void(const onnx::GraphProto&)> walk = [&](const onnx::GraphProto& graph) {
    for (const auto& node : graph.node())
      for (const auto& a : node.attribute()) {
        if (a.type() != onnx::AttributeProto::GRAPH) continue;
        const onnx::GraphProto& b = a.g();
        bodies.push_back(&b);
        for (const auto& t : b.initializer()) valueOf(t.name());
        for (const auto& in : b.input()) valueOf(in.name());
        for (const auto& n : b.node()) addNode(n, true);
        walk(b);
      }
  };
  walk(g);
  for (const auto& o : g.output()) {
    auto it = ids.find(o.name());
    if (it != ids.end() && out.values[it->second].producer >= 0) out.values[it->second].graphOutput = true;
  }
  detail::finishUses(out);

  // Shapes. Inference runs only when some node result lacks a declared shape.
  const TypeMap declared = typeMap(g.value_info());
  const TypeMap outputs = typeMap(g.output());
  bool allDeclared = true, consumedOutput = false;
  for (const auto& n : g.node())
    for (const auto& o : n.output())
      if (!o.empty() && !hasShape(find(declared, o)) && !hasShape(find(outputs, o))) allDeclared = false;
  for (const auto& v : out.values) consumedOutput |= v.graphOutput && v.useEnd > v.useBegin;

  onnx::ModelProto israModel;
  const bool israOwnRun = !allDeclared && (consumedOutput || anyEmptyOperand);
  if (israOwnRun) {
    israModel = israView(model);
    inferShapes(israModel);
  }
  if (!allDeclared) inferShapes(model);
  const TypeMap info = typeMap(model.graph().value_info());
  const TypeMap israInfo = israOwnRun ? typeMap(israModel.graph().value_info()) : info;
  const TypeMap inputs = typeMap(model.graph().input());
  const TypeMap outputTypes = typeMap(model.graph().output());
  std::unordered_map<std::string, const onnx::TensorProto*> inits;
  for (const auto& t : model.graph().initializer()) inits.emplace(t.name(), &t);

  std::vector<int64_t> dims;
  for (const auto& [name, id] : ids) {
    ModelFacts::Value& v = out.values[id];
    const onnx::TensorProto* init = nullptr;
    if (auto it = inits.find(name); it != inits.end()) init = it->second;
    const onnx::TypeProto* input = find(inputs, name);
    // True shape: initializer, graph input, value_info, graph output.
    dims.clear();
    if (init) {
      dims.assign(init->dims().begin(), init->dims().end());
      v.shape = shapeDigest(dims);
    } else if (const onnx::TypeProto* t = hasShape(input) ? input
                                          : hasShape(find(info, name)) ? find(info, name)
                                                                       : find(outputTypes, name);
               hasShape(t)) {
      appendDims(*t, dims);
      v.shape = shapeDigest(dims);
    }
    // Isra's get_tensor_dim: value_info dims if any, else initializer dims followed by
    // graph-input dims (both when a model lists an initializer as an input too), else [].
    dims.clear();
    if (const onnx::TypeProto* t = find(israInfo, name); hasShape(t)) appendDims(*t, dims);
    if (dims.empty()) {
      if (init) dims.assign(init->dims().begin(), init->dims().end());
      if (hasShape(input)) appendDims(*input, dims);
    }
    v.israShape = shapeDigest(dims);
  }
  // Body values: their own declarations (both shapes; Isra's script sees no bodies).
  for (const onnx::GraphProto* b : bodies) {
    auto set = [&](const std::string& name, const std::vector<int64_t>& d) {
      if (auto it = ids.find(name); it != ids.end()) out.values[it->second].shape = out.values[it->second].israShape = shapeDigest(d);
    };
    for (const auto& t : b->initializer()) set(t.name(), std::vector<int64_t>(t.dims().begin(), t.dims().end()));
    for (const auto* infos : {&b->input(), &b->value_info(), &b->output()})
      for (const auto& vi : *infos) {
        if (!hasShape(&vi.type())) continue;
        dims.clear();
        appendDims(vi.type(), dims);
        set(vi.name(), dims);
      }
  }
}

}  // namespace nnfuzz::search
