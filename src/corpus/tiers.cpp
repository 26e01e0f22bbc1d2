#include "corpus/tiers.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "corpus/classic_nets.h"
#include "gen/generator.h"
#include "onnx/case_folder.h"
#include "ops/instantiate.h"
#include "ops/registry.h"
#include "support/error.h"

namespace nnfuzz {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// A scratch folder removed when it goes out of scope.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    static int counter = 0;
    path = fs::temp_directory_path() / ("nnfuzz-corpus-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void addCase(CorpusDb& db, CorpusEntry entry, const Graph& graph, const std::vector<Tensor>& inputs,
             const std::vector<Tensor>& outputs, const json& meta) {
  ScratchDir scratch;
  writeCase(scratch.path, graph, inputs, outputs, meta);
  entry.ir = printGraph(graph);
  db.add(std::move(entry), scratch.path);
}

}  // namespace

int fillOperatorTier(CorpusDb& db, uint64_t seed) {
  db.clearTier(1);
  const GenConfig base = defaultConfig();
  int added = 0;
  for (const OpSpec* spec : allOps()) {
    // A control-flow node alone has no operators to grow its bodies from: not one operator.
    if (!usableUnder(*spec, base.limits) || !spec->bodies.empty() || !drawableAt(*spec, base.opset)) continue;
    GenConfig c = base;
    c.ops = {spec};
    c.opWeights = {1.0};
    c.minOps = c.maxOps = 1;
    c.seed = seed;
    // A few draws: the first may be non-finite or avoided entirely.
    for (uint64_t index = 0; index < 8; ++index) {
      GeneratedCase k = generateCase(c, index);
      if (k.nonFinite || k.graph.numNodes() != 1) continue;
      CorpusEntry e;
      e.tier = 1;
      e.name = "op/" + std::string(spec->name);
      e.origin = "seed " + std::to_string(seed) + " case " + std::to_string(index);
      addCase(db, e, k.graph, k.inputs, k.outputs, {{"corpus_tier", 1}, {"op", spec->name}, {"seed", seed}});
      ++added;
      break;
    }
  }
  return added;
}

int fillNetworkTier(CorpusDb& db, uint64_t seed) {
  db.clearTier(2);
  int added = 0;
  for (const BuiltNet& net : classicNets(seed)) {
    CorpusEntry e;
    e.tier = 2;
    e.name = "net/" + net.name;
    e.origin = "seed " + std::to_string(seed);
    addCase(db, e, net.graph, net.inputs, net.outputs, {{"corpus_tier", 2}, {"network", net.name}, {"seed", seed}});
    ++added;
  }
  return added;
}

int importCampaignBugs(CorpusDb& db, const fs::path& campaignDir) {
  const fs::path bugs = campaignDir / "bugs";
  if (!fs::is_directory(bugs)) return 0;
  std::vector<fs::path> bundles;
  for (const auto& d : fs::directory_iterator(bugs))
    if (d.is_directory() && d.path().filename().string().front() != '.' && fs::exists(d.path() / "meta.json"))
      bundles.push_back(d.path());
  std::sort(bundles.begin(), bundles.end());
  int added = 0;
  for (const fs::path& bundle : bundles) {
    const std::string name = bundle.filename().string();
    if (db.has(3, name, "onnx")) continue;
    json meta;
    try {
      std::ifstream in(bundle / "meta.json");
      meta = json::parse(in);
    } catch (const json::exception&) {
      continue;  // not a bundle nnfuzz wrote
    }
    CorpusEntry e;
    e.tier = 3;
    e.name = name;
    e.sut = meta.value("backend", "");
    e.version = meta.contains("versions") ? meta["versions"].value(e.sut, "") : "";
    e.verdict = meta.value("class", "") + " " + meta.value("mode", "") +
                (meta.value("against", "reference") == "reference" ? "" : " vs " + meta.value("against", ""));
    e.origin = fs::absolute(bundle).string();
    std::ifstream ir(bundle / "model.ir");
    if (ir) e.ir.assign(std::istreambuf_iterator<char>(ir), {});
    // The case itself: the reduced model, its inputs and reference outputs, the meta.
    ScratchDir scratch;
    fs::create_directories(scratch.path);
    fs::copy_file(bundle / "model.onnx", scratch.path / "model.onnx");
    fs::copy(bundle / "test_data_set_0", scratch.path / "test_data_set_0", fs::copy_options::recursive);
    fs::copy_file(bundle / "meta.json", scratch.path / "meta.json");
    db.add(e, scratch.path);
    ++added;
  }
  return added;
}

}  // namespace nnfuzz
