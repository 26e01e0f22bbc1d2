// coverage_tracker.h - the coverage of a growing test set, under one corpus and one or
// both metric sets, fed one model at a time.
//
// Inside generation or fuzzing, add(graph) costs microseconds for a 30-op model and says
// whether coverage grew; addIfNew(graph) is Luo's Algorithm 1 (keep a model only if it
// adds coverage). Offline, folder_scan.h feeds it ONNX files. The tracker owns its corpus
// and all state: several trackers can run side by side (one per thread, say).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "ir/graph.h"
#include "gen/block_corpus.h"
#include "search/isra_coverage.h"
#include "search/luo_coverage.h"
#include "search/model_facts.h"

namespace nnfuzz::search {

/// Which metric sets a tracker keeps.
enum class MetricSets : uint8_t { Luo = 1, Isra = 2, All = 3 };

/// "luo" | "isra" | "all"; throws nnfuzz::Error otherwise.
MetricSets parseMetricSets(std::string_view name);

struct TrackerOptions {
  MetricSets metrics = MetricSets::All;
  LuoOptions luo;
};

class CoverageTracker {
 public:
  explicit CoverageTracker(BlockCorpus corpus, TrackerOptions options = {});

  /// Adds a model; returns whether some kept metric grew.
  bool add(const Graph& graph);
  bool add(const ModelFacts& facts);
  /// Adds the model only if it grows coverage (Luo's Algorithm 1); returns whether it did.
  bool addIfNew(const Graph& graph);
  bool addIfNew(const ModelFacts& facts);
  /// Whether adding the model would grow coverage (nothing is recorded).
  bool grows(const ModelFacts& facts) const;

  const BlockCorpus& corpus() const { return corpus_; }
  const TrackerOptions& options() const { return options_; }
  /// The metric sets, or nullptr when not kept.
  const LuoCoverage* luo() const { return luo_ ? &*luo_ : nullptr; }
  const IsraCoverage* isra() const { return isra_ ? &*isra_ : nullptr; }
  /// Models added.
  int64_t models() const { return models_; }
  /// Operator types outside the corpus met in added models, with their node counts.
  const std::map<std::string, int64_t>& unknownOps() const { return unknown_; }

 private:
  BlockCorpus corpus_;
  TrackerOptions options_;
  std::optional<LuoCoverage> luo_;
  std::optional<IsraCoverage> isra_;
  ModelFacts scratch_;  ///< reused so that adding a graph does not allocate once warm
  int64_t models_ = 0;
  std::map<std::string, int64_t> unknown_;
};

}  // namespace nnfuzz::search
