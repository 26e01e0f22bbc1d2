// corpus_db.h - the regression corpus: one SQLite file of test cases in three tiers, and
// the results of every replay (DESIGN §1.4, seed 004).
//
//   tier 1  every single operator with randomised parameters (regenerated on demand)
//   tier 2  classic networks nnfuzz builds itself with random weights (classic_nets.h)
//   tier 3  the reduced model of every bug a campaign records, with its SUT, version, verdict
//
// An entry is stored as its case folder's files (model.onnx, test_data_set_0/*.pb,
// meta.json) plus nnfuzz's GraphIR text, under a format ("onnx"; a Caffe case folder would
// be another format of the same entry name). Replays record one verdict per (entry,
// backend, mode, against), so each replay can be compared with the last one for that SUT.
#pragma once

#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nnfuzz {

struct CorpusEntry {
  int64_t id = 0;
  int tier = 1;
  std::string name;            ///< unique within (tier, format): "op/Conv", "net/LeNet-5", a bundle name
  std::string format = "onnx";
  std::string ir;              ///< GraphIR text (empty when the model does not import)
  std::string sut, version, verdict;  ///< tier 3: where the bug was found and how it was judged
  std::string origin;          ///< where it came from: a seed, a campaign folder
  double addedAt = 0;
};

/// One judgement of one entry in one replay.
struct ReplayResult {
  int64_t entry = 0;
  std::string backend, mode, against;
  std::string verdict;  ///< verdictName
  bool bug = false;
  std::string reason;
};

struct ReplayRow {
  int64_t id = 0;
  std::string sut, version;
  double startedAt = 0, seconds = 0;
};

class CorpusDb {
 public:
  /// Opens or creates the corpus file. One-line Error if it cannot.
  explicit CorpusDb(const std::filesystem::path& path);
  ~CorpusDb();
  CorpusDb(const CorpusDb&) = delete;
  CorpusDb& operator=(const CorpusDb&) = delete;

  /// Adds (or replaces, same tier/name/format) an entry with the files of case folder `dir`.
  int64_t add(CorpusEntry entry, const std::filesystem::path& dir);
  /// Removes every entry of a tier (tier 1 is regenerated on demand).
  void clearTier(int tier);
  /// Entries in replay order: tier 3, then 1, then 2; by name within a tier.
  std::vector<CorpusEntry> entries(std::optional<int> tier = std::nullopt) const;
  bool has(int tier, const std::string& name, const std::string& format) const;
  /// Writes an entry's files into `dir` (created) as a case folder.
  void materialize(int64_t entry, const std::filesystem::path& dir) const;

  int64_t startReplay(const std::string& sut, const std::string& version);
  void finishReplay(int64_t replay, double seconds);
  void record(int64_t replay, const ReplayResult& result);
  /// The last finished replay of `sut` before `replay` (nullopt: none).
  std::optional<ReplayRow> previousReplay(const std::string& sut, int64_t replay) const;
  std::vector<ReplayResult> results(int64_t replay) const;

 private:
  void exec(const char* sql) const;
  sqlite3* db_ = nullptr;
};

}  // namespace nnfuzz
