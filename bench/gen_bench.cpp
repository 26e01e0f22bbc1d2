// gen_bench.cpp - time per valid model: generate (with reference values) + verify +
// serialise to ONNX bytes (BM_Isra65: without the verify, as a campaign), at fixed op counts. Isra's Python generator: ~4.3 ms per model
// of 1-30 ops; NNSmith: ~88 ms. Target: < 0.5 ms for a 10-op model. BM_Graph: the graph
// generator at N blocks per model (default mutations); target well under 1 ms at N = 15.
#include <benchmark/benchmark.h>

#include "gen/generator.h"
#include "gen/graph_gen.h"
#include "onnx/export.h"
#include "ops/infer_node.h"

namespace nnfuzz {
namespace {

/// Times make(index) + verify (what `nnfuzz gen` adds; a campaign does not) + serialise per
/// iteration.
template <typename Make>
void verifySerialise(benchmark::State& state, Make make, bool verify = true) {
  uint64_t index = 0;
  size_t bytes = 0, nodes = 0, attempts = 0;
  for (auto _ : state) {
    GeneratedCase k = make(index++);
    if (verify && verifyGraph(k.graph)) state.SkipWithError("invalid model");
    const std::string model = exportModelBytes(k.graph);  // as writeCase writes it: on the wire
    bytes += model.size();
    nodes += k.graph.numNodes();
    attempts += static_cast<size_t>(k.attempts);
    benchmark::DoNotOptimize(model.data());
  }
  state.counters["ops/model"] = static_cast<double>(nodes) / static_cast<double>(index);
  state.counters["draws/model"] = static_cast<double>(attempts) / static_cast<double>(index);
  state.counters["bytes/model"] = static_cast<double>(bytes) / static_cast<double>(index);
}

void generateVerifySerialise(benchmark::State& state, const std::string& generator) {
  GenConfig c = defaultConfig();
  c.generator = generator;
  c.minOps = c.maxOps = static_cast<int>(state.range(0));
  validateConfig(c);
  const std::unique_ptr<Generator> made = makeGenerator(c);
  verifySerialise(state, [&](uint64_t index) { return generateCase(*made, c.seed, index); });
}

void BM_Isra(benchmark::State& state) { generateVerifySerialise(state, "isra"); }
void BM_Randoop(benchmark::State& state) { generateVerifySerialise(state, "randoop"); }
/// Concolic insertion: the per-op cost is time / ops/model (rules from rules/).
void BM_Neuri(benchmark::State& state) { generateVerifySerialise(state, "neuri"); }

/// Isra's 65 operators (config/isra65.json), to set against Isra's own generator at equal
/// sizes (scripts/perf.sh): Arg(0) is its 1-30 operators, Arg(n) n operators.
void isra65(benchmark::State& state, bool verify) {
  GenConfig c = loadConfigFile(std::string(NNFUZZ_SOURCE_DIR) + "/config/isra65.json");
  if (state.range(0) > 0) c.minOps = c.maxOps = static_cast<int>(state.range(0));
  validateConfig(c);
  const std::unique_ptr<Generator> made = makeGenerator(c);
  verifySerialise(state, [&](uint64_t index) { return generateCase(*made, c.seed, index); }, verify);
}
/// As a campaign makes each model (generate with reference values, export to bytes): the
/// figure set against Isra's timer, which covers its generation alone.
void BM_Isra65(benchmark::State& state) { isra65(state, false); }
/// The same with `nnfuzz gen`'s check of every model (verifyGraph).
void BM_Isra65Verified(benchmark::State& state) { isra65(state, true); }

void BM_Graph(benchmark::State& state) {
  GenConfig c = defaultConfig();
  c.generator = "graph";
  c.graph.minBlocks = c.graph.maxBlocks = static_cast<int>(state.range(0));
  validateConfig(c);
  const BlockCorpus& corpus = graphCorpus(c);
  verifySerialise(state, [&](uint64_t index) {
    Rng rng(caseSeed(c.seed, index));
    return generateGraphModel(c, corpus, {}, rng);
  });
}

BENCHMARK(BM_Graph)->Arg(5)->Arg(10)->Arg(15)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Isra)->Arg(5)->Arg(10)->Arg(30)->Arg(100)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Isra65)->Arg(0)->Arg(10)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Isra65Verified)->Arg(0)->Arg(10)->Unit(benchmark::kMicrosecond);
// The same models on every run (cases 0..999), verified, for instruction counts under
// callgrind (comparable with the counts in docs/performance.md, which all include the check).
BENCHMARK(BM_Isra65Verified)->Name("BM_Isra65_1000")->Arg(0)->Arg(10)->Iterations(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Randoop)->Arg(10)->Arg(30)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Neuri)->Arg(5)->Arg(10)->Arg(30)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace nnfuzz

BENCHMARK_MAIN();
