// generated_models_test.cpp - on our generators' models: the GraphIR and ONNX builders
// give the same coverage, and KeepIfNew keeps the same cases whatever the thread count.
#include <gtest/gtest.h>

#include <thread>

#include "gen/generator.h"
#include "onnx/export.h"
#include "onnx/import.h"
#include "ops/registry.h"
#include "search/coverage_report.h"
#include "search/keep_if_new.h"

namespace nnfuzz::search {
namespace {

GenConfig config(const std::string& generator) {
  GenConfig c = defaultConfig();
  c.generator = generator;
  c.minOps = 1;
  c.maxOps = 30;
  validateConfig(c);
  return c;
}

TEST(GeneratedModels, GraphAndOnnxBuildersAgree) {
  for (const char* generator : {"isra", "declgen", "randoop"}) {
    SCOPED_TRACE(generator);
    const GenConfig c = config(generator);
    CoverageTracker fromGraph(defaultCorpus()), fromOnnx(defaultCorpus());
    ModelFacts facts;
    for (uint64_t i = 0; i < 60; ++i) {
      const GeneratedCase k = generateCase(c, i);
      const bool a = fromGraph.add(k.graph);
      factsFromOnnx(parseModel(serializeModel(exportModel(k.graph, c.opset)), "case"), fromOnnx.corpus(), facts);
      const bool b = fromOnnx.add(facts);
      ASSERT_EQ(a, b) << "case " << i;
    }
    EXPECT_EQ(coverageToJson(fromGraph).dump(1), coverageToJson(fromOnnx).dump(1));
    EXPECT_TRUE(fromGraph.unknownOps().empty());
    EXPECT_GT(fromGraph.luo()->report().otc, 0.2);
  }
}

std::vector<int64_t> keptWith(int threads, const GenConfig& c) {
  TrackerOptions o;
  o.metrics = MetricSets::Luo;
  o.luo.nMaxSpc = 3;  // saturate quickly so that candidates get rejected
  KeepIfNew keep(CoverageTracker(defaultCorpus(), o), 25, 1000);
  std::atomic<int64_t> next{0};
  std::mutex mu;
  std::vector<int64_t> kept;
  auto work = [&] {
    for (int64_t i = next++; !keep.finished(); i = next++) {
      const GeneratedCase k = generateCase(c, static_cast<uint64_t>(i));
      if (!keep.judge(i, k.graph)) continue;
      std::lock_guard lock(mu);
      kept.push_back(i);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(keep.kept(), static_cast<int64_t>(kept.size()));
  return kept;
}

TEST(GeneratedModels, KeepIfNewIsDeterministicAcrossThreads) {
  const GenConfig c = config("isra");
  const auto one = keptWith(1, c);
  EXPECT_EQ(one.size(), 25u);
  EXPECT_EQ(one.front(), 0);  // the first model always adds coverage
  EXPECT_EQ(keptWith(2, c), one);
  EXPECT_EQ(keptWith(3, c), one);
}

TEST(GeneratedModels, KeepIfNewStopsWhenCoverageSaturates) {
  // One operator, one shape: after the first few models nothing is new.
  GenConfig c = config("isra");
  c.ops = {findOp("Abs")};
  c.opWeights = {1.0};
  c.minOps = c.maxOps = 1;
  c.limits.maxRank = 0;
  TrackerOptions o;
  o.metrics = MetricSets::Luo;
  KeepIfNew keep(CoverageTracker(defaultCorpus(), o), 1000, 50);
  for (int64_t i = 0; !keep.finished(); ++i) keep.judge(i, generateCase(c, static_cast<uint64_t>(i)).graph);
  EXPECT_TRUE(keep.saturated());
  EXPECT_LT(keep.kept(), 1000);
  EXPECT_GE(keep.judged(), 50);
}

}  // namespace
}  // namespace nnfuzz::search
