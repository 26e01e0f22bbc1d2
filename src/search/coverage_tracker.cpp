// coverage_tracker.cpp - dispatch to the kept metric sets.
#include "search/coverage_tracker.h"

#include "support/error.h"

namespace nnfuzz::search {

MetricSets parseMetricSets(std::string_view name) {
  if (name == "luo") return MetricSets::Luo;
  if (name == "isra") return MetricSets::Isra;
  if (name == "all") return MetricSets::All;
  throw Error("unknown metric set '" + std::string(name) + "' (luo, isra or all)");
}

CoverageTracker::CoverageTracker(BlockCorpus corpus, TrackerOptions options)
    : corpus_(std::move(corpus)), options_(options) {
  const auto bits = static_cast<uint8_t>(options_.metrics);
  if (bits & static_cast<uint8_t>(MetricSets::Luo)) luo_.emplace(corpus_, options_.luo);
  if (bits & static_cast<uint8_t>(MetricSets::Isra)) isra_.emplace(corpus_);
}

bool CoverageTracker::add(const Graph& graph) {
  factsFromGraph(graph, corpus_, scratch_);
  return add(scratch_);
}

bool CoverageTracker::add(const ModelFacts& facts) {
  bool grew = false;
  if (luo_) grew |= luo_->add(facts);
  if (isra_) grew |= isra_->add(facts);
  for (size_t k = 0; k < facts.unknownOps.size(); ++k) unknown_[facts.unknownOps[k]] += facts.unknownCounts[k];
  ++models_;
  return grew;
}

bool CoverageTracker::grows(const ModelFacts& facts) const {
  return (luo_ && luo_->grows(facts)) || (isra_ && isra_->grows(facts));
}

bool CoverageTracker::addIfNew(const Graph& graph) {
  factsFromGraph(graph, corpus_, scratch_);
  return addIfNew(scratch_);
}

bool CoverageTracker::addIfNew(const ModelFacts& facts) {
  if (!grows(facts)) return false;
  add(facts);
  return true;
}

}  // namespace nnfuzz::search
