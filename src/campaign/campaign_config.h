// campaign_config.h - a campaign's config: the generation config (gen/config.h) plus how tests
// are chosen. One JSON file holds both; the search keys are:
//
//   "search": "random" | "mcts",                       // random: the generator alone
//   "mcts": {"tc1": 10, "tc2": 1, "e": 0.7071, "max_children": 3, "subgraph_odds": 0.5,
//            "reward": "gain" | "success"},
//   "shard": "I/N"                                     // run tests I, I+N, I+2N, ... only
//
// Everything else is the generator's (gen/config.h). The effective config, both parts, is
// what the campaign database records, so a resumed campaign uses its own.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "gen/config.h"
#include "search/mcts.h"

namespace nnfuzz::campaign {

struct CampaignConfig {
  GenConfig gen;
  std::string search = "random";
  search::MctsOptions mcts;
  /// This campaign runs the tests whose index is shardIndex modulo shardCount (1: all).
  int shardIndex = 0, shardCount = 1;
};

/// "I/N" as (I, N); throws nnfuzz::Error unless 0 <= I < N.
std::pair<int, int> parseShard(const std::string& text);

/// The built-in default (the generator's default, random search).
CampaignConfig defaultCampaignConfig();
/// Applies a JSON config on top of `base`. Throws nnfuzz::Error naming the bad field.
CampaignConfig applyCampaignJson(CampaignConfig base, const nlohmann::json& json);
/// Reads a JSON config file on top of the default. Throws nnfuzz::Error.
CampaignConfig loadCampaignConfig(const std::string& path);
/// Cross-field checks of both parts. Throws nnfuzz::Error.
void validateCampaignConfig(const CampaignConfig& config);
/// The effective config as JSON (every field explicit).
nlohmann::json campaignConfigToJson(const CampaignConfig& config);

}  // namespace nnfuzz::campaign
