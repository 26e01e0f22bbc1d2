// opset_gen_test.cpp - generation at other opsets than 17: the config's opset and mix,
// models that hold only what their opset can express, avoid rules limited to opsets.
#include <gtest/gtest.h>

#include <set>

#include "gen/config.h"
#include "gen/generator.h"
#include "ops/infer_node.h"
#include "ops/opset_fit.h"
#include "ops/registry.h"
#include "ops/version_forms.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

TEST(OpsetGen, ModelsHoldOnlyWhatTheirOpsetExpresses) {
  for (int opset : {7, 11, 21}) {
    GenConfig c = applyConfigJson(defaultConfig(), {{"opset", opset}, {"seed", 5}});
    validateConfig(c);
    for (uint64_t i = 0; i < 15; ++i) {
      const GeneratedCase g = generateCase(c, i);
      EXPECT_EQ(g.graph.opset(), opset);
      EXPECT_EQ(verifyGraph(g.graph), std::nullopt);
      EXPECT_EQ(opsetMisfit(g.graph, opset), std::nullopt) << "opset " << opset << " case " << i;
      for (const std::string& op : g.opTypes()) EXPECT_TRUE(availableAt(op, opset)) << op << " at " << opset;
    }
  }
}

TEST(OpsetGen, MixIsDrawnPerCaseAndRoundTrips) {
  GenConfig c = applyConfigJson(defaultConfig(), {{"opsets", {{"11", 1}, {"21", 1}}}});
  validateConfig(c);
  std::set<int> seen;
  for (uint64_t i = 0; i < 20; ++i) {
    const int opset = generateCase(c, i).graph.opset();
    EXPECT_EQ(generateCase(c, i).graph.opset(), opset);  // a function of (config, seed, index)
    seen.insert(opset);
  }
  EXPECT_EQ(seen, (std::set<int>{11, 21}));
  const GenConfig back = applyConfigJson(defaultConfig(), configToJson(c));
  EXPECT_EQ(configHash(back), configHash(c));
  EXPECT_NE(configHash(c), configHash(defaultConfig()));
}

TEST(OpsetGen, BadOpsetsAreOneLineErrors) {
  for (const nlohmann::json& bad : {nlohmann::json{{"opset", 6}}, nlohmann::json{{"opset", 22}},
                                    nlohmann::json{{"opsets", {{"x", 1}}}}, nlohmann::json{{"opsets", {{"13", -1}}}},
                                    nlohmann::json{{"opsets", {{"13", 0}}}}, nlohmann::json{{"ops", {{"LayerNormalization", 1}}}, {"opset", 16}}}) {
    try {
      validateConfig(applyConfigJson(defaultConfig(), bad));
      ADD_FAILURE() << bad.dump() << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
      EXPECT_NE(std::string(e.what()).find("opset"), std::string::npos) << e.what();
    }
  }
}

TEST(OpsetGen, AvoidRulesHoldAtTheirOpsets) {
  GenConfig c = applyConfigJson(defaultConfig(), {{"avoid", {{{"op", "Relu"}, {"opsets", {14}}}}}});
  const OpSpec& relu = *findOp("Relu");
  const TensorType t{DType::Float32, {2}};
  const std::vector<const TensorType*> operands{&t};
  c.opset = 14;
  EXPECT_TRUE(c.avoids(relu, operands, {}));
  c.opset = 15;
  EXPECT_FALSE(c.avoids(relu, operands, {}));
  // Int32 Relu exists from opset 14 only: the opset's schema refuses it at 13.
  const TensorType i{DType::Int32, {2}};
  const std::vector<const TensorType*> ints{&i};
  c.avoid.clear();
  c.opset = 13;
  EXPECT_TRUE(c.avoids(relu, ints, {}));
  c.opset = 15;
  EXPECT_FALSE(c.avoids(relu, ints, {}));
}

}  // namespace
}  // namespace nnfuzz
