// tiers.h - filling the corpus: tier 1 (every operator alone), tier 2 (classic networks),
// tier 3 (the bug bundles of a campaign folder).
#pragma once

#include <cstdint>
#include <filesystem>

#include "corpus/corpus_db.h"

namespace nnfuzz {

/// Regenerates tier 1: one model per operator the default config can generate, its
/// parameters drawn from `seed` (isra with that operator alone). Returns the entry count.
int fillOperatorTier(CorpusDb& db, uint64_t seed);
/// Rebuilds tier 2 (classic_nets.h) with weights from `seed`. Returns the entry count.
int fillNetworkTier(CorpusDb& db, uint64_t seed);
/// Adds to tier 3 every bug bundle under `campaignDir`/bugs not yet in the corpus, with its
/// SUT, version and verdict class. Returns how many were added.
int importCampaignBugs(CorpusDb& db, const std::filesystem::path& campaignDir);

}  // namespace nnfuzz
