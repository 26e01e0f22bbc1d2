// campaign_reader.cpp - the read-only campaign view (see campaign_reader.h).
#include "store/campaign_reader.h"

#include <map>

#include "store/sqlite_stmt.h"
#include "support/error.h"

namespace nnfuzz {

namespace fs = std::filesystem;

namespace {

nlohmann::json parseOr(const std::string& text, nlohmann::json fallback) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  return j.is_discarded() ? fallback : j;
}

bool hasTable(sqlite3* db, const char* name) {
  Stmt s(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  s.bind(1, std::string(name));
  return s.step();
}

}  // namespace

CampaignReader::CampaignReader(const fs::path& path) : path_(path) {
  if (!fs::exists(path)) throw Error("no campaign database at " + path.string());
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error("cannot open campaign database " + path.string() + ": " + why);
  }
  // The writer checkpoints now and then; a reader waits out those moments instead of failing.
  sqlite3_busy_timeout(db_, 10000);
  try {
    if (!hasTable(db_, "campaign") || !hasTable(db_, "bugs"))
      throw Error("it has no campaign table");
  } catch (const Error& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(path.string() + " is not a campaign database: " + e.what());
  }
}

CampaignReader::~CampaignReader() {
  if (db_) sqlite3_close(db_);
}

void CampaignReader::exec(const char* sql) const {
  if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK)
    throw Error("campaign database " + path_.string() + ": " + sqlite3_errmsg(db_));
}

std::vector<BugRow> CampaignReader::readBugs() const {
  std::vector<BugRow> out;
  const std::string sql = std::string("SELECT ") + kStoredBugColumns + ", reason FROM bugs ORDER BY first_seen, hash";
  Stmt s(db_, sql.c_str());
  while (s.step()) out.push_back({readStoredBug(s), s.text(7), {}});
  // Where each bug was seen: the judgements that name it (a folded bug spans modes). One
  // pass over the results, not one per bug: the results table has no index on bug.
  std::map<std::string, std::vector<std::string>> seen;
  Stmt q(db_,
         "SELECT DISTINCT bug, mode, against FROM results WHERE bug IS NOT NULL "
         "ORDER BY against != 'reference', mode, against");
  while (q.step()) seen[q.text(0)].push_back(q.text(2) == "reference" ? q.text(1) : q.text(1) + " vs " + q.text(2));
  for (BugRow& r : out) {
    const auto it = seen.find(r.bug.hash);
    r.seenIn = it != seen.end() ? it->second : r.bug.signature.modes;
  }
  return out;
}

std::vector<BugRow> CampaignReader::bugs() const {
  exec("BEGIN");
  try {
    auto out = readBugs();
    exec("COMMIT");
    return out;
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

CampaignSnapshot CampaignReader::snapshot() const {
  CampaignSnapshot snap;
  exec("BEGIN");  // one read transaction: every table as of the same commit
  try {
    {
      Stmt s(db_, "SELECT config, started_at, versions FROM campaign WHERE id = 1");
      if (s.step()) {
        snap.config = parseOr(s.text(0), nlohmann::json::object());
        snap.startedAt = s.real(1);
        snap.versions = parseOr(s.text(2), nlohmann::json::object());
      }
    }
    {
      Stmt s(db_, "SELECT started_at, versions, resumed FROM sessions ORDER BY started_at");
      while (s.step()) snap.sessions.push_back({s.real(0), parseOr(s.text(1), nlohmann::json::object()), s.integer(2) != 0});
    }
    {
      Stmt s(db_, "SELECT idx, recorded_at, op_count FROM tests ORDER BY recorded_at, idx");
      while (s.step()) snap.tests.push_back({s.integer(0), s.real(1), s.integer(2)});
    }
    {
      Stmt s(db_,
             "SELECT backend, mode, against, verdict, COUNT(*) FROM results "
             "GROUP BY backend, mode, against, verdict ORDER BY backend, against != 'reference', mode, against");
      while (s.step()) snap.outcomes.push_back({s.text(0), s.text(1), s.text(2), s.text(3), s.integer(4)});
    }
    snap.bugs = readBugs();
    if (hasTable(db_, "coverage")) {  // campaigns older than the coverage table have none
      Stmt s(db_, "SELECT at, elapsed_seconds, tests, metrics FROM coverage ORDER BY at");
      while (s.step()) {
        CoverageRow row;
        row.at = s.real(0);
        row.record.elapsedSeconds = s.real(1);
        row.record.tests = s.integer(2);
        const auto metrics = parseOr(s.text(3), nlohmann::json::object());
        for (const auto& [key, value] : metrics.items())
          if (value.is_number()) row.record.metrics[key] = value.get<double>();
        snap.coverage.push_back(std::move(row));
      }
    }
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return snap;
}

}  // namespace nnfuzz
