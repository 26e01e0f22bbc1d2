// limits_test.cpp - structure and parameter limits (limits.h): load errors, chain merging,
// and, counted over many generated models of the isra and graph generators, depth within
// range, required sequences about as often as asked, parameters within their limits and
// runtime inputs of the given shapes. NNFUZZ_TEST_SCALE scales the model counts.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gen/config.h"
#include "gen/generator.h"
#include "gen/golden_test_util.h"
#include "gen/limits.h"
#include "interp/interpreter.h"
#include "ops/infer_node.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

using nlohmann::json;

int scaledCount(int n) {
  const char* s = std::getenv("NNFUZZ_TEST_SCALE");
  return std::max(1, static_cast<int>(n * (s ? std::atof(s) : 1.0)));
}

std::string loadError(const json& j) {
  try {
    validateConfig(applyConfigJson(defaultConfig(), j));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Limits, BadEntriesAreOneLineErrors) {
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"limits", {{"params", {{"Conv2", json::object()}}}}}}, "unknown operator 'Conv2'"},
      {{{"limits", {{"params", {{"Conv", {{"kernel", {{"min", 3}}}}}}}}}}, "unknown attribute of Conv"},
      {{{"limits", {{"params", {{"Conv", {{"pads", {{"min", 3}, {"max", 2}}}}}}}}}}, "empty range"},
      {{{"limits", {{"params", {{"Conv", {{"group", {{"min", 9}, {"max", 12}}}}}}}}}}, "no value of Conv's domain"},
      {{{"limits", {{"params", {{"Conv", {{"auto_pad", json::array({"SAME"})}}}}}}}}, "no value of the set"},
      {{{"limits", {{"params", {{"Conv", {{"input7.dim0", {{"min", 2}}}}}}}}}}, "Conv has no operand 7"},
      {{{"limits", {{"params", {{"Conv", {{"pads", json::array()}}}}}}}}, "empty set"},
      {{{"limits", {{"depth", {{"min", 5}, {"max", 2}}}}}}, "empty range"},
      {{{"limits", {{"depth", {{"max", 0}}}}}}, "expected an integer in [1, 100000]"},
      {{{"limits", {{"sequences", json::array({{{"ops", json::array({"Conv"})}}})}}}}, "at least two"},
      {{{"limits", {{"sequences", json::array({{{"ops", json::array({"Conv", "Nope"})}}})}}}}, "unknown operator"},
      {{{"limits", {{"sequences", json::array({{{"ops", json::array({"Conv", "Relu"})}, {"p", 2}}})}}}}, "must be in [0, 1]"},
      {{{"limits", {{"depth", {{"max", 2}}}, {"sequences", json::array({{{"ops", json::array({"Conv", "Relu", "Abs"})}}})}}}},
       "longer than the maximum depth"},
      {{{"limits", {{"input_shapes", json::array({json::array({1, 0})})}}}}, "dimensions must be integers"},
      {{{"limits", {{"shape", 1}}}}, "unknown key 'shape'"},
      {{{"generator", "randoop"}, {"limits", {{"depth", {{"min", 2}}}}}}, "honoured by the isra and graph generators"},
  };
  for (const auto& [j, want] : cases) {
    const std::string got = loadError(j);
    EXPECT_NE(got.find(want), std::string::npos) << j.dump() << " gave: " << got;
    EXPECT_EQ(got.find('\n'), std::string::npos) << got;
  }
}

TEST(Limits, ChainsJoinWhenOnesTailIsAnothersHead) {
  const json j = {{"sequences", json::array({{{"ops", json::array({"Gemm", "MaxPool"})}, {"p", 0.2}},
                                              {{"ops", json::array({"Relu", "Abs"})}, {"p", 0.1}},
                                              {{"ops", json::array({"Conv", "Gemm"})}, {"p", 0.5}}})}};
  const NetLimits l = parseNetLimits(j);
  ASSERT_EQ(l.sequences.size(), 2u);
  EXPECT_EQ(l.sequences[0].text(), "Conv>Gemm>MaxPool");
  EXPECT_DOUBLE_EQ(l.sequences[0].p, 0.5);
  EXPECT_EQ(l.sequences[1].text(), "Relu>Abs");
  // A chain never joins itself (Relu>Relu stays as it is).
  EXPECT_EQ(parseNetLimits({{"sequences", json::array({{{"ops", json::array({"Relu", "Relu"})}}})}}).sequences[0].text(),
            "Relu>Relu");
}

/// Walks back from `node`'s first operand through at most a few helper nodes (first operands
/// again) to a result of `from`.
bool readsThroughHelpers(const Graph& g, NodeId node, NodeId from) {
  ValueId v = g.node(node).inputs.front();
  for (int hops = 0; hops < 8 && v != kNoValue; ++hops) {
    const Value& value = g.value(v);
    if (value.kind != ValueKind::Result) return false;
    if (value.producer == from) return true;
    v = g.node(value.producer).inputs.front();
  }
  return false;
}

struct Counts {
  int models = 0, withChain = 0, depthOutside = 0, paramOutside = 0, convs = 0, badInputs = 0;
};

