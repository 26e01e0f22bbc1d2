// seeds.cpp - starting inputs for the fuzz targets, and a simple mutator (targets.h).
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "fuzz/targets.h"
#include "gen/config.h"
#include "gen/generator.h"
#include "onnx/export.h"
#include "support/rng.h"

namespace nnfuzz::fuzz {

namespace {

std::vector<Graph> generatedGraphs(int n) {
  GenConfig config = defaultConfig();
  config.seed = 11;
  config.maxOps = 12;
  std::vector<Graph> graphs;
  for (int i = 0; i < n; ++i) graphs.push_back(generateCase(config, static_cast<uint64_t>(i)).graph);
  return graphs;
}

}  // namespace

std::vector<std::string> onnxModelSeeds(int n) {
  std::vector<std::string> seeds;
  for (const Graph& g : generatedGraphs(n)) {
    std::string bytes;
    exportModel(g).SerializeToString(&bytes);
    seeds.push_back(std::move(bytes));
  }
  return seeds;
}

std::vector<std::string> irTextSeeds(int n) {
  std::vector<std::string> seeds;
  for (const Graph& g : generatedGraphs(n)) seeds.push_back(printGraph(g));
  return seeds;
}

std::vector<std::string> configJsonSeeds() {
  return {configToJson(defaultConfig()).dump(),
          R"({"generator": "graph", "min_ops": 2, "max_ops": 4, "graph": {"model": "ws"}})",
          R"({"max_rank": 3, "dtypes": {"f32": 1, "i64": 0.5}, "ops": {"*": 1, "Conv": 3}, "exclude_ops": ["Resize"]})",
          R"({"avoid": [{"op": "Conv", "attrs": {"auto_pad": ["SAME_UPPER"]}}, {"op": "Mean", "dtypes": ["f64"]}]})",
          R"({"search": "mcts", "picking_rate": 0.5, "weight_rate": 0.1, "opset": 17})"};
}

std::vector<std::string> workerReplySeeds() {
  return {R"({"hello": "onnxruntime", "version": "1.31.1", "modes": ["opt", "noopt"], "protocol": 1, "passes": ["A"]})",
          R"({"id": 7, "phase": "prepare", "status": "ok", "seconds": 0.01})",
          R"({"id": 7, "phase": "run", "status": "ok", "outputs": ["/tmp/o/output_0.pb"], "seconds": 0.02})",
          R"({"id": 7, "phase": "prepare", "status": "error", "type": "Fail", "message": "no kernel", "stage": "convert"})",
          R"({"id": 7, "phase": "run", "status": "worker_error", "message": "bad case"})",
          R"({"hello": "onnxruntime", "version": "1.31.1", "modes": ["opt"], "protocol": 2})",
          R"({"id": 7, "phase": "run", "status": "ok", "outputs_file": "/tmp/o/outputs.pb", "seconds": 0.02})"};
}

void broken(const std::string& invariant, const std::string& detail) {
  std::fprintf(stderr, "invariant broken: %s\n%s\n", invariant.c_str(), detail.c_str());
  std::abort();
}

std::string mutate(const std::string& seed, uint64_t salt) {
  Rng rng(salt * 0x9e3779b97f4a7c15ull + seed.size());
  std::string s = seed;
  const int edits = 1 + static_cast<int>(rng.uniformInt(0, 3));
  for (int e = 0; e < edits; ++e) {
    const size_t at = s.empty() ? 0 : static_cast<size_t>(rng.uniformInt(0, static_cast<int64_t>(s.size()) - 1));
    switch (rng.uniformInt(0, 5)) {
      case 0:  // flip a bit
        if (!s.empty()) s[at] = static_cast<char>(s[at] ^ (1 << rng.uniformInt(0, 7)));
        break;
      case 1:  // an interesting byte
        if (!s.empty()) s[at] = static_cast<char>(std::vector<int>{0, 0xff, 0x7f, 0x80, '-', '9', '"', '['}[rng.uniformInt(0, 7)]);
        break;
      case 2: s.resize(at); break;  // cut
      case 3: s.erase(at, static_cast<size_t>(rng.uniformInt(1, 16))); break;
      case 4: s.insert(at, s.substr(at, static_cast<size_t>(rng.uniformInt(1, 32)))); break;  // repeat a chunk
      default: {  // a large varint-like number
        std::string digits = std::to_string(rng.uniformInt(0, int64_t{1} << 62));
        s.insert(at, digits);
      }
    }
  }
  return s;
}

}  // namespace nnfuzz::fuzz
