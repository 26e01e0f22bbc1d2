// config_json.cpp - fuzz target: a generator config from untrusted bytes (targets.h).
#include <nlohmann/json.hpp>

#include "fuzz/targets.h"
#include "gen/config.h"
#include "support/error.h"

namespace nnfuzz::fuzz {

void configJson(std::string_view text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return;
  GenConfig config;
  try {
    config = applyConfigJson(defaultConfig(), j);
    validateConfig(config);
  } catch (const Error&) {
    return;
  }
  // What a run writes as out/config.json must give the same config back.
  try {
    const GenConfig again = applyConfigJson(defaultConfig(), configToJson(config));
    if (configHash(again) != configHash(config)) broken("config.json round-trips", configToJson(config).dump(1));
  } catch (const Error& e) {
    broken("a valid config's JSON is accepted", e.what());
  }
}

}  // namespace nnfuzz::fuzz

NNFUZZ_FUZZ_ENTRY(nnfuzz::fuzz::configJson)
