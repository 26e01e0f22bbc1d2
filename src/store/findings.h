// findings.h - one test's runs judged, triaged and recorded in one call: the glue the fuzz
// loop (`nnfuzz fuzz`) and `nnfuzz run` share, so both order things the same crash-safe way.
//
// For one test: each run is judged against the reference; each SUT's baseline mode ("noopt")
// is judged against each of its other modes; runs with equal (folded) signatures are one
// finding (shown with the first such run); every bug gets its signature, its
// bundle the first time (written before the row that points to it) and its bug row; then the
// test and all its judgements are committed together. A kill between the bug rows and the test row leaves the
// test in missingTests(), so a resumed campaign reruns it.
// Signatures are folded (triage/fold.h): a reduced wrong result is named by its culprit, an
// error over a wrong value by that value's culprit, and the mode and comparison are not part
// of a bug's identity (mode "any"; the modes it was seen in are the signature's `modes`), so
// the runs of one test with equal signatures are one bug, recorded once.
#pragma once

#include <filesystem>
#include <map>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "store/bundle.h"
#include "store/campaign_store.h"
#include "triage/fold.h"

namespace nnfuzz {

/// The mode every other mode of a SUT is compared with.
inline constexpr const char* kBaselineMode = "noopt";

/// What bundles need beyond the case and the run (the same for every test of a campaign).
struct BundleContext {
  std::filesystem::path bugsDir;  ///< where bundles go, e.g. CAMPAIGN/bugs
  nlohmann::json versions = nlohmann::json::object();  ///< nnfuzz's and the SUTs' versions
  double prepareLimitSeconds = 0, runLimitSeconds = 0, memoryLimitMb = 0;
  std::map<std::string, std::string> env;  ///< the workers' environment settings
  /// Per backend, how its worker is started: {"command": [...], "env": {...}}.
  std::map<std::string, nlohmann::json> workers;
};

/// A finding shown again on a smaller case (see triage/reduce.h).
struct ReducedFinding {
  BundleCase bcase;                    ///< the reduced case (its meta says what it came from)
  Judgement judgement;                 ///< the reduced case's judgement
  RunOutcome outcome;                  ///< the reduced case's run
  std::optional<RunOutcome> baseline;  ///< mode-vs-mode: the baseline's run of it
  /// The first operator the SUT gets wrong in it (triage/blame.h): names a wrong result, and
  /// an error over a wrong value becomes that value's bug (triage/fold.h).
  std::optional<Culprit> culprit;
  /// An error's name from an experiment on the reduced case (triage/experiments.h), else empty:
  /// then the error is that finding's bug, whatever its words (triage/fold.h's namedByExperiment).
  std::string namedBy;
};

/// Reduces one bug finding (judgement, the run judged, its signature so far); nullopt when it
/// does not (no smaller case fails the same way, or the finding is not worth reducing).
using FindingReducer = std::function<std::optional<ReducedFinding>(const Judgement&, const RunOutcome&, const Signature&)>;

/// One judgement and, for a bug, what the store made of it.
struct JudgedRun {
  Judgement judgement;
  std::optional<BugUpdate> bug;  ///< set for MCF, IF and DCF
  std::string bugHash;
};

/// Judges `outcomes` (one per backend/mode; `reference` null when no trusted reference exists),
/// records bugs and bundles, then the test with every judgement. `makeCase` is called only when a
/// new bug needs a bundle (exporting the model costs time). Returns the judgements, reference
/// ones first in `outcomes` order, then (without a reference) other SUTs' runs against the
/// oracle's fallback reference run, then mode-vs-mode ones.
/// With a `reducer`, a wrong result (DCF) is always reduced first, because its signature is the
/// reduced case's operators; an error or crash only when its bug is new, for a small bundle.
std::vector<JudgedRun> recordFindings(CampaignStore& store, const Oracle& oracle, const BundleContext& context,
                                      const TestRecord& test, const std::vector<RunOutcome>& outcomes,
                                      const std::vector<Tensor>* reference,
                                      const std::function<BundleCase()>& makeCase,
                                      const FindingReducer& reducer = {});

}  // namespace nnfuzz
