// gen_test.cpp - generators: validity, determinism, golden output, config errors.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <set>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gen/config.h"
#include "gen/generator.h"
#include "gen/golden_test_util.h"
#include "interp/interpreter.h"
#include "ops/infer_node.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

GenConfig configFor(const std::string& generator, int minOps, int maxOps, uint64_t seed) {
  GenConfig c = defaultConfig();
  c.generator = generator;
  c.minOps = minOps;
  c.maxOps = maxOps;
  c.seed = seed;
  validateConfig(c);
  return c;
}

TEST(Generators, EveryCaseVerifiesAndHasFiniteReferenceOutputs) {
  for (const std::string gen : {"isra", "randoop", "declgen"}) {
    SCOPED_TRACE(gen);
    GenConfig c = configFor(gen, 1, gen == "declgen" ? 4 : 30, 11);
    int nonFinite = 0;
    const int n = gen == "isra" ? 300 : 60;
    for (int i = 0; i < n; ++i) {
      GeneratedCase k = generateCase(c, static_cast<uint64_t>(i));
      ASSERT_EQ(verifyGraph(k.graph), std::nullopt) << printGraph(k.graph);
      ASSERT_GE(k.graph.numNodes(), 1u);
      ASSERT_EQ(k.inputs.size(), k.graph.inputs().size());
      ASSERT_EQ(k.outputs.size(), k.graph.outputs().size());
      nonFinite += k.nonFinite;
      ASSERT_EQ(k.unsoundOps, 0) << k.firstUnsound;
      if (gen == "isra") {
        // The reference re-run from scratch gives exactly the outputs generation recorded.
        auto rerun = runGraph(k.graph, k.inputs);
        ASSERT_EQ(rerun.size(), k.outputs.size());
        for (size_t o = 0; o < rerun.size(); ++o) ASSERT_EQ(rerun[o].type, k.outputs[o].type);
      }
    }
    if (gen == "isra") {
      EXPECT_EQ(nonFinite, 0);
    }
  }
}

TEST(Generators, IsraHitsTheRequestedOpCount) {
  GenConfig c = configFor("isra", 20, 20, 3);
  int exact = 0;
  for (int i = 0; i < 50; ++i) exact += generateCase(c, static_cast<uint64_t>(i)).graph.numNodes() == 20u;
  EXPECT_GE(exact, 48);
}

TEST(Generators, SameSeedSameCaseDifferentSeedDifferentCase) {
  for (const std::string gen : {"isra", "randoop", "declgen"}) {
    GenConfig c = configFor(gen, 1, 10, 5);
    GeneratedCase a = generateCase(c, 3), b = generateCase(c, 3), other = generateCase(c, 4);
    EXPECT_EQ(printGraph(a.graph), printGraph(b.graph)) << gen;
    EXPECT_EQ(a.inputs, b.inputs) << gen;
    EXPECT_NE(printGraph(a.graph), printGraph(other.graph)) << gen;
  }
}

TEST(Generators, PickingRateControlsReuse) {
  // Isra §4.4.4: a higher picking rate means fewer placeholders per operation.
  auto placeholdersPerOp = [](double rate) {
    GenConfig c = configFor("isra", 30, 30, 9);
    c.pickingRate = rate;
    double params = 0, nodes = 0;
    for (int i = 0; i < 40; ++i) {
      GeneratedCase k = generateCase(c, static_cast<uint64_t>(i));
      params += static_cast<double>(k.graph.params().size());
      nodes += static_cast<double>(k.graph.numNodes());
    }
    return params / nodes;
  };
  EXPECT_LT(placeholdersPerOp(0.97), placeholdersPerOp(0.3));
}

// Golden text: a fixed seed and a fixed small op set give exactly this graph. Regenerate
// with NNFUZZ_UPDATE_GOLDEN=1 after an intended change of the generator.
TEST(Generators, IsraGoldenText) {
  GenConfig c = applyConfigJson(defaultConfig(), nlohmann::json::parse(R"({
      "ops": {"Abs": 1, "Exp": 1, "Log": 1, "Neg": 1, "Sqrt": 1, "Sin": 1},
      "dtypes": {"f32": 1}, "min_ops": 6, "max_ops": 6, "max_rank": 3, "max_dim": 3, "seed": 7})"));
  validateConfig(c);
  expectGoldenText(printGraph(generateCase(c, 0).graph), "src/gen/testdata/isra_seed7.ir");
}

TEST(Config, BadConfigsGiveOneLineErrors) {
  auto message = [](const std::string& json) -> std::string {
    try {
      validateConfig(applyConfigJson(defaultConfig(), nlohmann::json::parse(json)));
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message(R"({"ops": {"Frobnicate": 1}})").find("Frobnicate"), std::string::npos);
  EXPECT_NE(message(R"({"ops": {"If": 1, "Loop": 1}})").find("only control-flow"), std::string::npos);
  EXPECT_NE(message(R"({"min_ops": 9, "max_ops": 3})").find("greater than max_ops"), std::string::npos);
  EXPECT_NE(message(R"({"max_ops": "ten"})").find("max_ops"), std::string::npos);
  EXPECT_NE(message(R"({"colour": 1})").find("colour"), std::string::npos);
  EXPECT_NE(message(R"({"dtypes": {"f16": 1}})").find("f16"), std::string::npos);
  EXPECT_NE(message(R"({"generator": "nnsmith"})").find("nnsmith"), std::string::npos);
  EXPECT_NE(message(R"({"picking_rate": 1.5})").find("picking_rate"), std::string::npos);
  EXPECT_EQ(message(R"({"ops": {"*": 1, "Exp": 3}, "exclude_ops": ["Log"]})"), "");
  for (const std::string& m : {message(R"({"ops": {"Frobnicate": 1}})"), message(R"({"min_ops": 9, "max_ops": 3})")})
    EXPECT_EQ(m.find('\n'), std::string::npos);
}

TEST(Config, MalformedFileNamesTheFile) {
  const auto path = std::filesystem::temp_directory_path() / "nnfuzz_bad_config.json";
  std::ofstream(path) << "{\"min_ops\": 3,,}";
  try {
    loadConfigFile(path.string());
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos);
  }
  EXPECT_THROW(loadConfigFile("/nonexistent/config.json"), Error);
}

