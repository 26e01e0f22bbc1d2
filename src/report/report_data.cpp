// report_data.cpp - gathering a campaign report's numbers and texts (see report_data.h).
#include "report/report_data.h"

#include <algorithm>
#include <tuple>

#include "onnx/import.h"
#include "onnx/tensor_proto.h"
#include "report/graph_drawing.h"
#include "support/error.h"

namespace nnfuzz::report {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMinRateWindow = 10;  ///< tests per throughput sample: fewer make a jagged curve

double minutesSince(double start, double at) { return (at - start) / 60; }

/// Tests/s over sliding windows of recorded tests, and the cumulative test count.
void throughput(const CampaignSnapshot& snap, size_t maxPoints, ReportData& r) {
  const auto& t = snap.tests;
  const size_t n = t.size();
  if (n == 0) return;
  const size_t stride = std::max<size_t>(1, n / std::max<size_t>(1, maxPoints));
  for (size_t i = 0; i < n; i += stride) r.testsOverTime.push_back({minutesSince(snap.startedAt, t[i].recordedAt), double(i + 1)});
  r.testsOverTime.push_back({minutesSince(snap.startedAt, t[n - 1].recordedAt), double(n)});
  if (n < 2) return;
  const size_t window = std::min(n - 1, std::max(kMinRateWindow, stride));
  for (size_t i = window; i < n; i += stride) {
    const double dt = t[i].recordedAt - t[i - window].recordedAt;
    if (dt > 0) r.testsPerSecond.push_back({minutesSince(snap.startedAt, t[i].recordedAt), double(window) / dt});
  }
}

std::vector<OutcomeRow> outcomeRows(const std::vector<OutcomeCount>& counts) {
  std::vector<OutcomeRow> rows;
  for (const OutcomeCount& c : counts) {
    auto it = std::find_if(rows.begin(), rows.end(), [&](const OutcomeRow& r) {
      return std::tie(r.backend, r.mode, r.against) == std::tie(c.backend, c.mode, c.against);
    });
    if (it == rows.end()) it = rows.insert(rows.end(), OutcomeRow{c.backend, c.mode, c.against, {}, 0});
    it->verdicts[c.verdict] += c.count;
    it->total += c.count;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const OutcomeRow& a, const OutcomeRow& b) {
    return std::make_tuple(a.against != "reference", a.backend, a.mode, a.against) <
           std::make_tuple(b.against != "reference", b.backend, b.mode, b.against);
  });
  return rows;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : sep) + i;
  return s;
}

/// What names a bug, for people: a wrong result's culprit, an error's type and message, a
/// crash's signal and innermost frame.
std::string rootCause(const Signature& s) {
  if (s.verdict == "dcf") return "wrong result: " + join(s.opTypes, ", ");
  std::string what = s.symptom;
  if (!s.errorType.empty()) what += " " + s.errorType;
  if (!s.message.empty()) what += ": " + s.message;
  if (!s.frames.empty()) what += " (in " + s.frames.front() + ")";
  return what;
}

/// A bundle's meta.json (null when there is none or it does not parse).
nlohmann::json bundleMeta(const fs::path& bundleDir) {
  std::error_code ec;
  if (bundleDir.empty() || !fs::exists(bundleDir / "meta.json", ec)) return nullptr;
  auto meta = nlohmann::json::parse(readFileBytes(bundleDir / "meta.json"), nullptr, false);
  return meta.is_object() ? meta : nlohmann::json(nullptr);
}

std::string versionOf(const nlohmann::json& meta, const std::string& backend, const nlohmann::json& campaignVersions) {
  if (meta.is_object() && meta.contains("versions") && meta["versions"].is_object() &&
      meta["versions"].contains(backend) && meta["versions"][backend].is_string())
    return meta["versions"][backend].get<std::string>();
  if (campaignVersions.is_object() && campaignVersions.contains(backend) && campaignVersions[backend].is_string())
    return campaignVersions[backend].get<std::string>();
  return "";
}

