// test_source.cpp - the generator source and the MCTS search source (see test_source.h).
#include "campaign/test_source.h"

#include <algorithm>
#include <mutex>
#include <set>

#include "gen/graph_gen.h"
#include "support/error.h"

namespace nnfuzz::campaign {

namespace {

/// Random search: the generator alone, test i = (config, seed, i).
class GeneratorSource : public TestSource {
 public:
  explicit GeneratorSource(const GenConfig& config) : config_(config), generator_(makeGenerator(config_)) {}
  std::string name() const override { return config_.generator; }
  DrawnTest draw(int64_t index) override {
    DrawnTest t;
    t.index = index;
    t.seed = caseSeed(config_.seed, static_cast<uint64_t>(index));
    t.c = generateCase(*generator_, config_.seed, static_cast<uint64_t>(index));
    return t;
  }

 private:
  GenConfig config_;
  std::unique_ptr<Generator> generator_;  // made after config_, which it may keep a reference to
};

/// A model that favours `blocks`: the graph generator places them on its digraph; another
/// generator gets its own config with the operators of those blocks drawn as often as all
/// others together.
GeneratedCase generateFavouring(const GenConfig& config, const BlockCorpus& corpus, std::span<const int> blocks,
                                Rng& rng) {
  if (config.generator == "graph") return generateGraphModel(config, corpus, blocks, rng);
  std::set<std::string> favoured;
  for (int b : blocks)
    for (const std::string& member : corpus.blocks()[static_cast<size_t>(b)].members) favoured.insert(member);
  GenConfig biased = config;
  double others = 0, chosen = 0;
  for (size_t i = 0; i < biased.ops.size(); ++i)
    (favoured.count(std::string(biased.ops[i]->name)) ? chosen : others) += biased.opWeights[i];
  if (chosen > 0 && others > 0)
    for (size_t i = 0; i < biased.ops.size(); ++i)
      if (favoured.count(std::string(biased.ops[i]->name))) biased.opWeights[i] *= others / chosen;
  return makeGenerator(biased)->generate(rng);
}

/// Luo et al.'s MCTS block chooser around a generator.
class MctsSource : public TestSource {
 public:
  MctsSource(const CampaignConfig& config, const BlockCorpus& corpus, const CoverageView& coverage)
      : config_(config.gen), corpus_(corpus), coverage_(coverage), rewardKind_(config.mcts.reward),
        tree_(corpus, config.mcts) {}

  std::string name() const override { return config_.generator + "+mcts"; }
  bool learns() const override { return true; }

  DrawnTest draw(int64_t index) override {
    DrawnTest t;
    t.index = index;
    t.seed = caseSeed(config_.seed, static_cast<uint64_t>(index));
    // Ties in the expansion are broken by the test's own seed: no RNG state to save.
    Rng choiceRng(t.seed ^ 0x6d637473ULL);
    const std::map<std::string, double> byType = coverage_.opCoverage();
    std::vector<double> coverage(static_cast<size_t>(corpus_.numOps()), 0.0);
    for (int op = 0; op < corpus_.numOps(); ++op)
      if (auto it = byType.find(corpus_.op(op).name); it != byType.end()) coverage[static_cast<size_t>(op)] = it->second;
    search::BlockTree::Choice choice;
    {
      std::lock_guard lock(mu_);
      choice = tree_.choose(coverage, choiceRng);
    }
    Rng rng(t.seed);
    t.c = generateFavouring(config_, corpus_, choice.blocks, rng);
    t.searchNode = choice.node;
    nlohmann::json path = nlohmann::json::array();
    for (int b : choice.blocks) path.push_back(corpus_.blocks()[static_cast<size_t>(b)].name);
    t.meta["search"] = {{"strategy", "mcts"}, {"node", choice.node}, {"path", std::move(path)}};
    return t;
  }

  void learn(const DrawnTest& test, const TestFeedback& feedback) override {
    if (test.searchNode < 0) return;
    std::lock_guard lock(mu_);
    gainSum_ += feedback.olcGain;
    ++tests_;
    tree_.update(test.searchNode, reward(feedback));
  }

  nlohmann::json state() const override {
    std::lock_guard lock(mu_);
    return {{"tree", tree_.toJson()}, {"olc_gain_sum", gainSum_}, {"tests", tests_}};
  }
  void restore(const nlohmann::json& state) override {
    std::lock_guard lock(mu_);
    if (!state.is_object() || !state.contains("tree") || !state["olc_gain_sum"].is_number() ||
        !state["tests"].is_number_integer())
      throw Error("saved search state is not an MCTS state");
    tree_.restore(state["tree"]);
    gainSum_ = state["olc_gain_sum"].get<double>();
    tests_ = state["tests"].get<int64_t>();
  }

  /// The simulation's value v (caller holds mu_). "success" is the paper's: the model exposed
  /// a failure or added coverage. Here nearly every model adds SPC, so "gain" (the default)
  /// pays a new bug 1 and otherwise the OLC gain over twice the mean gain, capped at 1.
  double reward(const TestFeedback& feedback) const {
    if (rewardKind_ == "success") return feedback.bug || feedback.coverageGrew ? 1.0 : 0.0;
    if (feedback.newBug) return 1.0;
    const double meanGain = gainSum_ / static_cast<double>(tests_);
    return meanGain > 0 ? std::min(1.0, feedback.olcGain / (2 * meanGain)) : 0.0;
  }

 private:
  GenConfig config_;
  const BlockCorpus& corpus_;
  const CoverageView& coverage_;
  std::string rewardKind_;
  mutable std::mutex mu_;
  search::BlockTree tree_;
  double gainSum_ = 0;  ///< OLC gain of every test learned from
  int64_t tests_ = 0;
};

}  // namespace

std::unique_ptr<TestSource> makeTestSource(const CampaignConfig& config, const BlockCorpus& corpus,
                                           const CoverageView& coverage) {
  if (config.search == "random") return std::make_unique<GeneratorSource>(config.gen);
  if (config.search == "mcts") return std::make_unique<MctsSource>(config, corpus, coverage);
  throw Error("unknown search '" + config.search + "' (known: random, mcts)");
}

}  // namespace nnfuzz::campaign
