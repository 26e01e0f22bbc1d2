// block_corpus.cpp - corpus validation, the default corpus and the JSON forms.
#include "gen/block_corpus.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "gen/config.h"
#include "ops/registry.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

std::vector<std::string> splitMembers(const std::string& name) {
  std::vector<std::string> members;
  std::string part;
  std::istringstream in(name);
  while (std::getline(in, part, '+')) members.push_back(part);
  if (!name.empty() && name.back() == '+') members.emplace_back();
  return members;
}

void normaliseDegrees(std::vector<int>& degrees, const std::string& block, const char* what) {
  if (degrees.empty()) throw Error("corpus block '" + block + "': " + what + " is empty");
  for (int d : degrees)
    if (d < 0 || d > kMaxDegree) throw Error("corpus block '" + block + "': " + what + " " + std::to_string(d) + " is out of range");
  std::sort(degrees.begin(), degrees.end());
  degrees.erase(std::unique(degrees.begin(), degrees.end()), degrees.end());
}

std::vector<int> range(int lo, int hi) {
  std::vector<int> v;
  for (int d = lo; d <= hi; ++d) v.push_back(d);
  return v;
}

std::vector<int> readDegrees(const nlohmann::ordered_json& j, const std::string& block, const char* key) {
  if (!j.contains(key)) throw Error("corpus block '" + block + "' has no " + key);
  const auto& list = j.at(key);
  if (!list.is_array()) throw Error("corpus block '" + block + "': " + key + " must be a list of integers");
  std::vector<int> out;
  for (const auto& d : list) {
    if (!d.is_number_integer()) throw Error("corpus block '" + block + "': " + key + " must be a list of integers");
    out.push_back(d.get<int>());
  }
  return out;
}

Block readBlock(const std::string& name, const nlohmann::ordered_json& j) {
  if (!j.is_object()) throw Error("corpus block '" + name + "' must be an object");
  Block b;
  b.name = name;
  if (j.contains("members")) {
    b.recipe = readTemplate(j, name);
    for (const MemberTemplate& m : b.recipe->members) b.members.push_back(m.op);
    b.innerEdges = b.recipe->innerEdges();
    b.inDegrees = {b.recipe->numInputs()};
    if (j.contains("in_degree") && readDegrees(j, name, "in_degree") != b.inDegrees)
      throw Error("corpus block '" + name + "': in_degree must be [" + std::to_string(b.inDegrees[0]) +
                  "], the number of block inputs its members read");
    b.outDegrees = j.contains("out_degree") ? readDegrees(j, name, "out_degree") : range(0, kMaxDefaultOutDegree);
  } else {
    b.inDegrees = readDegrees(j, name, "in_degree");
    b.outDegrees = readDegrees(j, name, "out_degree");
  }
  if (j.contains("targets")) {
    const auto& t = j.at("targets");
    if (!t.is_array() || !std::all_of(t.begin(), t.end(), [](const auto& x) { return x.is_string(); }))
      throw Error("corpus block '" + name + "': targets must be a list of strings");
    b.targets = t.get<std::vector<std::string>>();
  }
  if (!b.recipe && j.contains("inner_edges") && !j.at("inner_edges").is_null()) {
    const auto& edges = j.at("inner_edges");
    if (!edges.is_array()) throw Error("corpus block '" + name + "': inner_edges must be a list of [src, dst] pairs");
    for (const auto& e : edges) {
      if (!e.is_array() || e.size() != 2 || !e[0].is_number_integer() || !e[1].is_number_integer())
        throw Error("corpus block '" + name + "': inner_edges must be a list of [src, dst] pairs");
      b.innerEdges.emplace_back(e[0].get<int>(), e[1].get<int>());
    }
  }
  return b;
}

}  // namespace

BlockCorpus::BlockCorpus(std::vector<Block> blocks) : blocks_(std::move(blocks)) {
  std::set<std::string, std::less<>> names;
  for (size_t i = 0; i < blocks_.size(); ++i) {
    Block& b = blocks_[i];
    if (b.name.empty()) throw Error("corpus block " + std::to_string(i) + " has no name");
    if (!names.insert(b.name).second) throw Error("corpus block '" + b.name + "' is listed twice");
    normaliseDegrees(b.inDegrees, b.name, "in_degree");
    normaliseDegrees(b.outDegrees, b.name, "out_degree");
    if (!b.recipe) b.members = splitMembers(b.name);
    for (const auto& m : b.members)
      if (m.empty()) throw Error("corpus block '" + b.name + "' has an empty operator name");
    if (!b.isSubgraph()) {
      if (!b.innerEdges.empty()) throw Error("corpus block '" + b.name + "' is an operator but has inner edges");
      opIndex_.emplace(b.name, static_cast<int>(opBlocks_.size()));
      opBlocks_.push_back(static_cast<int>(i));
    }
  }
  for (const Block& b : blocks_) {
    if (!b.isSubgraph()) continue;
    for (const auto& m : b.members)
      if (!opIndex_.count(m))
        throw Error("corpus subgraph '" + b.name + "' uses operator '" + m + "', which has no block of its own");
    const int n = static_cast<int>(b.members.size());
    for (auto [src, dst] : b.innerEdges)
      if (src < 0 || dst < 0 || src >= n || dst >= n || src == dst)
        throw Error("corpus subgraph '" + b.name + "' has a bad inner edge (" + std::to_string(src) + ", " +
                    std::to_string(dst) + ")");
  }
  // Old-style subgraphs get a recipe from their edges when one fits their in-degree.
  for (Block& b : blocks_) {
    if (!b.isSubgraph() || b.recipe) continue;
    auto derived = templateFromEdges(b.members, b.innerEdges);
    if (derived && std::binary_search(b.inDegrees.begin(), b.inDegrees.end(), derived->numInputs()))
      b.recipe = std::move(derived);
  }
}

