// report_data.h - what a campaign report shows, gathered from the campaign folder: the
// database (read-only, so a running campaign can be reported), the bug bundles and the kept
// models. Rendering (html_report.h) only formats these numbers and texts.
//
// Time series come from the per-test timestamps and the bugs' first-seen times, so even a
// campaign of a few seconds gets a curve. Coverage over time comes from the campaign's
// coverage rows when it recorded them (CampaignStore::recordCoverage); otherwise, and for any
// metric set the rows lack, it is computed now from the kept models in CAMPAIGN/corpus/ (see
// coverage_history.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/coverage_history.h"
#include "store/campaign_reader.h"

namespace nnfuzz::report {

/// One curve point: x in minutes since the campaign started.
struct Point {
  double minutes = 0, value = 0;
};

/// Verdict counts of one backend/mode judged against one baseline ("reference" or a mode).
struct OutcomeRow {
  std::string backend, mode, against;
  std::map<std::string, int64_t> verdicts;  ///< "pass", "unsupported", "mcf", "if", "dcf", "harness-error"
  int64_t total = 0;
};

/// One unique bug as the report lists it.
struct BugEntry {
  BugRow row;
  std::string rootCause;       ///< what names the bug: the culprit, or the error and its message
  std::string version;         ///< the SUT's version when the bug was bundled
  std::filesystem::path bundleDir;  ///< absolute; empty when the bundle folder is missing
  std::string modelIr;         ///< the reduced model's text IR ("" when the bundle has none)
  std::optional<std::string> drawingSvg;  ///< the reduced model drawn by Graphviz
  std::string reproCommand;    ///< shell command, run from the campaign folder
  double firstSeenMinutes = 0;
};

struct ReportData {
  std::filesystem::path campaignDir;  ///< absolute
  nlohmann::json config, versions;
  double startedAt = 0, lastActivity = 0;  ///< seconds since the epoch
  size_t sessions = 0;
  int64_t tests = 0;
  std::vector<Point> testsPerSecond, testsOverTime, bugsOverTime;
  CoverageHistory luo, isra;  ///< each with where its numbers come from
  std::vector<OutcomeRow> outcomes;  ///< against the reference first, then mode vs mode
  std::vector<BugEntry> bugs;        ///< first seen first
  std::string drawingNote;           ///< why models are not drawn ("" when they are)
};

struct ReportOptions {
  bool drawModels = true;       ///< run Graphviz on each bug's reduced model
  size_t maxCurvePoints = 300;  ///< per curve: more points add bytes, not information
};

/// Reads the campaign in `campaignDir` (its campaign.db must exist). Throws a one-line Error.
ReportData collectReport(const std::filesystem::path& campaignDir, const ReportOptions& options = {});

/// The bundle folder of a bug: CAMPAIGN/bugs/<name> when it exists (campaign folders move),
/// else the recorded path; empty when neither exists.
std::filesystem::path bundleDirOf(const std::filesystem::path& campaignDir, const StoredBug& bug);

/// The bug named by `id`: a signature hash prefix (at least 4 hex digits) or a bundle name.
/// Throws a one-line Error when none or several match.
const BugRow& findBug(const std::vector<BugRow>& bugs, const std::string& id);

}  // namespace nnfuzz::report
