// campaign_merge.h - folds the databases and bug bundles of a campaign's shards into one.
//
// Shards (`nnfuzz fuzz --shard I/N`) run disjoint test indices of one campaign, each in its own
// folder, on one machine or across a Ray cluster. mergeCampaigns writes OUT/campaign.db with
// every shard's tests and results, one row per bug signature (hits summed, first and last seen
// widened, the example test and bundle of the earliest hit kept), OUT/bugs/ with that bundle
// per bug, and OUT/corpus/ with the union of the kept models. The shards must share their
// config but for the shard itself; an index recorded by two shards is an error.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace nnfuzz {

struct MergeSummary {
  int shards = 0;
  int64_t tests = 0, results = 0, bugs = 0;
  std::vector<std::string> notes;  ///< e.g. shards of an I/N series that were not given
};

/// Throws a one-line Error (a missing or foreign database, configs that differ, an existing
/// OUT/campaign.db, a test index in two shards) before writing anything.
MergeSummary mergeCampaigns(const std::filesystem::path& out, const std::vector<std::filesystem::path>& shards);

}  // namespace nnfuzz
