// corpus_test.cpp - block corpus validation, JSON forms and the default corpus.
#include <gtest/gtest.h>

#include <set>

#include "ops/registry.h"
#include "search/block_corpus.h"
#include "support/error.h"

namespace nnfuzz::search {
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
  std::set<std::string_view> registered;
  for (const OpSpec* s : allOps()) registered.insert(s->name);
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

}  // namespace
}  // namespace nnfuzz::search
