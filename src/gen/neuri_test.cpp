// neuri_test.cpp - the neuri generator over the committed rules/: valid models, every kind
// of insertion used, shares honoured, golden text, config errors.
#include <gtest/gtest.h>

#include "gen/config.h"
#include "gen/generator.h"
#include "gen/golden_test_util.h"
#include "interp/interpreter.h"
#include "ops/infer_node.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

GenConfig neuriConfig(const std::string& extra = "{}") {
  GenConfig c = defaultConfig();
  c.generator = "neuri";
  c.minOps = 1;
  c.maxOps = 12;
  c.neuri.rules = std::string(NNFUZZ_SOURCE_DIR) + "/rules";
  c = applyConfigJson(std::move(c), nlohmann::json::parse(extra));
  validateConfig(c);
  return c;
}

struct Kinds {
  int spec = 0, rule = 0, record = 0;
};

Kinds kindsOf(const GeneratedCase& k) {
  const auto& in = k.meta.at("inserted");
  return {in.at("spec").get<int>(), in.at("rule").get<int>(), in.at("record").get<int>()};
}

TEST(Neuri, CasesVerifyRerunAndUseEveryKindOfInsertion) {
  const GenConfig c = neuriConfig();
  Kinds total;
  for (uint64_t i = 0; i < 80; ++i) {
    GeneratedCase k = generateCase(c, i);
    ASSERT_EQ(verifyGraph(k.graph), std::nullopt) << printGraph(k.graph);
    ASSERT_GE(k.graph.numNodes(), 1u);
    ASSERT_EQ(k.inputs.size(), k.graph.inputs().size());
    ASSERT_FALSE(k.nonFinite);
    // Rules fit on one record may disagree with our specs (meta "disagreements"): such calls
    // are never inserted, so every node still verifies.
    const auto rerun = runGraph(k.graph, k.inputs);
    ASSERT_EQ(rerun.size(), k.outputs.size());
    for (size_t o = 0; o < rerun.size(); ++o) ASSERT_EQ(rerun[o].type, k.outputs[o].type);
    const Kinds n = kindsOf(k);
    EXPECT_EQ(static_cast<size_t>(n.spec + n.rule + n.record), k.graph.numNodes());
    total.spec += n.spec;
    total.rule += n.rule;
    total.record += n.record;
  }
  EXPECT_GT(total.spec, 0);
  EXPECT_GT(total.rule, 0);
  EXPECT_GT(total.record, 0);
}

TEST(Neuri, SharesDecideTheKindOfInsertion) {
  const GenConfig symbolicOnly = neuriConfig(R"({"neuri": {"concrete": 0}})");
  const GenConfig concreteOnly = neuriConfig(R"({"neuri": {"symbolic": 0}})");
  for (uint64_t i = 0; i < 20; ++i) {
    EXPECT_EQ(kindsOf(generateCase(symbolicOnly, i)).record, 0);
    const Kinds n = kindsOf(generateCase(concreteOnly, i));
    EXPECT_EQ(n.spec + n.rule, 0);
  }
}

TEST(Neuri, SameSeedSameCase) {
  const GenConfig c = neuriConfig();
  EXPECT_EQ(printGraph(generateCase(c, 5).graph), printGraph(generateCase(c, 5).graph));
  EXPECT_NE(printGraph(generateCase(c, 5).graph), printGraph(generateCase(c, 6).graph));
}

// Regenerate with NNFUZZ_UPDATE_GOLDEN=1 after an intended change of the generator or rules/.
TEST(Neuri, GoldenText) {
  const GenConfig c = neuriConfig(R"({"ops": {"Relu": 1, "Add": 1, "MaxPool": 1, "Softmax": 1},
      "dtypes": {"f32": 1}, "min_ops": 6, "max_ops": 6, "seed": 3, "neuri": {"rule_rate": 1}})");
  expectGoldenText(printGraph(generateCase(c, 0).graph), "src/gen/testdata/neuri_seed3.ir");
}

TEST(Neuri, BadSettingsGiveOneLineErrors) {
  auto message = [](const std::string& json) -> std::string {
    try {
      neuriConfig(json);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message(R"({"neuri": {"symbolic": -1}})").find("neuri.symbolic"), std::string::npos);
  EXPECT_NE(message(R"({"neuri": {"symbolic": 0, "concrete": 0}})").find("both 0"), std::string::npos);
  EXPECT_NE(message(R"({"neuri": {"rule_rate": 2}})").find("neuri.rule_rate"), std::string::npos);
  EXPECT_NE(message(R"({"neuri": {"shares": 1}})").find("shares"), std::string::npos);
  EXPECT_NE(message(R"({"neuri": {"domains": "com.microsoft"}})").find("neuri.domains"), std::string::npos);
  EXPECT_NE(message(R"({"neuri": {"domains": [""]}})").find("neuri.domains"), std::string::npos);
  const std::string missing = message(R"({"neuri": {"rules": "/nonexistent/rules"}})");
  EXPECT_NE(missing.find("/nonexistent/rules"), std::string::npos);
  EXPECT_EQ(missing.find('\n'), std::string::npos);
}

// Contrib operators are opt-in; once in, they are opaque nodes only opaque nodes read, and
// the reference still covers every output that does not depend on one.
TEST(Neuri, OtherDomainsAreOpaqueAndOptIn) {
  for (uint64_t i = 0; i < 20; ++i)
    for (const std::string& op : generateCase(neuriConfig(), i).opTypes())
      EXPECT_EQ(op.find("com.microsoft."), std::string::npos) << op;
  const GenConfig c = neuriConfig(R"({"neuri": {"domains": ["com.microsoft"]}})");
  int opaque = 0, unreferenced = 0, fromRules = 0;
  for (uint64_t i = 0; i < 60; ++i) {
    GeneratedCase k = generateCase(c, i);
    ASSERT_EQ(verifyGraph(k.graph), std::nullopt) << printGraph(k.graph);
    const std::vector<bool> unknown = unreferencedValues(k.graph);
    for (NodeId id : k.graph.nodes()) {
      const Node& n = k.graph.node(id);
      if (!n.domain.empty()) {
        EXPECT_EQ(n.domain, "com.microsoft");
        ++opaque;
        continue;
      }
      for (ValueId v : n.inputs) ASSERT_FALSE(v != kNoValue && unknown[v]) << "a spec'd node reads an unknown value";
    }
    for (const auto& node : k.meta.at("nodes"))
      fromRules += node.at("from") == "rule" && node.at("op").get<std::string>().rfind("com.microsoft.", 0) == 0;
    EXPECT_EQ(k.unreferenced, unreferencedOutputs(k.graph));
    unreferenced += !k.unreferenced.empty();
    // Every referenced output is what the reference computes again.
    const auto rerun = runGraph(k.graph, k.inputs);
    for (size_t o = 0; o < rerun.size(); ++o) {
      if (unknown[k.graph.outputs()[o]]) continue;
      EXPECT_EQ(rerun[o].data, k.outputs[o].data);
    }
  }
  EXPECT_GT(opaque, 0);
  EXPECT_GT(fromRules, 0);
  EXPECT_GT(unreferenced, 0);
}

TEST(Neuri, StructuralLimitsAreRefused) {
  GenConfig c = defaultConfig();
  c.generator = "neuri";
  c = applyConfigJson(std::move(c), nlohmann::json::parse(R"({"limits": {"depth": {"min": 3}}})"));
  EXPECT_THROW(validateConfig(c), Error);
}

}  // namespace
}  // namespace nnfuzz