Counts countLimits(const GenConfig& c, int n, const std::vector<std::string>& chain) {
  Counts k;
  for (int i = 0; i < n; ++i) {
    GeneratedCase m = generateCase(c, static_cast<uint64_t>(i));
    EXPECT_EQ(verifyGraph(m.graph), std::nullopt);
    const Graph& g = m.graph;
    ++k.models;
    if (!c.net.depthAllows(graphDepth(g))) {
      ++k.depthOutside;
      ADD_FAILURE() << "depth " << graphDepth(g) << " meta " << m.meta.dump() << "\n" << printGraph(g);
    }
    for (NodeId id : g.nodes()) {
      const Node& node = g.node(id);
      if (node.op != "Conv") continue;
      ++k.convs;
      const auto ks = node.attrs.getInts("kernel_shape");
      const auto pads = node.attrs.getInts("pads");
      const int64_t m0 = g.value(node.inputs[1]).type.shape[0];
      const bool ok = !ks.empty() && !pads.empty() && m0 >= 2 && m0 <= 3 &&
                      std::all_of(ks.begin(), ks.end(), [](int64_t x) { return x >= 2 && x <= 3; }) &&
                      std::all_of(pads.begin(), pads.end(), [](int64_t x) { return x == 0 || x == 1; });
      k.paramOutside += !ok;
    }
    for (ValueId v : g.inputs()) k.badInputs += !c.net.inputShapeAllows(g.value(v).type);
    // A recorded chain must really be one: ops in order, each reading the previous one.
    bool found = false;
    for (const json& s : m.meta.value("sequences", json::array())) {
      const auto nodes = s["nodes"].get<std::vector<NodeId>>();
      bool real = nodes.size() == chain.size();
      for (size_t j = 0; real && j < nodes.size(); ++j) {
        real = g.node(nodes[j]).alive && g.node(nodes[j]).op == chain[j];
        if (real && j > 0) real = readsThroughHelpers(g, nodes[j], nodes[j - 1]);
      }
      EXPECT_TRUE(real) << s.dump() << "\n" << printGraph(g);
      found = found || real;
    }
    k.withChain += found;
  }
  return k;
}

GenConfig limitedConfig(const std::string& generator) {
  const json j = {{"generator", generator},
                  {"seed", 5},
                  {"min_ops", 4},
                  {"max_ops", 12},
                  {"ops", {{"*", 1}, {"Conv", 20}}},
                  {"limits",
                   {{"depth", {{"min", 3}, {"max", 9}}},
                    {"sequences", json::array({{{"ops", json::array({"Conv", "LRN"})}, {"p", 0.3}}})},
                    {"params",
                     {{"Conv", {{"kernel_shape", {{"min", 2}, {"max", 3}}}, {"pads", json::array({0, 1})},
                                {"input1.dim0", {{"min", 2}, {"max", 3}}}}}}}}}};
  GenConfig c = applyConfigJson(defaultConfig(), j);
  if (generator == "graph") c.graph.minBlocks = 3, c.graph.maxBlocks = 6;
  validateConfig(c);
  return c;
}

void expectHonoured(const Counts& k, double p) {
  EXPECT_EQ(k.depthOutside, 0);
  EXPECT_EQ(k.paramOutside, 0) << "of " << k.convs << " Conv nodes";
  EXPECT_GT(k.convs, k.models / 4);  // the limits narrow Conv, they do not remove it
  const double rate = static_cast<double>(k.withChain) / k.models;
  const double tolerance = std::max(0.05, 4 * std::sqrt(p * (1 - p) / k.models));
  EXPECT_NEAR(rate, p, tolerance) << k.withChain << " of " << k.models;
}

TEST(Limits, IsraHonoursDepthSequencesAndParameters) {
  const Counts k = countLimits(limitedConfig("isra"), scaledCount(1000), {"Conv", "LRN"});
  expectHonoured(k, 0.3);
}

TEST(Limits, GraphGeneratorHonoursDepthSequencesAndParameters) {
  const Counts k = countLimits(limitedConfig("graph"), scaledCount(300), {"Conv", "LRN"});
  expectHonoured(k, 0.3);
}

TEST(Limits, RuntimeInputsTakeTheGivenShapes) {
  for (const std::string gen : {"isra", "graph"}) {
    GenConfig c = applyConfigJson(defaultConfig(), {{"generator", gen},
                                                    {"max_ops", 10},
                                                    {"max_dim", 16},
                                                    {"limits", {{"input_shapes", json::array({{1, 16, 10, 10}})}}}});
    validateConfig(c);
    const Counts k = countLimits(c, scaledCount(100), {});
    EXPECT_EQ(k.badInputs, 0) << gen;
  }
}

TEST(Limits, WithoutLimitsTheConfigHashIsUnchanged) {
  // Old campaigns' configs must keep their names: "limits" appears only when used.
  EXPECT_FALSE(configToJson(defaultConfig()).contains("limits"));
  EXPECT_TRUE(configToJson(limitedConfig("isra")).contains("limits"));
}

// Golden text: a fixed seed and limits give exactly this graph (a Conv→Gemm chain with a
// Reshape helper, Conv's output channels 2-3, the input 1x2x5x5). Regenerate with
// NNFUZZ_UPDATE_GOLDEN=1 after an intended change of the generator.
TEST(Limits, IsraGoldenText) {
  GenConfig c = applyConfigJson(defaultConfig(), json::parse(R"({
      "ops": {"Conv": 2, "Relu": 1, "Gemm": 1, "MaxPool": 1}, "dtypes": {"f32": 1},
      "min_ops": 4, "max_ops": 4, "max_dim": 4, "seed": 3,
      "limits": {"depth": {"min": 3, "max": 6}, "sequences": [{"ops": ["Conv", "Gemm"], "p": 1}],
                 "params": {"Conv": {"input1.dim0": {"min": 2, "max": 3}}}, "input_shapes": [[1, 2, 5, 5]]}})"));
  validateConfig(c);
  expectGoldenText(printGraph(generateCase(c, 0).graph), "src/gen/testdata/isra_limits_seed3.ir");
}

}  // namespace
}  // namespace nnfuzz
