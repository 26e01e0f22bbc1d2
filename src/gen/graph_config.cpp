// graph_config.cpp - the "graph" object of the generation config (GraphSettings).
#include <set>

#include "gen/config.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

using nlohmann::json;

[[noreturn]] void badGraphField(const std::string& field, const std::string& why) {
  throw Error("config field 'graph." + field + "': " + why);
}

double real(const json& j, const std::string& field) {
  if (!j.is_number()) badGraphField(field, "expected a number");
  return j.get<double>();
}

int integer(const json& j, const std::string& field) {
  if (!j.is_number_integer()) badGraphField(field, "expected an integer");
  return j.get<int>();
}

bool flag(const json& j, const std::string& field) {
  if (!j.is_boolean()) badGraphField(field, "expected true or false");
  return j.get<bool>();
}

const std::set<std::string> kGraphFields = {"model", "blocks", "k", "p_ws", "p_rn", "same_size_padding",
                                            "subgraph_weight", "mutations", "blocks_file"};
const std::set<std::string> kMutationFields = {"r", "edges_add", "edges_remove", "nodes_add", "nodes_remove",
                                               "tensor_shape", "parameter"};

}  // namespace

GraphSettings applyGraphJson(GraphSettings g, const json& j) {
  if (!j.is_object()) throw Error("config field 'graph': expected an object");
  for (const auto& [key, _] : j.items())
    if (!kGraphFields.count(key)) throw Error("config: unknown field 'graph." + key + "'");
  if (j.contains("model")) {
    if (!j["model"].is_string()) badGraphField("model", "expected \"ws\", \"rn\" or \"both\"");
    g.model = j["model"].get<std::string>();
  }
  if (j.contains("blocks")) {
    const json& b = j["blocks"];
    if (b.is_object()) {
      for (const auto& [key, _] : b.items())
        if (key != "min" && key != "max") badGraphField("blocks", "expected {\"min\": N, \"max\": M}");
      if (b.contains("min")) g.minBlocks = integer(b["min"], "blocks.min");
      if (b.contains("max")) g.maxBlocks = integer(b["max"], "blocks.max");
    } else {
      g.minBlocks = g.maxBlocks = integer(b, "blocks");
    }
  }
  if (j.contains("k")) {
    const json& k = j["k"];
    g.k.clear();
    if (k.is_array()) {
      for (const json& v : k) g.k.push_back(integer(v, "k"));
    } else {
      g.k.push_back(integer(k, "k"));
    }
  }
  if (j.contains("p_ws")) g.pWs = real(j["p_ws"], "p_ws");
  if (j.contains("p_rn")) g.pRn = real(j["p_rn"], "p_rn");
  if (j.contains("same_size_padding")) g.sameSizePadding = real(j["same_size_padding"], "same_size_padding");
  if (j.contains("subgraph_weight")) g.subgraphWeight = real(j["subgraph_weight"], "subgraph_weight");
  if (j.contains("mutations")) {
    const json& m = j["mutations"];
    if (!m.is_object()) badGraphField("mutations", "expected an object");
    for (const auto& [key, _] : m.items())
      if (!kMutationFields.count(key)) throw Error("config: unknown field 'graph.mutations." + key + "'");
    if (m.contains("r")) {
      if (!m["r"].is_array()) badGraphField("mutations.r", "expected a list of rates");
      g.mutationRates.clear();
      for (const json& r : m["r"]) g.mutationRates.push_back(real(r, "mutations.r"));
    }
    auto set = [&](const char* key, bool& field) {
      if (m.contains(key)) field = flag(m[key], std::string("mutations.") + key);
    };
    set("edges_add", g.edgesAdd);
    set("edges_remove", g.edgesRemove);
    set("nodes_add", g.nodesAdd);
    set("nodes_remove", g.nodesRemove);
    set("tensor_shape", g.tensorShape);
    set("parameter", g.parameter);
  }
  if (j.contains("blocks_file")) {
    if (!j["blocks_file"].is_string()) badGraphField("blocks_file", "expected a file name");
    g.blocksFile = j["blocks_file"].get<std::string>();
    g.corpus = std::make_shared<const BlockCorpus>(g.blocksFile.empty() ? builtinBlocks()
                                                                          : loadCorpusFile(g.blocksFile));
  }
  return g;
}

void validateGraphSettings(const GraphSettings& g) {
  if (g.model != "ws" && g.model != "rn" && g.model != "both")
    throw Error("graph.model must be \"ws\", \"rn\" or \"both\", got \"" + g.model + "\"");
  if (g.minBlocks < 1 || g.minBlocks > g.maxBlocks || g.maxBlocks > 1000)
    throw Error("graph.blocks needs 1 <= min <= max <= 1000, got " + std::to_string(g.minBlocks) + ".." +
                std::to_string(g.maxBlocks));
  if (g.k.empty()) throw Error("graph.k needs at least one value");
  for (int k : g.k)
    if (k < 2 || k > 64) throw Error("graph.k values must be in [2, 64], got " + std::to_string(k));
  if (!(g.pWs >= 0 && g.pWs <= 1)) throw Error("graph.p_ws must be in [0, 1]");
  if (!(g.pRn > 0 && g.pRn <= 1)) throw Error("graph.p_rn must be in (0, 1]");
  if (!(g.sameSizePadding >= 0 && g.sameSizePadding <= 1)) throw Error("graph.same_size_padding must be in [0, 1]");
  if (!(g.subgraphWeight >= 0)) throw Error("graph.subgraph_weight must be >= 0");
  if (g.mutationRates.empty()) throw Error("graph.mutations.r needs at least one rate");
  for (double r : g.mutationRates)
    if (!(r >= 0 && r < 1)) throw Error("graph.mutations.r values must be in [0, 1)");
  if (!g.corpus) throw Error("graph: no block corpus loaded");
}

json graphSettingsToJson(const GraphSettings& g) {
  json j;
  j["model"] = g.model;
  j["blocks"] = {{"min", g.minBlocks}, {"max", g.maxBlocks}};
  j["k"] = g.k;
  j["p_ws"] = g.pWs;
  j["p_rn"] = g.pRn;
  j["same_size_padding"] = g.sameSizePadding;
  j["subgraph_weight"] = g.subgraphWeight;
  j["mutations"] = {{"r", g.mutationRates},         {"edges_add", g.edgesAdd},
                    {"edges_remove", g.edgesRemove}, {"nodes_add", g.nodesAdd},
                    {"nodes_remove", g.nodesRemove}, {"tensor_shape", g.tensorShape},
                    {"parameter", g.parameter}};
  j["blocks_file"] = g.blocksFile;
  return j;
}

}  // namespace nnfuzz
