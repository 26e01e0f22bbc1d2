// corpus_test.cpp - block corpus validation, JSON forms and the default corpus.
#include <gtest/gtest.h>

#include <set>

#include "ops/registry.h"
#include "gen/block_corpus.h"
#include "gen/config.h"
#include "support/error.h"

#include <fstream>

namespace nnfuzz {
namespace {

using Json = nlohmann::ordered_json;

TEST(Corpus, RoundTripsThroughJson) {
  const Json j = Json::parse(R"({"blocks": [
    {"name": "Conv2d", "in_degree": [1], "out_degree": [2, 0, 1, 1]},
    {"name": "Relu", "in_degree": [1], "out_degree": [0, 1, 2]},
    {"name": "Pow", "in_degree": [2], "out_degree": [0, 1, 2]},
    {"name": "Concat", "in_degree": [2, 3], "out_degree": [0, 1, 2]},
    {"name": "Conv2d+Relu+Pow+Concat", "in_degree": [2], "out_degree": [0, 1, 2],
     "inner_edges": [[0, 1], [1, 3], [2, 3]]}]})");
  const BlockCorpus c = corpusFromJson(j);
  EXPECT_EQ(c.numOps(), 4);  // the subgraph is not an operator
  EXPECT_EQ(c.op(0).outDegrees, (std::vector<int>{0, 1, 2}));  // sorted, distinct
  EXPECT_EQ(c.opIndex("Concat"), 3);
  EXPECT_EQ(c.opIndex("Conv2d+Relu+Pow+Concat"), -1);
  const Block& sub = c.blocks()[4];
  EXPECT_TRUE(sub.isSubgraph());
  EXPECT_EQ(sub.members, (std::vector<std::string>{"Conv2d", "Relu", "Pow", "Concat"}));
  EXPECT_EQ(corpusToJson(corpusFromJson(corpusToJson(c))), corpusToJson(c));
}

TEST(Corpus, ReadsIsrasBcJsonLayout) {
  const Json j = Json::parse(R"({
    "Relu": {"in_degree": [1], "out_degree": [1, 2, 3]},
    "Conv": {"in_degree": [2, 3], "out_degree": [1, 2], "params": ["group"], "comment": "x"}})");
  const BlockCorpus c = corpusFromJson(j);
  ASSERT_EQ(c.numOps(), 2);
  EXPECT_EQ(c.op(0).name, "Relu");  // file order is kept
  EXPECT_EQ(c.op(1).inDegrees, (std::vector<int>{2, 3}));
}

TEST(Corpus, RejectsBadBlocks) {
  auto bad = [](const char* text) { return corpusFromJson(Json::parse(text)); };
  EXPECT_THROW(bad(R"({"blocks": []})"), Error);
  EXPECT_THROW(bad(R"({"blocks": [{"name": "A", "in_degree": [], "out_degree": [1]}]})"), Error);
  EXPECT_THROW(bad(R"({"blocks": [{"name": "A", "in_degree": [1], "out_degree": [64]}]})"), Error);
  EXPECT_THROW(bad(R"({"blocks": [{"name": "A", "in_degree": [1], "out_degree": [1]},
                                   {"name": "A", "in_degree": [1], "out_degree": [1]}]})"),
               Error);
  // A subgraph member without a block of its own, and an edge out of range.
  EXPECT_THROW(bad(R"({"blocks": [{"name": "A", "in_degree": [1], "out_degree": [1]},
                                   {"name": "A+B", "in_degree": [1], "out_degree": [1], "inner_edges": [[0, 1]]}]})"),
               Error);
  EXPECT_THROW(bad(R"({"blocks": [{"name": "A", "in_degree": [1], "out_degree": [1]},
                                   {"name": "A+A", "in_degree": [1], "out_degree": [1], "inner_edges": [[0, 2]]}]})"),
               Error);
  EXPECT_THROW(bad(R"({"blocks": [{"name": "A", "in_degree": [1], "out_degree": [1], "inner_edges": [[0, 1]]}]})"),
               Error);
  EXPECT_THROW(bad(R"({"blocks": [{"name": "A", "in_degree": "1", "out_degree": [1]}]})"), Error);
}

TEST(Corpus, DefaultCorpusIsTheRegistry) {
  const BlockCorpus c = defaultCorpus();
  std::set<std::string_view> registered;  // at the default opset
  for (const OpSpec* s : allOps())
    if (drawableAt(*s, defaultConfig().opset)) registered.insert(s->name);
  EXPECT_EQ(c.opIndex("Gelu"), -1) << "added at opset 20";
  EXPECT_EQ(static_cast<size_t>(c.numOps()), registered.size());  // each op once
  for (int i = 0; i < c.numOps(); ++i) {
    const Block& b = c.op(i);
    const OpSpec* spec = findOp(b.name);
    ASSERT_NE(spec, nullptr) << b.name;
    EXPECT_EQ(b.inDegrees.front(), spec->minInputs) << b.name;
    EXPECT_EQ(b.inDegrees.back(), std::max(spec->minInputs, std::min(spec->maxInputs, kMaxListedInDegree))) << b.name;
    EXPECT_EQ(b.outDegrees, (std::vector<int>{0, 1, 2, 3, 4, 5})) << b.name;
  }
  if (findOp("Sum")) {
    EXPECT_EQ(c.op(c.opIndex("Sum")).inDegrees, (std::vector<int>{1, 2, 3, 4, 5}));
  }
  if (findOp("Conv")) {
    EXPECT_EQ(c.op(c.opIndex("Conv")).inDegrees, (std::vector<int>{2, 3}));
  }
  if (findOp("Conv") && findOp("Add")) {
    bool found = false;
    for (const Block& b : c.blocks())
      if (b.name == "Conv+Conv+Add+Add") {
        found = true;
        EXPECT_EQ(b.innerEdges.size(), 4u);  // (2,3) twice, as in Luo's Fig. 5(b)
      }
    EXPECT_TRUE(found);
  }
}

