// campaign.h - the engine every campaign runs in.
//
// -j pipelines, each with its own SUT workers, repeat: draw a test from the test source ->
// write the case to scratch -> run every backend/mode -> judge against the reference and mode
// against mode -> triage (reduce, sign) -> record in the campaign store -> measure coverage ->
// tell the source what the test showed. Test indices come from one counter, so a generator
// source's test i is (config, seed, i) whatever -j is. The store makes every finding durable
// before the next test; --resume continues from it: missing tests are rerun, the kept models
// give the coverage back and a learning source gets its saved state back.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "run/worker.h"

namespace nnfuzz::campaign {

struct CampaignOptions {
  std::filesystem::path out;  ///< campaign folder: campaign.db, bugs/, corpus/
  std::string backends = "onnxruntime";
  std::string backendsFile;
  std::string configPath;  ///< JSON config (campaign_config.h); empty: the default
  /// Config fields set on top of the file (the command line's flags), in the file's JSON form.
  nlohmann::json overrides = nlohmann::json::object();
  std::string policy = "allclose";
  /// "backend:mode" whose run stands for the expected outputs of a test without a trusted
  /// reference (other SUTs are judged against it); empty: mode against mode only.
  std::string referenceRun = "onnxruntime:noopt";
  double minutes = 2;    ///< 0: only maxTests
  int64_t maxTests = -1;
  int jobs = 1;
  bool resume = false;
  bool reduce = true;
  /// A test goes to all its workers at once (they run side by side when cores are idle);
  /// false: one after the other.
  bool sideBySide = true;
  WorkerLimits limits;
  /// Set by the caller (e.g. on SIGINT) to stop after the tests in hand.
  const std::atomic<bool>* stop = nullptr;
  /// Where progress lines and the summary go.
  std::function<void(const std::string&)> print;
  bool liveProgress = false;  ///< a terminal: one line rewritten in place
};

struct CampaignResult {
  int64_t tests = 0;       ///< tests run in this session
  double seconds = 0;
  int64_t newBugs = 0;     ///< unique bugs first seen in this session
  size_t totalBugs = 0;    ///< unique bugs of the whole campaign
  bool stopped = false;    ///< ended by `stop`
};

/// Runs (or resumes) a campaign. Throws nnfuzz::Error (one line) for bad options, an unusable
/// backend or an unusable campaign folder.
CampaignResult runCampaign(const CampaignOptions& options);

}  // namespace nnfuzz::campaign
