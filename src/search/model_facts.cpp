// model_facts.cpp - ModelFacts helpers and the GraphIR builder.
#include "search/model_facts.h"

#include <algorithm>
#include <unordered_set>

#include "ops/registry.h"

namespace nnfuzz::search {

void ModelFacts::clear() {
  nodes.clear();
  values.clear();
  operands.clear();
  results.clear();
  uses.clear();
  unknownOps.clear();
  unknownCounts.clear();
}

int ModelFacts::nonEmptyOperands(const Node& n) const {
  int count = 0;
  for (uint32_t k = n.operandBegin; k < n.operandEnd; ++k) count += operands[k] != kOmitted;
  return count;
}

int ModelFacts::consumerEdges(const Node& n) const {
  int count = 0;
  for (uint32_t k = n.resultBegin; k < n.resultEnd; ++k) {
    const Value& v = values[results[k]];
    count += static_cast<int>(v.useEnd - v.useBegin);
  }
  return count;
}

namespace detail {

void finishUses(ModelFacts& facts) {
  // Counting sort of (value, node) pairs by value: values' ranges, then fill in node order.
  std::vector<uint32_t> counts(facts.values.size() + 1, 0);
  for (uint32_t v : facts.operands)
    if (v != kOmitted) ++counts[v + 1];
  for (size_t i = 1; i < counts.size(); ++i) counts[i] += counts[i - 1];
  for (size_t v = 0; v < facts.values.size(); ++v) {
    facts.values[v].useBegin = counts[v];
    facts.values[v].useEnd = counts[v];
  }
  facts.uses.assign(counts.back(), 0);
  for (uint32_t n = 0; n < facts.nodes.size(); ++n) {
    const auto& node = facts.nodes[n];
    for (uint32_t k = node.operandBegin; k < node.operandEnd; ++k) {
      const uint32_t v = facts.operands[k];
      if (v != kOmitted) facts.uses[facts.values[v].useEnd++] = n;
    }
  }
}

void setOperator(ModelFacts& facts, ModelFacts::Node& node, const BlockCorpus& corpus, const std::string& type) {
  node.op = corpus.opIndex(type);
  if (node.op >= 0) return;
  auto it = std::find(facts.unknownOps.begin(), facts.unknownOps.end(), type);
  node.unknown = static_cast<uint32_t>(it - facts.unknownOps.begin());
  if (it == facts.unknownOps.end()) {
    facts.unknownOps.push_back(type);
    facts.unknownCounts.push_back(0);
  }
  ++facts.unknownCounts[node.unknown];
}

uint64_t listDigest(const std::vector<uint64_t>& digests) {
  Hasher h(0x41545452ULL);  // "ATTR"
  h.add(digests.size());
  for (uint64_t d : digests) h.add(d);
  return h.digest();
}

}  // namespace detail

namespace {

// ONNX AttributeProto type codes, so GraphIR digests equal the exported protos' digests.
constexpr int kFloat = 1, kInt = 2, kString = 3, kGraph = 5, kFloats = 6, kInts = 7, kStrings = 8;

uint64_t attributeDigest(const std::string& name, const AttrValue& value) {
  // A body is a graph of its own: its operators count as nodes, not as a parameter value.
  if (std::holds_alternative<GraphAttr>(value)) return detail::AttrDigest(name, kGraph).digest();
  if (auto* i = std::get_if<int64_t>(&value)) {
    detail::AttrDigest d(name, kInt);
    d.hasher().addInt(*i);
    return d.digest();
  }
  if (auto* f = std::get_if<double>(&value)) {
    detail::AttrDigest d(name, kFloat);
    d.hasher().addFloat(static_cast<float>(*f));
    return d.digest();
  }
  if (auto* s = std::get_if<std::string>(&value)) {
    detail::AttrDigest d(name, kString);
    d.hasher().addString(*s);
    return d.digest();
  }
  if (auto* is = std::get_if<std::vector<int64_t>>(&value)) {
    detail::AttrDigest d(name, kInts);
    d.hasher().add(is->size());
    for (int64_t x : *is) d.hasher().addInt(x);
    return d.digest();
  }
  if (auto* ss = std::get_if<std::vector<std::string>>(&value)) {
    detail::AttrDigest d(name, kStrings);
    d.hasher().add(ss->size());
    for (const std::string& x : *ss) d.hasher().addString(x);
    return d.digest();
  }
  const auto& fs = std::get<std::vector<double>>(value);
  detail::AttrDigest d(name, kFloats);
  d.hasher().add(fs.size());
  for (double x : fs) d.hasher().addFloat(static_cast<float>(x));
  return d.digest();
}

}  // namespace

namespace {

// Appends the facts of `graph`'s nodes; idOf maps its value ids to facts value ids.
void addGraphNodes(const Graph& graph, const std::vector<uint32_t>& idOf, const BlockCorpus& corpus,
                   ModelFacts& out, bool inBody) {
  std::vector<uint64_t> digests;
  const std::unordered_set<ValueId> graphOutputs(graph.outputs().begin(), graph.outputs().end());
  for (NodeId id : graph.nodes()) {
    const Node& n = graph.node(id);
    ModelFacts::Node node;
    detail::setOperator(out, node, corpus, n.op);
    node.israSkip = inBody;  // Isra's script reads the main graph's nodes only
    node.operandBegin = static_cast<uint32_t>(out.operands.size());
    // Export drops trailing omitted operands; so do we, so both builders agree.
    size_t used = n.inputs.size();
    while (used > 0 && n.inputs[used - 1] == kNoValue) --used;
    for (size_t k = 0; k < used; ++k) out.operands.push_back(n.inputs[k] == kNoValue ? kOmitted : idOf[n.inputs[k]]);
    node.operandEnd = static_cast<uint32_t>(out.operands.size());
    node.resultBegin = static_cast<uint32_t>(out.results.size());
    const auto index = static_cast<int32_t>(out.nodes.size());
    // Export leaves an unread optional result absent and drops trailing absent ones; so do we.
    const OpSpec* spec = findOp(n);
    auto absent = [&](size_t k) {
      const ValueId v = n.outputs[k];
      return spec && spec->isOptionalOutput(k) && graph.value(v).uses.empty() && !graphOutputs.count(v);
    };
    size_t results = n.outputs.size();
    while (results > 0 && absent(results - 1)) --results;
    for (size_t k = 0; k < results; ++k) {
      out.results.push_back(idOf[n.outputs[k]]);
      out.values[idOf[n.outputs[k]]].producer = index;
    }
    node.resultEnd = static_cast<uint32_t>(out.results.size());
    node.hasAttrs = !n.attrs.empty();
    digests.clear();
    for (const auto& [name, value] : n.attrs) digests.push_back(attributeDigest(name, value));
    node.attrsInOrder = node.attrsByName = detail::listDigest(digests);  // export writes name order
    out.nodes.push_back(node);
  }
}

// Body operators count as nodes: after the main graph's, per node and graph attribute
// (name order), the body's nodes, then the bodies inside them (onnx_facts.cpp walks the
// exported model the same way). A body's values are fresh facts values; its outer
// parameters are the enclosing values they stand for.
void addBodies(const Graph& graph, const std::vector<uint32_t>& idOf, const BlockCorpus& corpus, ModelFacts& out) {
  for (NodeId id : graph.nodes()) {
    const Node& n = graph.node(id);
    for (const auto& [name, value] : n.attrs) {
      const auto* attr = std::get_if<GraphAttr>(&value);
      if (!attr) continue;
      const Graph& body = attr->graph();
      std::vector<uint32_t> bodyIds(body.valueCapacity(), kOmitted);
      for (ValueId v = 0; v < body.valueCapacity(); ++v) {
        const Value& value = body.value(v);
        if (!value.alive) continue;
        if (value.kind == ValueKind::Outer) {
          bodyIds[v] = idOf[n.captures[value.capture]];
          continue;
        }
        bodyIds[v] = static_cast<uint32_t>(out.values.size());
        out.values.emplace_back();
        out.values.back().shape = out.values.back().israShape = shapeDigest(value.type.shape);
      }
      addGraphNodes(body, bodyIds, corpus, out, true);
      addBodies(body, bodyIds, corpus, out);
    }
  }
}

}  // namespace

void factsFromGraph(const Graph& graph, const BlockCorpus& corpus, ModelFacts& out) {
  out.clear();
  // Facts value ids are GraphIR value ids (dead ones simply have no uses).
  out.values.resize(graph.valueCapacity());
  std::vector<uint32_t> idOf(graph.valueCapacity());
  for (ValueId v = 0; v < graph.valueCapacity(); ++v) {
    idOf[v] = v;
    const Value& value = graph.value(v);
    if (!value.alive) continue;
    out.values[v].shape = shapeDigest(value.type.shape);
    out.values[v].israShape = out.values[v].shape;
  }
  addGraphNodes(graph, idOf, corpus, out, false);
  addBodies(graph, idOf, corpus, out);
  for (ValueId v : graph.outputs())
    if (out.values[v].producer >= 0) out.values[v].graphOutput = true;
  detail::finishUses(out);
  // Isra's script renames a produced graph output, so a node that also consumes it reads a
  // name with no producer and no value_info (our export declares none for outputs): [].
  for (auto& v : out.values)
    if (v.graphOutput && v.useEnd > v.useBegin) v.israShape = shapeDigest({});
}

}  // namespace nnfuzz::search
