// caffe_gen_test.cpp - the Caffe config draws only models with a Caffe form: every case of
// config/caffe.json exports to Caffe, with float blobs only and graph outputs Caffe has
// tops for. NNFUZZ_TEST_SCALE scales the case count.
#include <algorithm>
#include <cstdlib>
#include <set>

#include <gtest/gtest.h>

#include "caffe/export.h"
#include "caffe/layer_map.h"
#include "gen/generator.h"
#include "ir/graph.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

int scaled(int n) {
  const char* s = std::getenv("NNFUZZ_TEST_SCALE");
  return std::max(5, static_cast<int>(n * (s ? std::atof(s) : 1.0)));
}

TEST(CaffeGeneration, EveryCaseOfTheCaffeConfigExports) {
  const GenConfig config = loadConfigFile(std::string(NNFUZZ_SOURCE_DIR) + "/config/caffe.json");
  ASSERT_EQ(config.format, "caffe");
  std::set<std::string> ops;
  const int n = scaled(300);
  for (int i = 0; i < n; ++i) {
    const GeneratedCase c = generateCase(config, static_cast<uint64_t>(i));
    ASSERT_EQ(caffeProblem(c.graph), "") << "case " << i << "\n" << printGraph(c.graph);
    EXPECT_EQ(c.unsoundOps, 0) << c.firstUnsound;
    EXPECT_FALSE(c.graph.inputs().empty());
    for (const auto& op : c.opTypes()) ops.insert(op);
  }
  EXPECT_GE(ops.size(), n >= 300 ? 30u : 10u) << "the Caffe config should reach most mapped operators";
}

TEST(CaffeGeneration, FormatIsValidatedAndKeepsOnnxHashes) {
  GenConfig config = defaultConfig();
  const std::string onnxHash = configHash(config);
  config.format = "both";
  EXPECT_NE(configHash(config), onnxHash);
  config.format = "caffe2";
  EXPECT_THROW(validateConfig(config), Error);
  config.format = "caffe";
  config.generator = "graph";
  EXPECT_THROW(validateConfig(config), Error);
  EXPECT_FALSE(configToJson(defaultConfig()).contains("format"));
}

}  // namespace
}  // namespace nnfuzz

namespace nnfuzz {
namespace {

TEST(CaffeGeneration, WeightFillSetsConstantsAndSparsity) {
  GenConfig config = loadConfigFile(std::string(NNFUZZ_SOURCE_DIR) + "/config/caffe.json");
  config = applyConfigJson(config, nlohmann::json::parse(R"({"weight_fill": {"Conv": {"sparsity": 1.0},
                                                                              "Gemm": {"constant": 0.25}}})"));
  EXPECT_EQ(configToJson(config)["weight_fill"]["Conv"]["sparsity"], 1.0);
  int convWeights = 0, gemmWeights = 0;
  for (uint64_t i = 0; i < 200; ++i) {
    const GeneratedCase c = generateCase(config, i);
    for (NodeId id : c.graph.nodes()) {
      const Node& n = c.graph.node(id);
      if (n.op != "Conv" && n.op != "Gemm") continue;
      const Value& w = c.graph.value(n.inputs[1]);
      if (w.kind != ValueKind::Weight || w.uses.size() > 1) continue;  // a reused weight was filled by its first user
      for (double v : w.data->data) EXPECT_EQ(v, n.op == "Conv" ? 0.0 : 0.25) << n.op;
      (n.op == "Conv" ? convWeights : gemmWeights) += 1;
    }
  }
  EXPECT_GT(convWeights, 0);
  EXPECT_GT(gemmWeights, 0);
  EXPECT_THROW(applyConfigJson(config, nlohmann::json::parse(R"({"weight_fill": {"Conv": {"sparsity": 2}}})")), Error);
  EXPECT_THROW(applyConfigJson(config, nlohmann::json::parse(R"({"weight_fill": {"Nope": {"constant": 1}}})")), Error);
}

}  // namespace
}  // namespace nnfuzz
