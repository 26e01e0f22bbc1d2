// model_check.cpp - onnx::checker + strict shape inference, and type agreement with GraphIR.
#include "onnx/model_check.h"

#include <unordered_map>

#include "onnx/checker.h"  // ONNX's checker (ours is model_check.h: the name would shadow it)
#include "onnx/export.h"
#include "onnx/shape_inference/implementation.h"

namespace nnfuzz {

namespace {

std::string oneLine(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// "f32[1,3]"-style text of an ONNX type, for messages.
std::string describe(const onnx::TypeProto& t) {
  if (!t.has_tensor_type()) return "a non-tensor type";
  const auto& tt = t.tensor_type();
  std::string text = "elem type " + std::to_string(tt.elem_type());
  if (auto d = dtypeFromOnnx(tt.elem_type())) text = std::string(dtypeName(*d));
  if (!tt.has_shape()) return text + "[?]";
  text += '[';
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto& dim = tt.shape().dim(i);
    if (i) text += ',';
    text += dim.has_dim_value() ? std::to_string(dim.dim_value()) : (dim.has_dim_param() ? dim.dim_param() : "?");
  }
  return text + ']';
}

// With symbolicDims, a dim ONNX leaves symbolic (no value), or a shape it cannot infer from
// symbolic dims at all, agrees with ours.
bool sameType(const onnx::TypeProto& t, const TensorType& ours, bool symbolicDims = false) {
  if (!t.has_tensor_type()) return false;
  const auto& tt = t.tensor_type();
  if (tt.elem_type() != onnxElemType(ours.dtype)) return false;
  if (!tt.has_shape()) return symbolicDims;
  if (tt.shape().dim_size() != ours.rank()) return false;
  for (int i = 0; i < ours.rank(); ++i) {
    const auto& dim = tt.shape().dim(i);
    if (symbolicDims && !dim.has_dim_value()) continue;
    if (!dim.has_dim_value() || dim.dim_value() != ours.shape[static_cast<size_t>(i)]) return false;
  }
  return true;
}

// Ops whose result dims ONNX 1.12's inference leaves symbolic: Einsum infers the rank only,
// OneHot reads only an integer depth, and the value-dependent ones do not read their
// constant operands; a Loop's scan outputs have as many rows as iterations, which ONNX
// leaves symbolic.
bool infersSymbolicDims(const std::string& op) {
  return op == "Loop" || op == "Einsum" || op == "OneHot" || op == "Compress" || op == "NonZero" || op == "Unique" ||
         op == "NonMaxSuppression";
}

std::optional<std::string> compareWithOurs(const onnx::ModelProto& model, const onnx::GraphProto& inferred,
                                           const Graph& ours) {
  const onnx::GraphProto& g = model.graph();
  std::unordered_map<std::string, const onnx::TypeProto*> types;
  for (const auto& vi : inferred.value_info()) types[vi.name()] = &vi.type();
  for (const auto& vi : inferred.output()) types[vi.name()] = &vi.type();

  auto mismatch = [](const std::string& what, const onnx::TypeProto* t, const TensorType& mine) {
    return what + " is " + (t ? describe(*t) : std::string("not inferred by ONNX")) + " but nnfuzz has " +
           toString(mine);
  };

  // Declared graph inputs (runtime inputs only) and outputs.
  std::unordered_map<std::string, bool> inits;
  for (const auto& t : g.initializer()) inits[t.name()] = true;
  std::vector<const onnx::ValueInfoProto*> runtime;
  for (const auto& in : g.input())
    if (!inits.count(in.name())) runtime.push_back(&in);
  const auto ourInputs = ours.inputs();
  if (runtime.size() != ourInputs.size())
    return "the model has " + std::to_string(runtime.size()) + " runtime inputs, the graph " +
           std::to_string(ourInputs.size());
  for (size_t k = 0; k < runtime.size(); ++k)
    if (!sameType(runtime[k]->type(), ours.value(ourInputs[k]).type))
      return mismatch("graph input '" + runtime[k]->name() + "'", &runtime[k]->type(),
                      ours.value(ourInputs[k]).type);
  if (static_cast<size_t>(g.output_size()) != ours.outputs().size())
    return "the model has " + std::to_string(g.output_size()) + " outputs, the graph " +
           std::to_string(ours.outputs().size());
  for (int k = 0; k < g.output_size(); ++k) {
    const TensorType& mine = ours.value(ours.outputs()[static_cast<size_t>(k)]).type;
    if (!sameType(g.output(k).type(), mine))
      return mismatch("declared graph output '" + g.output(k).name() + "'", &g.output(k).type(), mine);
  }

  // Node results, pairing nodes in order; symbolic dims are no disagreement once an op
  // that makes them is in the model (they flow on into its consumers).
  const auto ourNodes = ours.nodes();
  bool symbolic = false;
  for (const auto& node : g.node()) symbolic = symbolic || infersSymbolicDims(node.op_type());
  size_t next = 0;
  for (const auto& node : g.node()) {
    if (node.op_type() == "Constant") continue;
    if (next >= ourNodes.size()) return "the model has more nodes than the graph";
    const Node& mine = ours.node(ourNodes[next++]);
    if (mine.op != node.op_type())
      return "model node '" + node.name() + "' is " + node.op_type() + ", the graph has " + mine.op;
    for (int k = 0; k < node.output_size(); ++k) {
      const std::string& name = node.output(k);
      if (name.empty()) continue;
      if (static_cast<size_t>(k) >= mine.outputs.size())
        return node.op_type() + " node '" + node.name() + "' has more outputs than the graph's";
      auto it = types.find(name);
      const TensorType& t = ours.value(mine.outputs[static_cast<size_t>(k)]).type;
      if (it == types.end() || !sameType(*it->second, t, symbolic))
        return mismatch(node.op_type() + " result '" + name + "'", it == types.end() ? nullptr : it->second, t);
    }
  }
  if (next != ourNodes.size()) return "the graph has more nodes than the model";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> checkModel(const onnx::ModelProto& model, const Graph* ours) {
  try {
    onnx::checker::check_model(model);
    const onnx::ShapeInferenceOptions options(/*check_type=*/true, /*error_mode=*/1);
    // Strict inference against the declared input and output types.
    onnx::ModelProto declared = model;
    declared.mutable_graph()->clear_value_info();
    onnx::shape_inference::InferShapes(declared, onnx::OpSchemaRegistry::Instance(), options);
    if (!ours) return std::nullopt;
    // What ONNX infers by itself for the outputs too: the same with output types erased.
    onnx::ModelProto bare = declared;
    bare.mutable_graph()->clear_value_info();
    for (auto& out : *bare.mutable_graph()->mutable_output()) out.clear_type();
    onnx::shape_inference::InferShapes(bare, onnx::OpSchemaRegistry::Instance(), options);
    return compareWithOurs(model, bare.graph(), *ours);
  } catch (const std::exception& e) {
    return oneLine(e.what());
  }
}

}  // namespace nnfuzz
