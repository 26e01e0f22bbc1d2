// test_source.h - where a campaign's tests come from.
//
// A test source hands out test `index` of a campaign and may learn from each test's results.
// A generator source (isra, declgen, randoop, graph) learns nothing: test i is a function of
// (config, seed, i), as in `nnfuzz gen`. A search source wraps a generator and steers it with
// what it learns (mcts: Luo et al.'s block chooser); its state is saved with the campaign so
// --resume goes on where it stopped. Sources are shared by the pipelines: draw and learn are
// thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "campaign/campaign_config.h"
#include "gen/generator.h"
#include "gen/block_corpus.h"

namespace nnfuzz::campaign {

/// One test as its source made it.
struct DrawnTest {
  int64_t index = 0;
  uint64_t seed = 0;      ///< the seed the case was generated from
  GeneratedCase c;
  nlohmann::json meta = nlohmann::json::object();  ///< what the source adds to meta.json
  int searchNode = -1;    ///< a search source's handle for learn()
};

/// What a test showed, for a learning source.
struct TestFeedback {
  bool coverageGrew = false;  ///< the model added operator-level coverage
  double olcGain = 0;         ///< ... this much OLC(I)
  bool bug = false;           ///< some backend/mode failed (MCF, IF or DCF)
  bool newBug = false;        ///< ... with a bug the campaign had not seen
};

class TestSource {
 public:
  virtual ~TestSource() = default;
  /// "isra", "graph", "graph+mcts", ...: what the store records as the test's generator.
  virtual std::string name() const = 0;
  /// Test `index` (thread-safe).
  virtual DrawnTest draw(int64_t index) = 0;
  /// The results of a test this source drew (thread-safe).
  virtual void learn(const DrawnTest&, const TestFeedback&) {}
  /// True when the source learns, so its state() must be saved for --resume.
  virtual bool learns() const { return false; }
  /// The learned state (null for a source that learns nothing).
  virtual nlohmann::json state() const { return nullptr; }
  /// Restores state() of an earlier session; throws nnfuzz::Error when it does not fit.
  virtual void restore(const nlohmann::json&) {}
};

/// Per-operator coverage (Luo's OLC_op by operator type) that a search source reads.
class CoverageView {
 public:
  virtual ~CoverageView() = default;
  virtual std::map<std::string, double> opCoverage() const = 0;
};

/// The source the config names: its generator, wrapped by its search strategy ("random" is the
/// generator itself). `corpus` is the block corpus the search chooses from and `coverage` the
/// campaign's coverage; both must outlive the source.
std::unique_ptr<TestSource> makeTestSource(const CampaignConfig& config, const BlockCorpus& corpus,
                                           const CoverageView& coverage);

}  // namespace nnfuzz::campaign