TEST(Config, JsonRoundTripKeepsTheHash) {
  GenConfig c = applyConfigJson(defaultConfig(), nlohmann::json::parse(R"({"ops": {"Exp": 2, "Log": 1}, "max_dim": 4})"));
  GenConfig back = applyConfigJson(defaultConfig(), configToJson(c));
  EXPECT_EQ(configHash(c), configHash(back));
  EXPECT_NE(configHash(c), configHash(defaultConfig()));
}

TEST(ValuesConfig, KindsAreValidated) {
  const GenConfig c = applyConfigJson(defaultConfig(), nlohmann::json::parse(R"({"values": {"special": 1}})"));
  EXPECT_EQ(c.values, (ValueMix{0, 0, 1, 0}));
  EXPECT_EQ(configToJson(c)["values"]["special"], 1.0);
  EXPECT_THROW(applyConfigJson(defaultConfig(), nlohmann::json::parse(R"({"values": {"huge": 1}})")), Error);
  EXPECT_THROW(applyConfigJson(defaultConfig(), nlohmann::json::parse(R"({"values": {"wide": -1}})")), Error);
  EXPECT_THROW(applyConfigJson(defaultConfig(), nlohmann::json::parse(R"({"values": {"narrow": 0}})")), Error);
  EXPECT_THROW(applyConfigJson(defaultConfig(), nlohmann::json::parse(R"({"values": [1]})")), Error);
}

// Extra graph outputs (config "outputs"): none by default; at given odds, results read by
// later nodes and weights read by nodes are outputs too, and the cases stay valid.
TEST(OutputsConfig, CountsOverGeneratedModels) {
  // Returns {consumed results that are outputs, consumed results; weights that are outputs, read weights}.
  auto count = [](const std::string& outputs) {
    GenConfig c = applyConfigJson(defaultConfig(), nlohmann::json::parse(R"({"min_ops": 5, "max_ops": 15, "seed": 3,
                                                                             "outputs": )" + outputs + "}"));
    validateConfig(c);
    std::array<int, 4> n{};
    for (uint64_t i = 0; i < 60; ++i) {
      const GeneratedCase k = generateCase(c, i);
      EXPECT_EQ(verifyGraph(k.graph), std::nullopt);
      EXPECT_EQ(k.outputs.size(), k.graph.outputs().size());
      const std::set<ValueId> outs(k.graph.outputs().begin(), k.graph.outputs().end());
      for (NodeId id : k.graph.nodes())
        for (ValueId v : k.graph.node(id).outputs)
          if (!k.graph.value(v).uses.empty()) ++n[1], n[0] += outs.count(v) > 0;
      for (ValueId w : k.graph.weights())
        if (!k.graph.value(w).uses.empty()) ++n[3], n[2] += outs.count(w) > 0;
      for (size_t o = 0; o < k.graph.outputs().size(); ++o) {
        const Value& v = k.graph.value(k.graph.outputs()[o]);
        if (v.kind == ValueKind::Weight) {
          EXPECT_EQ(k.outputs[o].data, v.data->data);
        }
      }
    }
    return n;
  };
  const auto none = count("{}");
  EXPECT_EQ(none[0], 0);
  EXPECT_EQ(none[2], 0);
  EXPECT_GT(none[1], 100);
  const auto both = count(R"({"consumed": 0.3, "weights": 0.3})");
  EXPECT_GT(both[0], 0.15 * both[1]);
  EXPECT_LT(both[0], 0.45 * both[1]);
  EXPECT_GT(both[2], 0.15 * both[3]);
  EXPECT_LT(both[2], 0.45 * both[3]);
  const auto consumedOnly = count(R"({"consumed": 0.3})");
  EXPECT_GT(consumedOnly[0], 0.15 * consumedOnly[1]);
  EXPECT_EQ(consumedOnly[2], 0);
  EXPECT_THROW(applyConfigJson(defaultConfig(), nlohmann::json::parse(R"({"outputs": {"consumed": 2}})")), Error);
  EXPECT_THROW(applyConfigJson(defaultConfig(), nlohmann::json::parse(R"({"outputs": {"inputs": 0.1}})")), Error);
  const GenConfig c = applyConfigJson(defaultConfig(), nlohmann::json::parse(R"({"outputs": {"weights": 0.5}})"));
  EXPECT_NE(configHash(c), configHash(defaultConfig()));
  EXPECT_FALSE(configToJson(defaultConfig()).contains("outputs")) << "default configs keep their hashes";
}

}  // namespace
}  // namespace nnfuzz
