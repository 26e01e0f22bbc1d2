// campaign_config.cpp - the campaign's config (see campaign_config.h).
#include "campaign/campaign_config.h"

#include <fstream>

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
  return j;
}

}  // namespace nnfuzz::campaign
