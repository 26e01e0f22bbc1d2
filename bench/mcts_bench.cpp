// mcts_bench.cpp - the cost of one MCTS step of the block chooser: reading the per-operator
// coverage of a warm tracker, selection + expansion, and backpropagation, on a tree that has
// already grown over many steps (as in a campaign). Generation and SUT runs are not included.
#include <benchmark/benchmark.h>

#include "gen/generator.h"
#include "search/coverage_tracker.h"
#include "search/mcts.h"

namespace nnfuzz {
namespace {

void BM_MctsStep(benchmark::State& state) {
  const BlockCorpus corpus = defaultCorpus();
  search::CoverageTracker tracker(corpus, {search::MetricSets::Luo, {}});
  GenConfig config = defaultConfig();
  config.maxOps = 15;
  for (uint64_t i = 0; i < 256; ++i) tracker.add(generateCase(config, i).graph);
  search::BlockTree tree(corpus, {});
  Rng rng(1);
  auto coverageNow = [&] {
    std::vector<double> c;
    for (const auto& row : tracker.luo()->report().ops) c.push_back(row.olc);
    return c;
  };
  for (int i = 0; i < static_cast<int>(state.range(0)); ++i) tree.update(tree.choose(coverageNow(), rng).node, i % 3 == 0);
  int64_t i = 0;
  for (auto _ : state) {
    const auto choice = tree.choose(coverageNow(), rng);
    tree.update(choice.node, (i++ % 3) == 0);
    benchmark::DoNotOptimize(choice.blocks.data());
  }
  state.counters["tree_nodes"] = static_cast<double>(tree.size());
}
BENCHMARK(BM_MctsStep)->Arg(100)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace nnfuzz
