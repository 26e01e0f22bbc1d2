// campaign_coverage.cpp - a campaign's coverage and kept test set (see campaign_coverage.h).
#include "campaign/campaign_coverage.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/core.h>

#include "support/error.h"

namespace nnfuzz::campaign {

namespace fs = std::filesystem;

CampaignCoverage::CampaignCoverage(BlockCorpus corpus, fs::path keptDir)
    : tracker_(std::move(corpus), {search::MetricSets::Luo, {}}), keptDir_(std::move(keptDir)) {}

CampaignCoverage::Gain CampaignCoverage::add(int64_t index, const Graph& graph) {
  std::lock_guard lock(mu_);
  if (!tracker_.add(graph)) return {};
  ++kept_;
  const double before = olc_;
  olc_ = tracker_.luo()->report().olc;
  std::error_code ec;
  fs::create_directories(keptDir_, ec);
  // Written via a temporary name: a kill never leaves half a model for reload() to trip on.
  const fs::path file = keptDir_ / fmt::format("{:06}.ir", index);
  const fs::path temp = keptDir_ / fmt::format(".{:06}.ir.tmp", index);
  {
    std::ofstream out(temp);
    out << printGraph(graph);
    if (!out) throw Error("cannot write kept model " + temp.string());
  }
  fs::rename(temp, file, ec);
  if (ec) throw Error("cannot write kept model " + file.string() + ": " + ec.message());
  return {true, olc_ - before};
}

size_t CampaignCoverage::reload() {
  std::lock_guard lock(mu_);
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(keptDir_, ec))
    if (entry.path().extension() == ".ir" && entry.path().filename().string()[0] != '.') files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    try {
      tracker_.add(parseGraph(text.str()));
    } catch (const Error& e) {
      throw Error("kept model " + file.string() + " is damaged: " + e.what());
    }
  }
  kept_ = static_cast<int64_t>(files.size());
  olc_ = tracker_.luo()->report().olc;
  return files.size();
}

std::map<std::string, double> CampaignCoverage::opCoverage() const {
  std::lock_guard lock(mu_);
  std::map<std::string, double> out;
  for (const auto& row : tracker_.luo()->report().ops) out[row.op] = row.olc;
  return out;
}

CampaignCoverage::Summary CampaignCoverage::summary() const {
  std::lock_guard lock(mu_);
  const auto r = tracker_.luo()->report();
  return {r.olc, r.otc, r.idc, r.odc, r.sec, r.spc, tracker_.models(), kept_};
}

}  // namespace nnfuzz::campaign
