// graph_models_test.cpp - 2,000 graph-generator models (N in 5..15, several seeds, with the
// default mutations) all pass the ONNX checker with strict shape inference, ONNX's inferred
// types equal ours, and >= 99% have finite reference outputs. NNFUZZ_TEST_SCALE scales
// the count.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "gen/generator.h"
#include "onnx/export.h"
#include "onnx/model_check.h"
#include "ops/infer_node.h"

namespace nnfuzz {
namespace {

int scaledCount(int n) {
  const char* s = std::getenv("NNFUZZ_TEST_SCALE");
  return std::max(1, static_cast<int>(n * (s ? std::atof(s) : 1.0)));
}

TEST(GraphModels, AllPassTheOnnxCheckerAndAlmostAllAreFinite) {
  const int perSeed = scaledCount(500);
  std::map<std::string, int> failures;
  int checked = 0, finite = 0;
  for (uint64_t seed : {1, 7, 42, 2024}) {
    GenConfig c = defaultConfig();
    c.generator = "graph";
    c.seed = seed;
    c.graph.minBlocks = 5;
    c.graph.maxBlocks = 15;
    validateConfig(c);
    for (int i = 0; i < perSeed; ++i) {
      GeneratedCase k = generateCase(c, static_cast<uint64_t>(i));
      auto problem = verifyGraph(k.graph);
      if (!problem) problem = checkModel(exportModel(k.graph), &k.graph);
      if (problem && failures[problem->substr(0, 120)]++ == 0)
        ADD_FAILURE() << "seed " << seed << " case " << i << ": " << *problem << "\n" << printGraph(k.graph);
      finite += !k.nonFinite;
      ++checked;
    }
  }
  std::printf("checked %d graph models: %zu distinct checker failures, %d with finite outputs\n", checked,
              failures.size(), finite);
  EXPECT_TRUE(failures.empty());
  EXPECT_GE(finite, checked * 99 / 100);
}

}  // namespace
}  // namespace nnfuzz
