// findings.h - one test's runs judged, triaged and recorded in one call: the glue the fuzz
// loop (`nnfuzz fuzz`) and `nnfuzz run` share, so both order things the same crash-safe way.
//
// For one test: each run is judged against the reference; each SUT's baseline mode ("noopt")
// is judged against each of its other modes; every bug gets its signature, its bundle the first
// time (written before the row that points to it) and its bug row; then the test and all its
// judgements are committed together. A kill between the bug rows and the test row leaves the
// test in missingTests(), so a resumed campaign reruns it.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "store/bundle.h"
#include "store/campaign_store.h"

namespace nnfuzz {

/// The mode every other mode of a SUT is compared with.
inline constexpr const char* kBaselineMode = "noopt";

/// What bundles need beyond the case and the run (the same for every test of a campaign).
struct BundleContext {
  std::filesystem::path bugsDir;  ///< where bundles go, e.g. CAMPAIGN/bugs
  nlohmann::json versions = nlohmann::json::object();  ///< nnfuzz's and the SUTs' versions
  double prepareLimitSeconds = 0, runLimitSeconds = 0, memoryLimitMb = 0;
  std::map<std::string, std::string> env;  ///< the workers' environment settings
};

/// One judgement and, for a bug, what the store made of it.
struct JudgedRun {
  Judgement judgement;
  std::optional<BugUpdate> bug;  ///< set for MCF, IF and DCF
  std::string bugHash;
};

/// Judges `outcomes` (one per backend/mode; `reference` null when no trusted reference exists),
/// records bugs and bundles, then the test with every judgement. `makeCase` is called only when a
/// new bug needs a bundle (exporting the model costs time). Returns the judgements, reference
/// ones first in `outcomes` order, then mode-vs-mode ones.
std::vector<JudgedRun> recordFindings(CampaignStore& store, const Oracle& oracle, const BundleContext& context,
                                      const TestRecord& test, const std::vector<RunOutcome>& outcomes,
                                      const std::vector<Tensor>* reference,
                                      const std::function<BundleCase()>& makeCase);

}  // namespace nnfuzz
