// coverage_history.h - a campaign's coverage over time, per metric set (Luo's, Isra's).
//
// From the campaign's own coverage rows when it recorded them; otherwise computed from the
// kept models (CAMPAIGN/corpus/<test index>.ir, Luo's Algorithm 1), each placed at the time
// its test was recorded. A model that adds no Luo coverage changes no Luo metric, so the kept
// set gives Luo's curve exactly; Isra's metrics over the kept set are those of the models
// that grew Luo's coverage, a lower bound of the whole test set's (the source says so).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "store/campaign_reader.h"

namespace nnfuzz::report {

/// One metric set's curves.
struct CoverageHistory {
  std::string source;  ///< where the numbers come from, one line for the report
  std::vector<double> minutes;                         ///< since the campaign started
  std::vector<int64_t> tests;                          ///< tests recorded by then
  std::map<std::string, std::vector<double>> metrics;  ///< "olc", "otc", ... (the set's own units)
  bool empty() const { return minutes.empty(); }
};

/// Luo's and Isra's histories.
struct CoverageHistories {
  CoverageHistory luo, isra;
};

/// The histories of the campaign in `campaignDir` as `snapshot` shows it, at most `maxPoints`
/// points each. The coverage corpus is the campaign's (its config's block file, or ours).
CoverageHistories coverageHistories(const std::filesystem::path& campaignDir, const CampaignSnapshot& snapshot,
                                    size_t maxPoints);

}  // namespace nnfuzz::report
