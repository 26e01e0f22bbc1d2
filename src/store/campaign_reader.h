// campaign_reader.h - a read-only view of a campaign database, for reports.
//
// It opens campaign.db with SQLITE_OPEN_READONLY and never writes, so a report can be made
// while the campaign runs: in WAL mode a reader sees the last committed state and neither
// blocks the writer nor is blocked by it. Every query runs in its own read transaction; a
// report that wants one consistent picture calls snapshot(), which reads everything inside a
// single transaction. Throws a one-line Error when the file is missing or not a campaign.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/campaign_store.h"

namespace nnfuzz {

/// One session (an open of the campaign: the first run or a --resume).
struct SessionRow {
  double startedAt = 0;  ///< seconds since the epoch
  nlohmann::json versions;
  bool resumed = false;
};

/// When a test was recorded (its row committed).
struct TestTime {
  int64_t index = 0;
  double recordedAt = 0;  ///< seconds since the epoch
  int64_t opCount = 0;
};

/// How many judgements of one backend/mode (against one baseline) got one verdict.
struct OutcomeCount {
  std::string backend, mode, against, verdict;
  int64_t count = 0;
};

/// A bug with what the report shows beside its signature.
struct BugRow {
  StoredBug bug;
  std::string reason;               ///< the first finding's one-line reason
  std::vector<std::string> seenIn;  ///< "opt", "opt vs noopt", ...: every judgement that hit it
};

/// A stored coverage row with its wall-clock time.
struct CoverageRow {
  double at = 0;  ///< seconds since the epoch
  CoverageRecord record;
};

/// Everything a report reads, taken in one read transaction.
struct CampaignSnapshot {
  nlohmann::json config, versions;
  double startedAt = 0;
  std::vector<SessionRow> sessions;
  std::vector<TestTime> tests;  ///< recording order
  std::vector<OutcomeCount> outcomes;
  std::vector<BugRow> bugs;  ///< first seen first
  std::vector<CoverageRow> coverage;
};

/// The read-only view (see the file comment). Not thread-safe: one per thread.
class CampaignReader {
 public:
  explicit CampaignReader(const std::filesystem::path& path);
  ~CampaignReader();
  CampaignReader(const CampaignReader&) = delete;
  CampaignReader& operator=(const CampaignReader&) = delete;

  /// Everything, consistent as of one moment of the campaign.
  CampaignSnapshot snapshot() const;
  /// Every bug, first seen first.
  std::vector<BugRow> bugs() const;

 private:
  std::vector<BugRow> readBugs() const;
  void exec(const char* sql) const;

  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
};

}  // namespace nnfuzz
