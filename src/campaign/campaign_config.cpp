// campaign_config.cpp - the campaign's config (see campaign_config.h).
#include "campaign/campaign_config.h"

#include <fstream>
#include <tuple>

#include "support/error.h"

namespace nnfuzz::campaign {

CampaignConfig defaultCampaignConfig() { return {defaultConfig(), "random", {}}; }

CampaignConfig applyCampaignJson(CampaignConfig base, const nlohmann::json& json) {
  if (!json.is_object()) throw Error("config must be a JSON object");
  nlohmann::json rest = json;
  if (rest.contains("search")) {
    if (!rest["search"].is_string()) throw Error("config: search must be a string (random or mcts)");
    base.search = rest["search"].get<std::string>();
    rest.erase("search");
  }
  if (rest.contains("mcts")) {
    base.mcts = search::mctsOptionsFromJson(base.mcts, rest["mcts"]);
    rest.erase("mcts");
  }
  if (rest.contains("shard")) {
    if (!rest["shard"].is_string()) throw Error("config: shard must be a string \"I/N\"");
    std::tie(base.shardIndex, base.shardCount) = parseShard(rest["shard"].get<std::string>());
    rest.erase("shard");
  }
  base.gen = applyConfigJson(std::move(base.gen), rest);
  return base;
}

CampaignConfig loadCampaignConfig(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read config file " + path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error("config file " + path + " is not valid JSON: " + e.what());
  }
  return applyCampaignJson(defaultCampaignConfig(), j);
}

void validateCampaignConfig(const CampaignConfig& config) {
  validateConfig(config.gen);
  if (config.search != "random" && config.search != "mcts")
    throw Error("unknown search '" + config.search + "' (known: random, mcts)");
}

nlohmann::json campaignConfigToJson(const CampaignConfig& config) {
  nlohmann::json j = configToJson(config.gen);
  j["search"] = config.search;
  j["mcts"] = search::mctsOptionsToJson(config.mcts);
  if (config.shardCount > 1) j["shard"] = std::to_string(config.shardIndex) + "/" + std::to_string(config.shardCount);
  return j;
}

std::pair<int, int> parseShard(const std::string& text) {
  const size_t slash = text.find('/');
  int index = -1, count = 0;
  try {
    size_t used = 0;
    if (slash != std::string::npos) {
      index = std::stoi(text.substr(0, slash), &used);
      if (used != slash) index = -1;
      count = std::stoi(text.substr(slash + 1), &used);
      if (used != text.size() - slash - 1) count = 0;
    }
  } catch (const std::exception&) {
    index = -1;
  }
  if (index < 0 || count < 1 || index >= count || count > 1000000)
    throw Error("shard must be I/N with 0 <= I < N (e.g. 0/4), got '" + text + "'");
  return {index, count};
}

}  // namespace nnfuzz::campaign
