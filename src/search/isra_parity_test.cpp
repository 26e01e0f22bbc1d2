// isra_parity_test.cpp - our isra generator connects its graphs as Isra's does.
//
// On Isra's 65 operators (the names of its bc.json) at 1-30 operators, f32, Isra's own
// generator (israProj/isra g.py, pickrate 0.97, 1,000 models) measured SEC 88.05%,
// DEC 3.14%, NOP 12.98 and NTR 8.81 per model (docs/performance.md). Ours used to reach
// 85.0%, 2.35%, 11.0 and 6.6: its value pool offered fresh inputs and weights for reuse,
// while Isra reuses only results (ValuePool's Reuse::ResultsAndSeed).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "gen/generator.h"
#include "search/isra_coverage.h"

namespace nnfuzz::search {
namespace {

const std::set<std::string> kIsraOps = {
    "Identity", "Abs", "Neg", "Reciprocal", "Floor", "Ceil", "Erf", "Sign", "Exp", "Softsign", "Softmax",
    "Sigmoid", "HardSigmoid", "Relu", "LeakyRelu", "Sin", "Cos", "Flatten", "Add", "Sub", "Mul", "Div", "Max",
    "Min", "Mean", "MaxPool", "AveragePool", "LpPool", "Conv", "MatMul", "Gemm", "Concat", "SpaceToDepth",
    "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSumSquare", "ReduceL1", "ReduceL2", "Pad",
    "BatchNormalization", "Expand", "Sum", "Round", "ReduceLogSumExp", "Sqrt", "PRelu", "Selu", "Gather",
    "Reshape", "Slice", "Split", "Tile", "Transpose", "Unsqueeze", "Elu", "Tanh", "ThresholdedRelu",
    "ReduceSum", "GlobalAveragePool", "GlobalMaxPool", "Softplus", "Resize", "Compress"};

TEST(IsraParity, ConnectsAsIsrasGeneratorDoes) {
  std::vector<Block> blocks;
  nlohmann::json ops = nlohmann::json::object();
  const BlockCorpus library = defaultCorpus();
  for (const Block& b : library.blocks())
    if (!b.isSubgraph() && kIsraOps.count(b.name)) {
      blocks.push_back(b);
      ops[b.name] = 1;
    }
  ASSERT_EQ(blocks.size(), kIsraOps.size());
  const BlockCorpus corpus(blocks);
  GenConfig c = applyConfigJson(defaultConfig(), nlohmann::json{
      {"ops", ops}, {"dtypes", {{"f32", 1}}}, {"min_ops", 1}, {"max_ops", 30}, {"seed", 1}});
  validateConfig(c);

  IsraCoverage coverage(corpus);
  ModelFacts facts;
  for (uint64_t i = 0; i < 1000; ++i) {
    factsFromGraph(generateCase(c, i).graph, corpus, facts);
    coverage.add(facts);
  }
  const IsraReport r = coverage.report();
  EXPECT_GE(r.sec, 0.87);
  EXPECT_GE(r.dec, 0.030);
  EXPECT_GE(r.nop, 12.5);
  EXPECT_GE(r.ntr, 8.5);
}

}  // namespace
}  // namespace nnfuzz::search
