// export.cpp - GraphIR to deploy.prototxt + weights.caffemodel (see export.h).
#include "caffe/export.h"

#include <fstream>
#include <map>
#include <set>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>
#include <nlohmann/json.hpp>

#include "caffe/layer_map.h"
#include "caffe/pattern.h"
#include "support/error.h"

namespace nnfuzz {

namespace fs = std::filesystem;

namespace {

std::string shapeText(const Shape& shape) {
  std::string s = "(";
  for (int64_t d : shape) s += std::to_string(d) + ",";
  if (shape.size() > 1) s.pop_back();
  return s + ")";
}

void writeFile(const fs::path& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f << bytes;
  if (!f.flush()) throw Error("cannot write " + path.string());
}

}  // namespace

CaffeModel exportCaffe(const Graph& graph, const std::string& netName) {
  CaffeModel model;
  model.weights.set_name(netName);
  std::map<ValueId, std::string> names;
  const auto inputs = graph.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "input_" + std::to_string(i);
    names[inputs[i]] = name;
    model.inputNames.push_back(name);
    auto* layer = model.weights.add_layer();
    layer->set_name(name);
    layer->set_type("Input");
    layer->add_top(name);
    auto* shape = layer->mutable_input_param()->add_shape();
    for (int64_t d : graph.value(inputs[i]).type.shape) shape->add_dim(d);
  }
  const auto& outputs = graph.outputs();
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Value& v = graph.value(outputs[k]);
    if (v.kind != ValueKind::Result) throw Error("graph output " + std::to_string(k) + " is no layer's result");
    names.emplace(outputs[k], "output_" + std::to_string(k));
  }
  // Runs of nodes one Caffe layer writes (pattern.h): their interior nodes write nothing.
  const auto found = caffe_export::findPatterns(graph);
  std::set<NodeId> interior;
  for (const auto& [last, run] : found) interior.insert(run.nodes.begin(), run.nodes.end() - 1);
  std::vector<ValueId> blobs(inputs.begin(), inputs.end());  // defined so far, in order
  int temp = 0;
  std::map<std::string, int> perOp;
  for (NodeId id : graph.nodes()) {
    if (interior.count(id)) continue;
    const Node& node = graph.node(id);
    std::vector<const TensorType*> types;
    std::vector<const Tensor*> weights;
    std::vector<std::string> inputNames;
    for (ValueId v : node.inputs) {
      const Value* value = v == kNoValue ? nullptr : &graph.value(v);
      types.push_back(value ? &value->type : nullptr);
      weights.push_back(value && value->kind == ValueKind::Weight ? &*value->data : nullptr);
      const auto name = names.find(v);  // a run's interior values have none
      inputNames.push_back(value && value->kind != ValueKind::Weight && name != names.end() ? name->second : "");
    }
    std::vector<TensorType> outTypes;
    std::vector<std::string> outNames;
    for (ValueId v : node.outputs) {
      outTypes.push_back(graph.value(v).type);
      const bool used = !graph.value(v).uses.empty() || names.count(v);
      if (used && !names.count(v)) names[v] = "t" + std::to_string(temp++);
      outNames.push_back(used ? names.at(v) : "");
    }
    caffe_export::Layers layers;
    if (const auto run = found.find(id); run != found.end()) {
      const std::string layerName = std::string(run->second.pattern->layer) + "_" + std::to_string(perOp[std::string(run->second.pattern->layer)]++);
      const caffe_export::PatternSite site{graph, run->second.nodes, names, blobs, layerName};
      if (auto why = run->second.pattern->write(site, layers))
        throw Error("the " + std::string(run->second.pattern->layer) + " run ending at " + layerName + " has no Caffe form: " + *why);
    } else {
      const std::string layerName = node.op + "_" + std::to_string(perOp[node.op]++);
      caffe_export::NodeView view{node.op, node.attrs, types, weights, outTypes, inputNames, outNames, layerName};
      if (auto why = caffe_export::mapNode(view, &layers)) throw Error("node " + layerName + " has no Caffe form: " + *why);
    }
    for (ValueId v : node.outputs)
      if (names.count(v)) blobs.push_back(v);
    // A layer is named after its first top, as most published prototxts do: consumers
    // such as OpenCV address outputs by layer name (and OpenCV renames some layers).
    for (auto& layer : layers) {
      layer.set_name(layer.top(0));
      *model.weights.add_layer() = std::move(layer);
    }
  }
  std::map<std::string, std::pair<std::string, int>> writer;  // blob -> (layer, top index)
  for (const auto& layer : model.weights.layer())
    for (int t = 0; t < layer.top_size(); ++t) writer[layer.top(t)] = {layer.name(), t};
  for (ValueId v : outputs) {
    model.outputNames.push_back(names.at(v));
    model.outputLayers.push_back(writer.at(names.at(v)));
  }
  model.deploy = model.weights;
  for (auto& layer : *model.deploy.mutable_layer()) layer.clear_blobs();
  return model;
}

std::string caffeProblem(const Graph& graph) {
  try {
    exportCaffe(graph);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

std::string deployText(const CaffeModel& model) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(model.deploy, &text);
  return text;
}

std::string weightsBytes(const CaffeModel& model) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  model.weights.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

std::string npyBytes(const Tensor& tensor) {
  const bool asFloat = isFloat(tensor.type.dtype) || tensor.type.dtype == DType::Bool;
  std::string header = std::string("{'descr': '") + (asFloat ? "<f4" : "<i8") +
                       "', 'fortran_order': False, 'shape': " + shapeText(tensor.type.shape) + ", }";
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  const auto len = static_cast<uint16_t>(header.size());
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>(len >> 8);
  out += header;
  for (double v : tensor.data) {
    if (asFloat) {
      const auto f = static_cast<float>(v);
      out.append(reinterpret_cast<const char*>(&f), sizeof f);
    } else {
      const auto i = static_cast<int64_t>(v);
      out.append(reinterpret_cast<const char*>(&i), sizeof i);
    }
  }
  return out;
}

void writeCaffeCase(const fs::path& dir, const Graph& graph, const std::vector<Tensor>& inputs,
                    const std::vector<Tensor>& expected) {
  const CaffeModel model = exportCaffe(graph);
  if (inputs.size() != model.inputNames.size() || expected.size() != model.outputNames.size())
    throw Error("the test data does not fit the graph's inputs and outputs");
  writeFile(dir / "deploy.prototxt", deployText(model));
  writeFile(dir / "weights.caffemodel", weightsBytes(model));
  fs::create_directories(dir / "caffe_data");
  for (size_t i = 0; i < inputs.size(); ++i)
    writeFile(dir / "caffe_data" / ("input_" + std::to_string(i) + ".npy"), npyBytes(inputs[i]));
  for (size_t i = 0; i < expected.size(); ++i)
    writeFile(dir / "caffe_data" / ("output_" + std::to_string(i) + ".npy"), npyBytes(expected[i]));
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& [layer, top] : model.outputLayers) layers.push_back({layer, top});
  nlohmann::json manifest = {{"inputs", model.inputNames}, {"outputs", model.outputNames}, {"output_layers", layers}};
  writeFile(dir / "caffe.json", manifest.dump(2) + "\n");
}

bool tryWriteCaffeCase(const fs::path& dir, const Graph& graph, const std::vector<Tensor>& inputs,
                       const std::vector<Tensor>& expected) {
  if (!caffeProblem(graph).empty()) return false;
  writeCaffeCase(dir, graph, inputs, expected);
  return true;
}

}  // namespace nnfuzz
