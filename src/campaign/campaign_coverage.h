// campaign_coverage.h - the operator-level coverage of a campaign's tests, and the kept test
// set of Luo's Algorithm 1: a test whose model adds coverage is written to CAMPAIGN/corpus/
// (GraphIR text, <index>.ir). Since a model that adds nothing leaves every metric as it was,
// re-adding the kept models restores the coverage exactly, which is how --resume gets it back.
// Thread-safe: the pipelines share one.
#pragma once

#include <filesystem>
#include <mutex>
#include <vector>

#include "campaign/test_source.h"
#include "search/coverage_tracker.h"

namespace nnfuzz::campaign {

class CampaignCoverage : public CoverageView {
 public:
  /// `keptDir` is where kept models go (created on first use).
  CampaignCoverage(BlockCorpus corpus, std::filesystem::path keptDir);

  /// What adding a model did.
  struct Gain {
    bool grew = false;  ///< some metric grew (the model joined the kept set)
    double olc = 0;     ///< how much OLC(I) rose
  };
  /// Adds a test's model; when it grows coverage, writes it to the kept set.
  Gain add(int64_t index, const Graph& graph);
  /// Re-adds every model of the kept set (a resumed campaign); returns how many.
  size_t reload();
  std::map<std::string, double> opCoverage() const override;
  /// Luo's OLC(I) and Isra's SEC/DEC of everything added so far.
  struct Summary {
    double olc = 0, otc = 0, idc = 0, odc = 0, sec = 0, spc = 0;
    int64_t models = 0, kept = 0;
  };
  Summary summary() const;

 private:
  mutable std::mutex mu_;
  search::CoverageTracker tracker_;
  std::filesystem::path keptDir_;
  int64_t kept_ = 0;
  double olc_ = 0;  ///< OLC(I) after the last growth
};

}  // namespace nnfuzz::campaign
