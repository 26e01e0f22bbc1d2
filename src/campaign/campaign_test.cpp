// campaign_test.cpp - the campaign's config, its test sources and its coverage with the kept
// test set. (Whole campaigns against real SUTs are tested in tools/tests/test_fuzz.py.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "campaign/campaign_config.h"
#include "campaign/campaign_coverage.h"
#include "campaign/test_source.h"
#include "support/error.h"

namespace nnfuzz::campaign {
namespace {

namespace fs = std::filesystem;

fs::path freshDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("nnfuzz-campaign-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir;
}

TEST(CampaignConfig, ReadsSearchKeysBesideTheGeneratorsAndRoundTrips) {
  auto c = applyCampaignJson(defaultCampaignConfig(), {{"search", "mcts"}, {"mcts", {{"tc1", 4}}}, {"max_ops", 7}});
  EXPECT_EQ(c.search, "mcts");
  EXPECT_EQ(c.mcts.maxDepth, 4);
  EXPECT_EQ(c.gen.maxOps, 7);
  const auto again = applyCampaignJson(defaultCampaignConfig(), campaignConfigToJson(c));
  EXPECT_EQ(campaignConfigToJson(again), campaignConfigToJson(c));
  EXPECT_THROW(validateCampaignConfig(applyCampaignJson(defaultCampaignConfig(), {{"search", "bfs"}})), Error);
  EXPECT_THROW(applyCampaignJson(defaultCampaignConfig(), {{"search", 3}}), Error);
  EXPECT_THROW(applyCampaignJson(defaultCampaignConfig(), {{"mcts", {{"tc9", 1}}}}), Error);
  EXPECT_THROW(applyCampaignJson(defaultCampaignConfig(), {{"no_such_field", 1}}), Error);
}

class NoCoverage : public CoverageView {
 public:
  std::map<std::string, double> opCoverage() const override { return {}; }
};

TEST(TestSource, RandomSearchIsTheGeneratorCaseByCase) {
  CampaignConfig config = defaultCampaignConfig();
  config.gen.maxOps = 6;
  const auto corpus = defaultCorpus();
  NoCoverage none;
  auto source = makeTestSource(config, corpus, none);
  EXPECT_FALSE(source->learns());
  EXPECT_EQ(source->name(), "isra");
  for (int64_t i : {0, 5, 17}) {
    const DrawnTest t = source->draw(i);
    EXPECT_EQ(printGraph(t.c.graph), printGraph(generateCase(config.gen, static_cast<uint64_t>(i)).graph));
    EXPECT_EQ(t.seed, caseSeed(config.gen.seed, static_cast<uint64_t>(i)));
  }
}

TEST(TestSource, MctsFavoursThePathsOperatorsAndLearns) {
  CampaignConfig config = defaultCampaignConfig();
  config.search = "mcts";
  config.gen.minOps = config.gen.maxOps = 10;
  const auto corpus = defaultCorpus();
  NoCoverage none;
  auto source = makeTestSource(config, corpus, none);
  EXPECT_TRUE(source->learns());
  EXPECT_EQ(source->name(), "isra+mcts");
  int onPath = 0, total = 0;
  for (int64_t i = 0; i < 40; ++i) {
    const DrawnTest t = source->draw(i);
    ASSERT_GE(t.searchNode, 1);
    const auto path = t.meta["search"]["path"];
    ASSERT_FALSE(path.empty());
    for (const std::string& op : t.c.opTypes()) {
      ++total;
      for (const auto& block : path)
        if (block.get<std::string>().find(op) != std::string::npos) {
          ++onPath;
          break;
        }
    }
    source->learn(t, {.coverageGrew = i % 4 == 0, .olcGain = i % 4 == 0 ? 0.01 : 0.0});
  }
  // Half the weight goes to a handful of path operators out of ~90: far above chance.
  EXPECT_GT(onPath * 4, total) << onPath << " of " << total;
  const auto state = source->state();
  EXPECT_EQ(state["tree"]["nodes"][0][2].get<int>(), 40);
  // "gain": every fourth test gained 0.01 and earns min(1, 0.01 / (2 * mean gain so far)):
  // test 0 has the mean 0.01 (0.5), tests 4..36 a mean <= 0.004 (1 each); the others earn 0.
  EXPECT_DOUBLE_EQ(state["tree"]["nodes"][0][3].get<double>(), 9.5);
  auto again = makeTestSource(config, corpus, none);
  again->restore(state);
  EXPECT_EQ(again->state(), state);
}

TEST(CampaignCoverage, KeepsOnlyModelsThatAddCoverageAndReloadsToTheSameState) {
  const fs::path dir = freshDir("kept");
  CampaignConfig config = defaultCampaignConfig();
  config.gen.maxOps = 8;
  int64_t kept = 0;
  CampaignCoverage coverage(defaultCorpus(), dir);
  for (int64_t i = 0; i < 60; ++i) {
    const auto gain = coverage.add(i, generateCase(config.gen, static_cast<uint64_t>(i)).graph);
    kept += gain.grew;
    EXPECT_GE(gain.olc, 0) << i;
    if (!gain.grew) {
      EXPECT_EQ(gain.olc, 0) << i;
    }
  }
  // The same model again adds nothing and is not kept.
  EXPECT_FALSE(coverage.add(60, generateCase(config.gen, 3).graph).grew);
  EXPECT_GT(kept, 0);
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.path().extension() == ".ir";
  EXPECT_EQ(files, static_cast<size_t>(kept));

  CampaignCoverage reloaded(defaultCorpus(), dir);
  EXPECT_EQ(reloaded.reload(), static_cast<size_t>(kept));
  EXPECT_EQ(reloaded.opCoverage(), coverage.opCoverage());
  EXPECT_DOUBLE_EQ(reloaded.summary().olc, coverage.summary().olc);

  std::ofstream(dir / "999999.ir") << "graph { this is not IR";
  CampaignCoverage damaged(defaultCorpus(), dir);
  EXPECT_THROW(damaged.reload(), Error);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nnfuzz::campaign
