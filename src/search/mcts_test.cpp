// mcts_test.cpp - the MCTS block chooser: UCT selection, expansion by lowest coverage, the
// tc1/tc2/children limits, and saving and restoring the tree.
#include "search/mcts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "support/error.h"

namespace nnfuzz::search {
namespace {

BlockCorpus smallCorpus() {
  auto op = [](std::string name) { return Block{name, {1}, {0, 1}, {name}, {}}; };
  std::vector<Block> blocks{op("Relu"), op("Conv"), op("Add"), op("Sigmoid"), op("Tanh")};
  blocks.push_back(Block{"Conv+Relu", {1}, {0, 1}, {"Conv", "Relu"}, {{0, 1}}});
  return BlockCorpus(std::move(blocks));
}

TEST(BlockTree, ExpandsTheLowestCoverageOperatorNotOnThePath) {
  const BlockCorpus corpus = smallCorpus();
  MctsOptions options;
  options.subgraphOdds = 0;
  BlockTree tree(corpus, options);
  Rng rng(1);
  // Coverage per operator (corpus order Relu, Conv, Add, Sigmoid, Tanh): Add is lowest.
  const std::vector<double> coverage{0.5, 0.6, 0.1, 0.3, 0.9};
  auto first = tree.choose(coverage, rng);
  ASSERT_EQ(first.blocks.size(), 1u);
  EXPECT_EQ(corpus.blocks()[static_cast<size_t>(first.blocks[0])].name, "Add");
  tree.update(first.node, 1.0);
  // The root's next child is the next lowest not already a child: Sigmoid.
  auto second = tree.choose(coverage, rng);
  EXPECT_EQ(corpus.blocks()[static_cast<size_t>(second.blocks.back())].name, "Sigmoid");
}

TEST(BlockTree, RespectsChildrenDepthAndVisitLimits) {
  const BlockCorpus corpus = smallCorpus();
  MctsOptions options;
  options.maxDepth = 3;
  options.maxChildren = 2;
  BlockTree tree(corpus, options);
  Rng rng(7);
  const std::vector<double> coverage(5, 0.0);
  for (int i = 0; i < 200; ++i) {
    auto c = tree.choose(coverage, rng);
    EXPECT_LE(c.blocks.size(), 3u);
    // No operator twice on a path.
    std::multiset<std::string> ops;
    for (int b : c.blocks)
      for (const auto& m : corpus.blocks()[static_cast<size_t>(b)].members) ops.insert(m);
    for (const auto& op : ops) EXPECT_EQ(ops.count(op), 1u) << op;
    tree.update(c.node, i % 3 == 0 ? 1.0 : 0.0);
  }
  for (size_t n = 0; n < tree.size(); ++n) {
    EXPECT_LE(tree.children(static_cast<int>(n)).size(), 2u);
    EXPECT_LE(tree.depthOf(static_cast<int>(n)), 3);
  }
  EXPECT_EQ(tree.visits(0), 200);
  EXPECT_GT(tree.size(), 4u);
}

TEST(BlockTree, SelectionFollowsTheHighestPotential) {
  const BlockCorpus corpus = smallCorpus();
  MctsOptions options;
  options.maxChildren = 2;
  options.exploration = 0;  // pure exploitation: v/n decides
  options.subgraphOdds = 0;
  BlockTree tree(corpus, options);
  Rng rng(3);
  const std::vector<double> coverage{0.1, 0.2, 0.9, 0.9, 0.9};
  auto a = tree.choose(coverage, rng);  // Relu
  tree.update(a.node, 0.0);
  auto b = tree.choose(coverage, rng);  // Conv
  tree.update(b.node, 1.0);
  // Both root children visited once; the root is full, so selection descends into Conv (1/1 > 0/1).
  auto c = tree.choose(coverage, rng);
  ASSERT_EQ(c.blocks.size(), 2u);
  EXPECT_EQ(c.blocks[0], b.blocks[0]);
}

TEST(BlockTree, ExpansionMayPickASubgraphHoldingTheOperator) {
  const BlockCorpus corpus = smallCorpus();
  MctsOptions options;
  options.subgraphOdds = 1;
  BlockTree tree(corpus, options);
  Rng rng(5);
  const std::vector<double> coverage{0.9, 0.0, 0.9, 0.9, 0.9};  // Conv lowest; Conv+Relu holds it
  auto c = tree.choose(coverage, rng);
  EXPECT_EQ(corpus.blocks()[static_cast<size_t>(c.blocks[0])].name, "Conv+Relu");
}

TEST(BlockTree, SavesAndRestoresTheSameTree) {
  const BlockCorpus corpus = smallCorpus();
  BlockTree tree(corpus, {});
  Rng rng(11);
  const std::vector<double> coverage{0.1, 0.2, 0.3, 0.4, 0.5};
  for (int i = 0; i < 50; ++i) tree.update(tree.choose(coverage, rng).node, i % 2);
  BlockTree copy(corpus, {});
  copy.restore(tree.toJson());
  EXPECT_EQ(copy.toJson(), tree.toJson());
  // The restored tree makes the same choices.
  Rng r1(99), r2(99);
  for (int i = 0; i < 20; ++i) {
    auto x = tree.choose(coverage, r1);
    auto y = copy.choose(coverage, r2);
    EXPECT_EQ(x.blocks, y.blocks);
    tree.update(x.node, 1);
    copy.update(y.node, 1);
  }
}

TEST(BlockTree, RefusesAStateThatDoesNotFitTheCorpus) {
  const BlockCorpus corpus = smallCorpus();
  BlockTree tree(corpus, {});
  EXPECT_THROW(tree.restore(nlohmann::json{{"nodes", {{-1, -1, 0, 0.0}, {42, 0, 1, 1.0}}}}), Error);
  EXPECT_THROW(tree.restore(nlohmann::json{{"nodes", {{-1, -1, 0, 0.0}, {1, 5, 1, 1.0}}}}), Error);
  EXPECT_THROW(tree.restore(nlohmann::json::array()), Error);
}

TEST(MctsOptions, ReadsTheConfigAndRejectsBadValues) {
  auto o = mctsOptionsFromJson({}, {{"tc1", 5}, {"tc2", 2}, {"e", 1.5}, {"max_children", 4}});
  EXPECT_EQ(o.maxDepth, 5);
  EXPECT_EQ(o.visitsBeforeExpansion, 2);
  EXPECT_DOUBLE_EQ(o.exploration, 1.5);
  EXPECT_EQ(o.maxChildren, 4);
  EXPECT_THROW(mctsOptionsFromJson({}, {{"tc1", 0}}), Error);
  EXPECT_THROW(mctsOptionsFromJson({}, {{"depth", 3}}), Error);
  EXPECT_THROW(mctsOptionsFromJson({}, {{"e", "big"}}), Error);
}

}  // namespace
}  // namespace nnfuzz::search
