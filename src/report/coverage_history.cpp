// coverage_history.cpp - coverage over time, recorded or recomputed (see coverage_history.h).
#include "report/coverage_history.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/core.h>

#include "campaign/campaign_config.h"
#include "gen/graph_gen.h"
#include "onnx/tensor_proto.h"
#include "search/coverage_tracker.h"
#include "support/error.h"

namespace nnfuzz::report {

namespace fs = std::filesystem;

namespace {

/// The corpus the campaign measured coverage over (campaign.cpp's rule: the config's own
/// block file when it names one, else our operator library).
BlockCorpus campaignCorpus(const nlohmann::json& config) {
  try {
    const auto c = campaign::applyCampaignJson(campaign::defaultCampaignConfig(), config);
    if (!c.gen.graph.blocksFile.empty()) return graphCorpus(c.gen);
  } catch (const Error&) {
    // A config from another nnfuzz version, or a block file that moved: our corpus it is.
  }
  return defaultCorpus();
}

int64_t testsBy(const CampaignSnapshot& snap, double at) {
  const auto it = std::upper_bound(snap.tests.begin(), snap.tests.end(), at,
                                   [](double t, const TestTime& test) { return t < test.recordedAt; });
  return it - snap.tests.begin();
}

/// Keeps at most `maxPoints` points (evenly spaced, the last always kept).
void thin(CoverageHistory& h, size_t maxPoints) {
  if (h.minutes.size() <= maxPoints || maxPoints < 2) return;
  const size_t stride = (h.minutes.size() + maxPoints - 2) / (maxPoints - 1);
  std::vector<size_t> keep;
  for (size_t i = 0; i + 1 < h.minutes.size(); i += stride) keep.push_back(i);
  keep.push_back(h.minutes.size() - 1);
  auto pick = [&](auto& v) {
    std::remove_reference_t<decltype(v)> out;
    for (size_t i : keep) out.push_back(v[i]);
    v = std::move(out);
  };
  pick(h.minutes);
  pick(h.tests);
  for (auto& [name, values] : h.metrics) pick(values);
}

/// The rows' metrics named "<set>.<metric>", or an empty history when no row has that set.
CoverageHistory fromRows(const CampaignSnapshot& snap, const std::string& set) {
  CoverageHistory h;
  const std::string prefix = set + ".";
  for (const CoverageRow& row : snap.coverage) {
    std::map<std::string, double> mine;
    for (const auto& [key, value] : row.record.metrics)
      if (key.rfind(prefix, 0) == 0) mine[key.substr(prefix.size())] = value;
    if (mine.empty()) continue;
    h.minutes.push_back((row.at - snap.startedAt) / 60);
    h.tests.push_back(row.record.tests);
    for (const auto& [name, value] : mine) {
      auto& v = h.metrics[name];
      v.resize(h.minutes.size() - 1, 0.0);  // a metric first recorded late starts at 0
      v.push_back(value);
    }
  }
  if (!h.empty()) h.source = fmt::format("recorded by the campaign ({} rows)", h.minutes.size());
  return h;
}

struct KeptModel {
  double at = 0;
  fs::path file;
};

/// The kept models whose tests the snapshot holds, in recording order.
std::vector<KeptModel> keptModels(const fs::path& corpusDir, const CampaignSnapshot& snap) {
  std::unordered_map<int64_t, double> recorded;
  for (const TestTime& t : snap.tests) recorded[t.index] = t.recordedAt;
  std::vector<KeptModel> kept;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(corpusDir, ec)) {
    const fs::path& p = entry.path();
    if (p.extension() != ".ir" || p.filename().string()[0] == '.') continue;
    try {
      const auto it = recorded.find(std::stoll(p.stem().string()));
      if (it != recorded.end()) kept.push_back({it->second, p});
    } catch (const std::exception&) {
      // Not "<index>.ir": someone else's file.
    }
  }
  std::sort(kept.begin(), kept.end(), [](const KeptModel& a, const KeptModel& b) { return a.at < b.at; });
  return kept;
}

CoverageHistories fromKeptModels(const fs::path& campaignDir, const CampaignSnapshot& snap) {
  CoverageHistories out;
  const auto kept = keptModels(campaignDir / "corpus", snap);
  if (kept.empty()) return out;
  search::CoverageTracker tracker(campaignCorpus(snap.config), {search::MetricSets::All, {}});
  size_t damaged = 0;
  auto addPoint = [&](double at) {
    const auto luo = tracker.luo()->report();
    const auto isra = tracker.isra()->report();
    for (CoverageHistory* h : {&out.luo, &out.isra}) {
      h->minutes.push_back((at - snap.startedAt) / 60);
      h->tests.push_back(testsBy(snap, at));
    }
    for (const auto& [name, value] : {std::pair{"olc", luo.olc}, {"otc", luo.otc}, {"idc", luo.idc},
                                      {"odc", luo.odc}, {"sec", luo.sec}, {"spc", luo.spc}})
      out.luo.metrics[name].push_back(value);
    for (const auto& [name, value] : {std::pair{"otc", isra.otc}, {"idc", isra.idc}, {"odc", isra.odc},
                                      {"sec", isra.sec}, {"dec", isra.dec}, {"sac", isra.sac}})
      out.isra.metrics[name].push_back(value);
  };
  for (const KeptModel& k : kept) {
    try {
      tracker.add(parseGraph(readFileBytes(k.file)));
    } catch (const Error&) {
      ++damaged;  // a damaged kept model: the campaign's --resume says so; the report goes on
      continue;
    }
    addPoint(k.at);
  }
  if (!snap.tests.empty() && snap.tests.back().recordedAt > kept.back().at) addPoint(snap.tests.back().recordedAt);
  const std::string note = damaged ? fmt::format(", {} damaged ones skipped", damaged) : "";
  out.luo.source = fmt::format("computed from the {} kept models in corpus/ (exact: a test that adds no coverage "
                               "changes no metric){}", kept.size() - damaged, note);
  out.isra.source = fmt::format("computed from the {} kept models in corpus/ (the tests that grew Luo's coverage: "
                                "a lower bound for the whole test set){}", kept.size() - damaged, note);
  return out;
}

}  // namespace

CoverageHistories coverageHistories(const fs::path& campaignDir, const CampaignSnapshot& snapshot, size_t maxPoints) {
  CoverageHistories h{fromRows(snapshot, "luo"), fromRows(snapshot, "isra")};
  if (h.luo.empty() || h.isra.empty()) {
    CoverageHistories computed = fromKeptModels(campaignDir, snapshot);
    if (h.luo.empty()) h.luo = std::move(computed.luo);
    if (h.isra.empty()) h.isra = std::move(computed.isra);
  }
  for (CoverageHistory* one : {&h.luo, &h.isra}) {
    if (one->empty() && one->source.empty()) one->source = "not recorded, and no kept models in corpus/";
    thin(*one, maxPoints);
  }
  return h;
}

}  // namespace nnfuzz::report
