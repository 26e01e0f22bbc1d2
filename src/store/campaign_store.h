// campaign_store.h - one SQLite database per campaign: every test, every result, every bug,
// stats over time; crash-safe and resumable.
//
// Tables: campaign (config, start, versions), sessions (each open, with versions), tests
// (index, seed, generator, op count, op types, times), results (one row per test and
// backend/mode judgement: verdict, status, phase, times, bug hash), bugs (signature, hash, class,
// backend, mode, first/last seen, count, bundle path, example test), stats (periodic rows),
// coverage (periodic rows of coverage metrics), search_state (a learning test source's state,
// e.g. the MCTS tree). Reports read the same file through campaign_reader.h.
// The database runs in WAL mode with synchronous=NORMAL and every record call is its own
// committed transaction, so a process killed at any moment (kill -9) loses nothing it had
// recorded: a WAL commit is in the OS's hands when the call returns. (A power cut may lose the
// last commits; that is the price of NORMAL over FULL.) A bug's bundle is written before the
// row that points to it. All calls are thread-safe (one connection behind a mutex).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "triage/signature.h"

namespace nnfuzz {

/// One generated test.
struct TestRecord {
  int64_t index = 0;
  uint64_t seed = 0;
  std::string generator;
  std::vector<std::string> opTypes;  ///< every node's op type, in order (op count = size)
  double generateSeconds = 0, referenceSeconds = 0;
};

/// One judgement of a test: a backend/mode against the reference or against another mode.
struct ResultRecord {
  std::string backend, mode;
  std::string against = "reference";
  Verdict verdict = Verdict::Pass;
  RunStatus status = RunStatus::Ok;
  std::string phase;
  double prepareSeconds = 0, runSeconds = 0;
  std::string bugHash;  ///< for bugs: the signature's hash
  std::string reason;
};

/// A bug as the store knows it.
struct StoredBug {
  Signature signature;
  std::string hash;
  uint64_t count = 0;
  std::string bundle;
  int64_t exampleTest = -1;
  double firstSeen = 0, lastSeen = 0;  ///< seconds since the epoch
};

/// What recordBug did.
struct BugUpdate {
  bool isNew = false;
  uint64_t count = 0;
  std::string bundle;
};

/// Verdict counts of one backend/mode (against the reference), for progress lines and summaries.
struct SutCounts {
  int64_t pass = 0, unsupported = 0, bugs = 0, harnessErrors = 0;
};

/// A periodic stats row.
struct StatsRecord {
  double elapsedSeconds = 0;
  int64_t tests = 0;
  double testsPerSecond = 0;
  int64_t uniqueBugs = 0;
  std::map<std::string, SutCounts> perSut;  ///< keyed "backend/mode"
};

/// A periodic coverage row: the metrics of every test so far, keyed "<set>.<metric>"
/// ("luo.olc", "luo.otc", "isra.sec", ...), in each metric's own unit (Luo's and most of Isra's
/// are fractions in [0, 1]; Isra's ODC and SAC are counts). Whatever the campaign measures.
struct CoverageRecord {
  double elapsedSeconds = 0;
  int64_t tests = 0;
  std::map<std::string, double> metrics;
};

/// The campaign database (see the file comment).
class CampaignStore {
 public:
  /// Opens `path`, creating the campaign with `config` when the file is new, or resuming it
  /// (its stored config stays; resumed() is true). `versions` are this session's SUT versions.
  /// Throws a one-line Error when the file cannot be opened or is not a campaign database.
  CampaignStore(const std::filesystem::path& path, const nlohmann::json& config, const nlohmann::json& versions);
  ~CampaignStore();
  CampaignStore(const CampaignStore&) = delete;
  CampaignStore& operator=(const CampaignStore&) = delete;

  bool resumed() const { return resumed_; }
  /// The campaign's config as first recorded.
  nlohmann::json config() const;
  /// One past the highest recorded test index (0 for a new campaign).
  int64_t nextTestIndex() const;
  /// Indices below nextTestIndex() with no test row: tests in flight when the campaign died
  /// (with parallel pipelines tests finish out of order). A resumed campaign reruns them.
  std::vector<int64_t> missingTests() const;
  /// Every recorded bug, oldest first: what a resumed campaign already knows.
  std::vector<StoredBug> bugs() const;

  /// Records a test and its judgements in one transaction.
  void recordTest(const TestRecord& test, const std::vector<ResultRecord>& results);
  /// Records one finding of a bug. The first time, `writeBundle` is called (under the store's
  /// lock, before the bug's row exists) and must return the bundle's folder; afterwards the count
  /// and last-seen time grow. A bug whose row exists never calls it again.
  BugUpdate recordBug(const Signature& signature, const Judgement& judgement, int64_t testIndex,
                      const std::function<std::filesystem::path()>& writeBundle);
  /// True when a bug with this signature hash is recorded.
  bool knowsBug(const std::string& hash) const;
  /// Appends a stats row.
  void recordStats(const StatsRecord& stats);
  /// Appends a coverage row (written next to each stats row, so reports can plot coverage over time).
  void recordCoverage(const CoverageRecord& coverage);
  /// Replaces the learned state of the campaign's test source (e.g. the MCTS tree), saved
  /// after `tests` tests, so --resume continues the same search.
  void saveSearchState(const nlohmann::json& state, int64_t tests);
  /// The last saved search state, if any.
  std::optional<nlohmann::json> searchState() const;

  /// Verdict counts per "backend/mode" over all recorded results against the reference.
  std::map<std::string, SutCounts> sutCounts() const;
  int64_t testCount() const;

 private:
  void exec(const std::string& sql) const;
  int64_t queryInt(const std::string& sql) const;

  sqlite3* db_ = nullptr;
  bool resumed_ = false;
  mutable std::mutex mutex_;
};

}  // namespace nnfuzz