BugEntry bugEntry(const fs::path& campaignDir, const CampaignSnapshot& snap, const BugRow& row, bool draw) {
  BugEntry e;
  e.row = row;
  e.rootCause = rootCause(row.bug.signature);
  e.bundleDir = bundleDirOf(campaignDir, row.bug);
  const nlohmann::json meta = bundleMeta(e.bundleDir);
  e.version = versionOf(meta, row.bug.signature.backend, snap.versions);
  e.firstSeenMinutes = minutesSince(snap.startedAt, row.bug.firstSeen);
  if (e.bundleDir.empty()) return e;
  std::error_code ec;
  if (fs::exists(e.bundleDir / "model.ir", ec)) e.modelIr = readFileBytes(e.bundleDir / "model.ir");
  // The optimizer pass behind it, when the reducer found one: part of the root cause's name.
  const nlohmann::json::json_pointer where("/case/reduced/culprit_passes");
  std::vector<std::string> names;
  if (meta.is_object() && meta.contains(where) && meta.at(where).is_array())
    for (const auto& p : meta.at(where))
      if (p.is_string()) names.push_back(p.get<std::string>());
  if (!names.empty()) e.rootCause += " [pass: " + join(names, ", ") + "]";
  const fs::path rel = e.bundleDir.lexically_relative(campaignDir);
  e.reproCommand = "cd " + (rel.empty() ? e.bundleDir : rel).string() + " && python3 repro.py";
  if (draw && fs::exists(e.bundleDir / "model.onnx", ec)) {
    try {
      e.drawingSvg = layoutSvg(modelDot(loadModelFile(e.bundleDir / "model.onnx")));
    } catch (const Error&) {
      // An unreadable model: the table still lists the bug, without a drawing.
    }
  }
  return e;
}

}  // namespace

fs::path bundleDirOf(const fs::path& campaignDir, const StoredBug& bug) {
  std::error_code ec;
  if (bug.bundle.empty()) return {};
  const fs::path here = campaignDir / "bugs" / fs::path(bug.bundle).filename();
  if (fs::is_directory(here, ec)) return fs::absolute(here, ec).lexically_normal();
  if (fs::is_directory(bug.bundle, ec)) return fs::absolute(bug.bundle, ec).lexically_normal();
  return {};
}

const BugRow& findBug(const std::vector<BugRow>& bugs, const std::string& id) {
  std::vector<const BugRow*> hits;
  for (const BugRow& b : bugs) {
    const bool byName = fs::path(b.bug.bundle).filename().string() == id;
    const bool byHash = id.size() >= 4 && b.bug.hash.rfind(id, 0) == 0;
    if (byName || byHash) hits.push_back(&b);
  }
  if (hits.empty()) throw Error("no bug '" + id + "' in this campaign (give a bundle name or a signature hash prefix)");
  if (hits.size() > 1) throw Error("'" + id + "' names " + std::to_string(hits.size()) + " bugs: give more of the hash");
  return *hits.front();
}

ReportData collectReport(const fs::path& campaignDir, const ReportOptions& options) {
  ReportData r;
  std::error_code ec;
  r.campaignDir = fs::absolute(campaignDir, ec).lexically_normal();
  const CampaignReader reader(r.campaignDir / "campaign.db");
  const CampaignSnapshot snap = reader.snapshot();
  r.config = snap.config;
  r.versions = snap.versions;
  r.startedAt = snap.startedAt;
  r.sessions = snap.sessions.size();
  r.tests = static_cast<int64_t>(snap.tests.size());
  r.lastActivity = snap.startedAt;
  if (!snap.tests.empty()) r.lastActivity = std::max(r.lastActivity, snap.tests.back().recordedAt);
  for (const BugRow& b : snap.bugs) r.lastActivity = std::max(r.lastActivity, b.bug.lastSeen);
  if (!snap.sessions.empty()) r.lastActivity = std::max(r.lastActivity, snap.sessions.back().startedAt);

  throughput(snap, options.maxCurvePoints, r);
  std::vector<double> firstSeen;
  for (const BugRow& b : snap.bugs) firstSeen.push_back(b.bug.firstSeen);
  std::sort(firstSeen.begin(), firstSeen.end());
  r.bugsOverTime.push_back({0, 0});
  for (size_t k = 0; k < firstSeen.size(); ++k)
    r.bugsOverTime.push_back({minutesSince(snap.startedAt, firstSeen[k]), double(k + 1)});
  r.bugsOverTime.push_back({minutesSince(snap.startedAt, r.lastActivity), double(firstSeen.size())});

  auto coverage = coverageHistories(r.campaignDir, snap, options.maxCurvePoints);
  r.luo = std::move(coverage.luo);
  r.isra = std::move(coverage.isra);
  r.outcomes = outcomeRows(snap.outcomes);

  const bool draw = options.drawModels && graphvizAvailable();
  if (options.drawModels && !draw) r.drawingNote = "Graphviz's dot is not installed (apt install graphviz): models are not drawn.";
  for (const BugRow& b : snap.bugs) r.bugs.push_back(bugEntry(r.campaignDir, snap, b, draw));
  return r;
}

}  // namespace nnfuzz::report