int BlockCorpus::opIndex(std::string_view type) const {
  auto it = opIndex_.find(type);
  return it == opIndex_.end() ? -1 : it->second;
}

BlockCorpus defaultCorpus() {
  std::vector<Block> blocks;
  std::set<std::string_view> seen;  // the registry may list an op twice; a corpus may not
  const int opset = GenConfig{}.opset;  // the default one: coverage of what it can draw
  for (const OpSpec* spec : allOps()) {
    if (!drawableAt(*spec, opset) || !seen.insert(spec->name).second) continue;
    Block b;
    b.name = std::string(spec->name);
    b.inDegrees = range(spec->minInputs, std::max(spec->minInputs, std::min(spec->maxInputs, kMaxListedInDegree)));
    b.outDegrees = range(0, kMaxDefaultOutDegree);
    blocks.push_back(std::move(b));
  }
  // Luo's Fig. 5 subgraphs (TensorFlow's Conv2d is ONNX's Conv); each takes two data flows.
  struct Sub {
    const char* name;
    std::vector<std::pair<int, int>> edges;
  };
  const Sub subs[] = {{"Conv+Relu+Pow+Concat", {{0, 1}, {1, 3}, {2, 3}}},
                      {"Conv+Conv+Add+Add", {{0, 2}, {1, 2}, {2, 3}, {2, 3}}}};
  for (const Sub& s : subs) {
    Block b;
    b.name = s.name;
    const auto members = splitMembers(b.name);
    if (!std::all_of(members.begin(), members.end(), [&](const std::string& m) { return seen.count(m) > 0; }))
      continue;
    b.inDegrees = {2};
    b.outDegrees = range(0, kMaxDefaultOutDegree);
    b.innerEdges = s.edges;
    blocks.push_back(std::move(b));
  }
  return BlockCorpus(std::move(blocks));
}

BlockCorpus corpusFromJson(const nlohmann::ordered_json& json) {
  if (!json.is_object()) throw Error("a corpus must be a JSON object");
  std::vector<Block> blocks;
  if (json.contains("blocks")) {
    const auto& list = json.at("blocks");
    if (!list.is_array()) throw Error("corpus: \"blocks\" must be a list");
    for (const auto& j : list) {
      if (!j.is_object() || !j.contains("name") || !j.at("name").is_string())
        throw Error("corpus: every block needs a \"name\" string");
      blocks.push_back(readBlock(j.at("name").get<std::string>(), j));
    }
  } else {
    for (const auto& [name, j] : json.items()) blocks.push_back(readBlock(name, j));  // Isra's bc.json
  }
  if (blocks.empty()) throw Error("corpus has no blocks");
  return BlockCorpus(std::move(blocks));
}

BlockCorpus builtinBlocks() {
  static constexpr const char kText[] =
#include "blocks.inc"
      ;
  return corpusFromJson(nlohmann::ordered_json::parse(kText));
}

BlockCorpus loadCorpusFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read corpus file " + path.string());
  nlohmann::ordered_json json;
  try {
    json = nlohmann::ordered_json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error("corpus file " + path.string() + " is not valid JSON: " + e.what());
  }
  try {
    return corpusFromJson(json);
  } catch (const Error& e) {
    throw Error(path.string() + ": " + e.what());
  }
}

nlohmann::ordered_json corpusToJson(const BlockCorpus& corpus) {
  nlohmann::ordered_json blocks = nlohmann::ordered_json::array();
  for (const Block& b : corpus.blocks()) {
    nlohmann::ordered_json j;
    j["name"] = b.name;
    j["in_degree"] = b.inDegrees;
    j["out_degree"] = b.outDegrees;
    if (!b.targets.empty()) j["targets"] = b.targets;
    if (b.isSubgraph()) {
      if (b.recipe) writeTemplate(*b.recipe, j);
      nlohmann::ordered_json edges = nlohmann::ordered_json::array();
      for (auto [src, dst] : b.innerEdges) edges.push_back({src, dst});
      j["inner_edges"] = edges;
    }
    blocks.push_back(j);
  }
  return {{"blocks", blocks}};
}

}  // namespace nnfuzz
