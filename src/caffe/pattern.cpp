// pattern.cpp - the pattern table, finding runs in a graph, and the walking helpers.
#include <algorithm>
#include <set>

#include "caffe/pattern_util.h"

namespace nnfuzz::caffe_export {

// Defined in pattern_*.cpp, one file per layer family.
std::vector<NodeId> matchLrnWithinChannel(const Graph&, NodeId);
MapResult writeLrnWithinChannel(const PatternSite&, Layers&);
std::vector<NodeId> matchPower(const Graph&, NodeId);
MapResult writePower(const PatternSite&, Layers&);
std::vector<NodeId> matchExp(const Graph&, NodeId);
MapResult writeExp(const PatternSite&, Layers&);
std::vector<NodeId> matchLog(const Graph&, NodeId);
MapResult writeLog(const PatternSite&, Layers&);
std::vector<NodeId> matchReduction(const Graph&, NodeId);
MapResult writeReduction(const PatternSite&, Layers&);
std::vector<NodeId> matchArgMax(const Graph&, NodeId);
MapResult writeArgMax(const PatternSite&, Layers&);
std::vector<NodeId> matchCrop(const Graph&, NodeId);
MapResult writeCrop(const PatternSite&, Layers&);

std::span<const Pattern> patterns() {
  // LRN first: its run ends in a Mul, which no other pattern at the same node claims,
  // but its inner Mul -> Add -> Pow is a Power run that must not be split off.
  static const Pattern kPatterns[] = {
      {"LRNWithinChannel", matchLrnWithinChannel, writeLrnWithinChannel},
      {"Power", matchPower, writePower},
      {"Exp", matchExp, writeExp},
      {"Log", matchLog, writeLog},
      {"Reduction", matchReduction, writeReduction},
      {"ArgMax", matchArgMax, writeArgMax},
      {"Crop", matchCrop, writeCrop},
  };
  return kPatterns;
}

namespace {

/// Interior results feed only the run and are no graph outputs; the results are blobs.
bool closed(const Graph& g, const std::vector<NodeId>& nodes) {
  const std::set<NodeId> members(nodes.begin(), nodes.end());
  for (ValueId v : g.node(nodes.back()).outputs)
    if (g.value(v).type.dtype != DType::Float32 || g.value(v).type.rank() == 0) return false;
  for (size_t k = 0; k + 1 < nodes.size(); ++k)
    for (ValueId v : g.node(nodes[k]).outputs) {
      if (std::find(g.outputs().begin(), g.outputs().end(), v) != g.outputs().end()) return false;
      for (const Use& u : g.value(v).uses)
        if (u.isCapture() || !members.count(u.node)) return false;
    }
  return true;
}

}  // namespace

std::map<NodeId, FoundPattern> findPatterns(const Graph& g) {
  std::map<NodeId, FoundPattern> found;
  std::set<NodeId> claimed;
  const std::vector<NodeId> order = g.nodes();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (claimed.count(*it)) continue;
    for (const Pattern& p : patterns()) {
      std::vector<NodeId> nodes = p.match(g, *it);
      if (nodes.empty() || !closed(g, nodes) ||
          std::any_of(nodes.begin(), nodes.end(), [&](NodeId n) { return claimed.count(n) > 0; }))
        continue;
      claimed.insert(nodes.begin(), nodes.end());
      found.emplace(*it, FoundPattern{&p, std::move(nodes)});
      break;
    }
  }
  return found;
}

const Node* producerOf(const Graph& g, ValueId v, std::string_view op) {
  if (v == kNoValue) return nullptr;
  const Value& value = g.value(v);
  if (value.kind != ValueKind::Result) return nullptr;
  const Node& n = g.node(value.producer);
  return n.alive && n.op == op ? &n : nullptr;
}

NodeId producerId(const Graph& g, ValueId v) { return g.value(v).producer; }

bool isBlob(const Graph& g, ValueId v) {
  if (v == kNoValue) return false;
  const Value& value = g.value(v);
  return value.kind != ValueKind::Weight && value.type.dtype == DType::Float32 && value.type.rank() >= 1;
}

std::optional<double> scalarOperand(const Graph& g, const Node& n) {
  if (n.inputs.size() != 2 || n.inputs[0] == kNoValue || n.inputs[1] == kNoValue) return std::nullopt;
  const Value& w = g.value(n.inputs[1]);
  if (w.kind != ValueKind::Weight || w.type.dtype != DType::Float32 || w.type.numel() != 1) return std::nullopt;
  const TensorType& x = g.value(n.inputs[0]).type;
  if (x.dtype != DType::Float32 || g.value(n.outputs[0]).type.shape != x.shape) return std::nullopt;
  return w.data->data[0];
}

std::vector<NodeId> chainBack(const Graph& g, NodeId last, std::initializer_list<std::string_view> ops) {
  std::vector<NodeId> nodes{last};
  auto op = std::rbegin(ops);
  if (g.node(last).op != *op) return {};
  for (++op; op != std::rend(ops); ++op) {
    const Node& later = g.node(nodes.back());
    if (later.inputs.empty() || !producerOf(g, later.inputs[0], *op)) return {};
    nodes.push_back(producerId(g, later.inputs[0]));
  }
  std::reverse(nodes.begin(), nodes.end());
  const Node& first = g.node(nodes.front());
  if (first.inputs.empty() || !isBlob(g, first.inputs[0])) return {};  // Caffe reads a blob, not a weight
  return nodes;
}

OwnedView viewOf(const PatternSite& site, size_t k) {
  OwnedView v;
  const Node& n = site.node(k);
  for (ValueId in : n.inputs) {
    const Value* value = in == kNoValue ? nullptr : &site.graph.value(in);
    v.types.push_back(value ? &value->type : nullptr);
    v.weights.push_back(value && value->kind == ValueKind::Weight ? &*value->data : nullptr);
    const auto name = site.names.find(in);
    v.inNames.push_back(name != site.names.end() && !v.weights.back() ? name->second : "");
  }
  for (ValueId out : n.outputs) v.outTypes.push_back(site.graph.value(out).type);
  for (ValueId out : site.last().outputs) {
    const auto name = site.names.find(out);
    v.outNames.push_back(name != site.names.end() ? name->second : "");
  }
  return v;
}

nnfuzz::caffe::LayerParameter& addPatternLayer(const PatternSite& site, Layers& out, std::string type,
                                               std::initializer_list<ValueId> bottoms) {
  auto& layer = out.emplace_back();
  layer.set_name(site.name);
  layer.set_type(std::move(type));
  for (ValueId b : bottoms) layer.add_bottom(site.names.at(b));
  for (ValueId top : site.last().outputs) layer.add_top(site.names.at(top));
  return layer;
}

}  // namespace nnfuzz::caffe_export