TEST(Corpus, SubgraphRecipesGiveDegreesMembersAndEdges) {
  const Json j = Json::parse(R"({"blocks": [
    {"name": "Conv", "in_degree": [1], "out_degree": [1]},
    {"name": "Add", "in_degree": [1, 2], "out_degree": [1]},
    {"name": "Relu", "in_degree": [1], "out_degree": [1]},
    {"name": "Pair", "targets": ["onnxruntime:ConvAddFusion"],
     "members": [{"op": "Conv", "inputs": ["in:0", "w", "w"], "attrs": {"group": 1}},
                 {"op": "Add", "inputs": ["m:0", "in:1"]},
                 {"op": "Relu", "inputs": ["m:1"]}],
     "outputs": ["m:2", "m:0"]}]})");
  const BlockCorpus c = corpusFromJson(j);
  const Block& b = c.blocks()[3];
  ASSERT_TRUE(b.recipe);
  EXPECT_EQ(b.members, (std::vector<std::string>{"Conv", "Add", "Relu"}));
  EXPECT_EQ(b.inDegrees, (std::vector<int>{2}));
  EXPECT_EQ(b.outDegrees, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(b.innerEdges, (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}}));
  EXPECT_EQ(b.targets, (std::vector<std::string>{"onnxruntime:ConvAddFusion"}));
  EXPECT_EQ(b.recipe->members[0].attrs.getInt("group", 0), 1);
  EXPECT_EQ(b.recipe->outputs.size(), 2u);
  EXPECT_EQ(corpusToJson(corpusFromJson(corpusToJson(c))), corpusToJson(c));
}

TEST(Corpus, OldStyleSubgraphsGetARecipeFromTheirEdges) {
  const BlockCorpus c = defaultCorpus();
  for (const Block& b : c.blocks())
    if (b.name == "Conv+Relu+Pow+Concat") {
      ASSERT_TRUE(b.recipe);
      const auto& m = b.recipe->members;
      EXPECT_EQ(operandRefText(m[0].operands[0]), "in:0");
      EXPECT_EQ(operandRefText(m[2].operands[0]), "in:1");
      EXPECT_EQ(operandRefText(m[3].operands[1]), "m:2");
      EXPECT_EQ(m[2].operands.size(), 2u);  // Pow's exponent is left to Isra
      EXPECT_EQ(b.recipe->innerEdges(), b.innerEdges);
    }
}

TEST(Corpus, RejectsBadRecipes) {
  auto bad = [](const std::string& members) {
    return corpusFromJson(Json::parse(R"({"blocks": [{"name": "Relu", "in_degree": [1], "out_degree": [1]},
      {"name": "Add", "in_degree": [1], "out_degree": [1]}, {"name": "Reshape", "in_degree": [1], "out_degree": [1]},
      {"name": "S", "members": )" + members + "}]}"));
  };
  EXPECT_NO_THROW(bad(R"([{"op": "Relu", "inputs": ["in:0"]}, {"op": "Add", "inputs": ["m:0", "c:2"]}])"));
  EXPECT_THROW(bad(R"([{"op": "Relu", "inputs": ["in:0"]}, {"op": "Add", "inputs": ["m:1", "w"]}])"), Error);
  EXPECT_THROW(bad(R"([{"op": "Relu", "inputs": ["in:1"]}, {"op": "Add", "inputs": ["m:0", "w"]}])"), Error);
  EXPECT_THROW(bad(R"([{"op": "Relu", "inputs": ["in:0"]}, {"op": "Add", "inputs": ["m:0"]}])"), Error);
  EXPECT_THROW(bad(R"([{"op": "Relu", "inputs": ["in:0"]}, {"op": "Add", "inputs": ["m:0", "q"]}])"), Error);
  EXPECT_THROW(bad(R"([{"op": "Relu", "inputs": ["in:0"]}, {"op": "Reshape", "inputs": ["m:0", "in:1"]}])"), Error);
  EXPECT_THROW(bad(R"([{"op": "Relu", "inputs": ["in:0"]}, {"op": "Add", "inputs": ["m:0", "w"],
                       "derive": {"perm": "sideways"}}])"), Error);
  EXPECT_THROW(bad(R"([{"op": "Relu", "inputs": ["in:0"]}])"), Error);
}

TEST(Corpus, ShippedBlocksFileIsTheBuiltinCorpus) {
  const BlockCorpus builtin = builtinBlocks();
  EXPECT_EQ(corpusToJson(loadCorpusFile(NNFUZZ_SOURCE_DIR "/config/blocks.json")), corpusToJson(builtin));
  // Every operator the default opset can draw (those added after it come with the opsets work).
  std::set<std::string_view> registered;
  for (const OpSpec* s : allOps())
    if (drawableAt(*s, defaultConfig().opset)) registered.insert(s->name);
  EXPECT_EQ(static_cast<size_t>(builtin.numOps()), registered.size());
  for (std::string_view op : registered) EXPECT_GE(builtin.opIndex(op), 0) << op;
  int patterns = 0;
  for (const Block& b : builtin.blocks()) {
    if (!b.isSubgraph()) continue;
    EXPECT_TRUE(b.recipe) << b.name;
    EXPECT_FALSE(b.targets.empty()) << b.name << " names no optimizer pass";
    const bool luo = b.targets[0].starts_with("luo:");
    patterns += !luo;
  }
  EXPECT_GE(patterns, 25);
}

}  // namespace
}  // namespace nnfuzz
