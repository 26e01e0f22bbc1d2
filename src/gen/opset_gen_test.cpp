// opset_gen_test.cpp - generation at other opsets than 17: the config's opset and mix,
// models that hold only what their opset can express, avoid rules limited to opsets.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "gen/avoid.h"
#include "gen/config.h"
#include "gen/generator.h"
#include "interp/interpreter.h"
#include "onnx/export.h"
#include "onnx/import.h"
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

// "omitted": the operand is absent either way; "empty": written as a trailing empty name.
TEST(OpsetGen, AvoidRulesSeeOmittedAndEmptyOperands) {
  const auto rules = parseAvoidRules(nlohmann::json::parse(
      R"([{"op": "Clip", "omitted": [1]}, {"op": "Squeeze", "empty": [1]}])"));
  const TensorType x{DType::Float32, {2, 1}}, s{DType::Float32, {}};
  const OpSpec& clip = *findOp("Clip");
  const OpSpec& squeeze = *findOp("Squeeze");
  EXPECT_TRUE(rules[0].matches(clip, OperandTypes{&x}, {}));
  EXPECT_TRUE(rules[0].matches(clip, OperandTypes{&x, nullptr, &s}, {}));
  EXPECT_FALSE(rules[0].matches(clip, OperandTypes{&x, &s}, {}));
  EXPECT_FALSE(rules[1].matches(squeeze, OperandTypes{&x}, {}));  // left out, not written
  EXPECT_TRUE(rules[1].matches(squeeze, OperandTypes{&x, nullptr}, {}));
  EXPECT_EQ(avoidRulesToJson(rules)[1]["empty"], nlohmann::json::array({1}));
  EXPECT_THROW(parseAvoidRules(nlohmann::json::parse(R"([{"op": "Clip", "empty": [3]}])")), Error);
}

// empty_inputs: trailing optional inputs written as empty names, valid at the opset, and
// never where an avoid rule says so (the default ORT rules: Squeeze's axes).
TEST(OpsetGen, TrailingEmptyInputsFollowTheKnob) {
  for (int opset : {11, 17, 21}) {
    GenConfig c = applyConfigJson(defaultConfig(), {{"opset", opset}, {"seed", 9}, {"empty_inputs", 1.0},
                                                    {"ops", {{"Clip", 1}, {"Squeeze", 1}, {"Resize", 1}, {"Relu", 1}}}});
    validateConfig(c);
    int trailing = 0;
    for (uint64_t i = 0; i < 20; ++i) {
      const GeneratedCase g = generateCase(c, i);
      EXPECT_EQ(verifyGraph(g.graph), std::nullopt);
      EXPECT_EQ(opsetMisfit(g.graph, opset), std::nullopt);
      for (NodeId id : g.graph.nodes()) {
        const Node& n = g.graph.node(id);
        if (n.inputs.empty() || n.inputs.back() != kNoValue) continue;
        ++trailing;
        EXPECT_NE(n.op, "Squeeze") << "an avoid rule holds";
      }
    }
    if (opset >= 13) {
      EXPECT_GT(trailing, 10) << opset;
    }
    c.emptyInputs = 0;
    for (uint64_t i = 0; i < 10; ++i) {
      const Graph g = generateCase(c, i).graph;
      for (NodeId id : g.nodes()) EXPECT_NE(g.node(id).inputs.back(), kNoValue);
    }
  }
  EXPECT_THROW(applyConfigJson(defaultConfig(), {{"empty_inputs", 1.5}}), Error);
}

bool sameValues(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].type != b[i].type) return false;
    for (size_t k = 0; k < a[i].data.size(); ++k) {
      const double x = a[i].data[k], y = b[i].data[k];
      if (x == y || (std::isnan(x) && std::isnan(y))) continue;
      if (!(std::abs(x - y) <= 1e-6 * std::max(1.0, std::abs(x)))) return false;
    }
  }
  return true;
}

// default_attrs: a node writes every attribute at its default out, or leaves out those
// holding it, and means the same: the graph is the knob-0 one but for those attributes, and
// its reference outputs (also after an ONNX round trip) are the knob-0 ones.
TEST(OpsetGen, DefaultAttrsKeepTheMeaning) {
  for (int opset : {11, 17, 21}) {
    for (const bool written : {true, false}) {
      SCOPED_TRACE(std::to_string(opset) + (written ? " written" : " omitted"));
      const nlohmann::json base{{"opset", opset}, {"seed", 4}, {"default_attrs", {{"written", 0}, {"omitted", 0}}}};
      nlohmann::json knob = base;
      knob["default_attrs"][written ? "written" : "omitted"] = 1.0;
      const GenConfig on = applyConfigJson(defaultConfig(), knob), off = applyConfigJson(defaultConfig(), base);
      int changed = 0;
      for (uint64_t i = 0; i < 25; ++i) {
        const GeneratedCase g1 = generateCase(on, i), g0 = generateCase(off, i);
        ASSERT_EQ(g1.graph.nodes().size(), g0.graph.nodes().size()) << i;
        EXPECT_EQ(opsetMisfit(g1.graph, opset), std::nullopt);
        const std::vector<NodeId> ids1 = g1.graph.nodes(), ids0 = g0.graph.nodes();
        for (size_t k = 0; k < ids0.size(); ++k) {
          const Node& n1 = g1.graph.node(ids1[k]);
          const Node& n0 = g0.graph.node(ids0[k]);
          ASSERT_EQ(n1.op, n0.op);
          if (n1.attrs == n0.attrs) continue;
          ++changed;
          // Written: a superset of the knob-0 attributes; omitted: a subset.
          const Attributes& more = written ? n1.attrs : n0.attrs;
          for (const auto& [name, value] : written ? n0.attrs : n1.attrs) {
            bool kept = false;
            for (const auto& [other, v] : more) kept = kept || (other == name && v == value);
            EXPECT_TRUE(kept) << n1.op << "." << name;
          }
        }
        EXPECT_TRUE(sameValues(runGraph(g1.graph, g1.inputs), g0.outputs)) << "case " << i;
        EXPECT_TRUE(sameValues(runGraph(importModel(exportModel(g1.graph)), g1.inputs), g0.outputs)) << "case " << i;
      }
      EXPECT_GT(changed, 20);
    }
  }
  EXPECT_THROW(applyConfigJson(defaultConfig(), {{"default_attrs", {{"written", 0.7}, {"omitted", 0.5}}}}), Error);
  EXPECT_THROW(applyConfigJson(defaultConfig(), {{"default_attrs", {{"explicit", 0.5}}}}), Error);
}

}  // namespace
}  // namespace nnfuzz
