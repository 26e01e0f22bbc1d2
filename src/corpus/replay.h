// replay.h - replaying the corpus through SUTs and the regression view: per SUT, each
// (entry, mode) that is a bug now or was one in the last replay of that SUT is still
// failing, now passing or newly failing.
#pragma once

#include <string>
#include <vector>

#include "corpus/corpus_db.h"

namespace nnfuzz {

struct ReplayOptions {
  std::string backends = "onnxruntime";
  std::string backendsFile;
  std::string policy = "allclose";
  int tier = 0;  ///< 0: all tiers (3, then 1, then 2)
};

/// One line of the regression view.
struct RegressionLine {
  std::string status;  ///< "still-failing", "now-passing", "newly-failing"
  std::string entry, who, reason;
};

struct SutReplay {
  std::string sut, version, previousVersion;
  int64_t replay = 0, previous = 0;  ///< previous 0: first replay of this SUT
  int entries = 0, judgements = 0, passing = 0, failing = 0, unsupported = 0;
  double seconds = 0;
  std::vector<RegressionLine> lines;
};

/// Runs every entry through every backend/mode, records the results, and compares each
/// SUT's with its last replay. Throws a one-line Error for an unknown backend or policy.
std::vector<SutReplay> replayCorpus(CorpusDb& db, const ReplayOptions& options);

/// The regression view of `current` against `previous` results (one SUT).
std::vector<RegressionLine> regressions(const std::vector<CorpusEntry>& entries,
                                        const std::vector<ReplayResult>& previous,
                                        const std::vector<ReplayResult>& current);

}  // namespace nnfuzz
