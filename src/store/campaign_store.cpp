// campaign_store.cpp - the SQLite campaign database (see campaign_store.h).
#include "store/campaign_store.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "store/sqlite_stmt.h"
#include "support/error.h"

namespace nnfuzz {

namespace fs = std::filesystem;

namespace {

const char* const kSchema = R"sql(
CREATE TABLE IF NOT EXISTS campaign (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  config TEXT NOT NULL,
  started_at REAL NOT NULL,
  versions TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
  started_at REAL NOT NULL,
  versions TEXT NOT NULL,
  resumed INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tests (
  idx INTEGER PRIMARY KEY,
  seed INTEGER NOT NULL,
  generator TEXT NOT NULL,
  op_count INTEGER NOT NULL,
  op_types TEXT NOT NULL,
  generate_seconds REAL NOT NULL,
  reference_seconds REAL NOT NULL,
  recorded_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS results (
  test INTEGER NOT NULL,
  backend TEXT NOT NULL,
  mode TEXT NOT NULL,
  against TEXT NOT NULL,
  verdict TEXT NOT NULL,
  status TEXT NOT NULL,
  phase TEXT NOT NULL,
  prepare_seconds REAL NOT NULL,
  run_seconds REAL NOT NULL,
  bug TEXT,
  reason TEXT NOT NULL,
  PRIMARY KEY (test, backend, mode, against));
CREATE TABLE IF NOT EXISTS bugs (
  hash TEXT PRIMARY KEY,
  signature TEXT NOT NULL,
  class TEXT NOT NULL,
  backend TEXT NOT NULL,
  mode TEXT NOT NULL,
  against TEXT NOT NULL,
  first_seen REAL NOT NULL,
  last_seen REAL NOT NULL,
  count INTEGER NOT NULL,
  bundle TEXT NOT NULL,
  example_test INTEGER NOT NULL,
  reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS stats (
  at REAL NOT NULL,
  elapsed_seconds REAL NOT NULL,
  tests INTEGER NOT NULL,
  tests_per_second REAL NOT NULL,
  unique_bugs INTEGER NOT NULL,
  per_sut TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS coverage (
  at REAL NOT NULL,
  elapsed_seconds REAL NOT NULL,
  tests INTEGER NOT NULL,
  metrics TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS search_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  at REAL NOT NULL,
  tests INTEGER NOT NULL,
  state TEXT NOT NULL);
)sql";

double now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// Why the disk holding `path` may refuse writes ("" when nothing is visibly wrong): SQLite
/// reports a full disk during WAL writes as a plain "disk I/O error".
std::string diskNote(const fs::path& path) {
  std::error_code ec;
  const auto space = fs::space(path.has_parent_path() ? path.parent_path() : fs::path("."), ec);
  if (!ec && space.available < (1u << 20)) return " (the disk holding it is full: free some space and try again)";
  if (::access(path.c_str(), W_OK) != 0 && errno == EACCES) return " (the file is not writable)";
  if (::access(path.c_str(), W_OK) != 0 && errno == EROFS) return " (the disk holding it is read-only)";
  return "";
}

std::string dumpJson(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

}  // namespace

CampaignStore::CampaignStore(const fs::path& path, const nlohmann::json& config, const nlohmann::json& versions) {
  db_ = openDatabase(path, "campaign database");
  try {
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
    exec("PRAGMA foreign_keys=ON");
    exec("BEGIN IMMEDIATE");
    exec(kSchema);
    resumed_ = queryInt("SELECT COUNT(*) FROM campaign") > 0;
    if (!resumed_) {
      Stmt(db_, "INSERT INTO campaign (id, config, started_at, versions) VALUES (1, ?, ?, ?)")
          .bind(1, dumpJson(config))
          .bind(2, now())
          .bind(3, dumpJson(versions))
          .step();
    }
    Stmt(db_, "INSERT INTO sessions (started_at, versions, resumed) VALUES (?, ?, ?)")
        .bind(1, now())
        .bind(2, dumpJson(versions))
        .bind(3, static_cast<int64_t>(resumed_))
        .step();
    exec("COMMIT");
  } catch (const Error& e) {
    // A full, read-only, locked or failing disk is the machine's problem, not the file's.
    const int code = sqlite3_errcode(db_);
    sqlite3_close(db_);
    db_ = nullptr;
    if (code == SQLITE_FULL || code == SQLITE_READONLY || code == SQLITE_IOERR || code == SQLITE_BUSY ||
        code == SQLITE_LOCKED || code == SQLITE_CANTOPEN)
      throw Error("cannot use campaign database " + path.string() + ": " + sqlite3_errstr(code) + diskNote(path));
    throw Error(path.string() + " is not a usable campaign database: " + e.what());
  }
}

CampaignStore::~CampaignStore() {
  if (db_) sqlite3_close(db_);
}

void CampaignStore::exec(const std::string& sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string why = err ? err : "unknown error";
    sqlite3_free(err);
    throw Error("campaign database: " + why);
  }
}

int64_t CampaignStore::queryInt(const std::string& sql) const {
  Stmt s(db_, sql.c_str());
  return s.step() ? s.integer(0) : 0;
}

nlohmann::json CampaignStore::config() const {
  std::lock_guard lock(mutex_);
  Stmt s(db_, "SELECT config FROM campaign WHERE id = 1");
  return s.step() ? nlohmann::json::parse(s.text(0)) : nlohmann::json();
}

int64_t CampaignStore::nextTestIndex() const {
  std::lock_guard lock(mutex_);
  return queryInt("SELECT COALESCE(MAX(idx) + 1, 0) FROM tests");
}

int64_t CampaignStore::testCount() const {
  std::lock_guard lock(mutex_);
  return queryInt("SELECT COUNT(*) FROM tests");
}

std::vector<int64_t> CampaignStore::missingTests() const {
  std::lock_guard lock(mutex_);
  std::vector<int64_t> missing;
  Stmt s(db_, "SELECT idx FROM tests ORDER BY idx");
  int64_t expect = 0;
  while (s.step()) {
    for (const int64_t idx = s.integer(0); expect < idx; ++expect) missing.push_back(expect);
    ++expect;
  }
  return missing;
}

std::vector<StoredBug> CampaignStore::bugs() const {
  std::lock_guard lock(mutex_);
  std::vector<StoredBug> out;
  const std::string sql = std::string("SELECT ") + kStoredBugColumns + " FROM bugs ORDER BY first_seen, hash";
  Stmt s(db_, sql.c_str());
  while (s.step()) out.push_back(readStoredBug(s));
  return out;
}

void CampaignStore::recordTest(const TestRecord& test, const std::vector<ResultRecord>& results) {
  std::lock_guard lock(mutex_);
  exec("BEGIN IMMEDIATE");
  try {
    Stmt(db_,
         "INSERT OR REPLACE INTO tests (idx, seed, generator, op_count, op_types, generate_seconds, "
         "reference_seconds, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(1, test.index)
        .bind(2, static_cast<int64_t>(test.seed))
        .bind(3, test.generator)
        .bind(4, static_cast<int64_t>(test.opTypes.size()))
        .bind(5, dumpJson(test.opTypes))
        .bind(6, test.generateSeconds)
        .bind(7, test.referenceSeconds)
        .bind(8, now())
        .step();
    for (const auto& r : results) {
      Stmt s(db_,
             "INSERT OR REPLACE INTO results (test, backend, mode, against, verdict, status, phase, "
             "prepare_seconds, run_seconds, bug, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
      s.bind(1, test.index).bind(2, r.backend).bind(3, r.mode).bind(4, r.against);
      s.bind(5, std::string(verdictName(r.verdict))).bind(6, std::string(runStatusName(r.status))).bind(7, r.phase);
      s.bind(8, r.prepareSeconds).bind(9, r.runSeconds);
      if (r.bugHash.empty())
        s.bindNull(10);
      else
        s.bind(10, r.bugHash);
      s.bind(11, r.reason).step();
    }
    exec("COMMIT");
  } catch (...) {
    // SQLite ends the transaction itself on some errors (a full disk): roll back only an open
    // one, and never let the rollback hide the error that got us here.
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

BugUpdate CampaignStore::recordBug(const Signature& signature, const Judgement& judgement, int64_t testIndex,
                                   const std::function<fs::path()>& writeBundle) {
  std::lock_guard lock(mutex_);
  const std::string hash = signature.hash();
  BugUpdate u;
  {
    Stmt s(db_, "UPDATE bugs SET count = count + 1, last_seen = ? WHERE hash = ? RETURNING count, bundle");
    s.bind(1, now()).bind(2, hash);
    if (s.step()) {
      u.count = static_cast<uint64_t>(s.integer(0));
      u.bundle = s.text(1);
      while (s.step()) {
      }
      return u;
    }
  }
  // New bug: the bundle first, then the row that points to it (a kill in between leaves a
  // bundle without a row, which the next finding of the bug adopts; never a row without one).
  u.isNew = true;
  u.count = 1;
  u.bundle = writeBundle ? writeBundle().string() : std::string();
  const double t = now();
  Stmt(db_,
       "INSERT INTO bugs (hash, signature, class, backend, mode, against, first_seen, last_seen, count, bundle, "
       "example_test, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)")
      .bind(1, hash)
      .bind(2, dumpJson(signature.toJson()))
      .bind(3, signature.verdict)
      .bind(4, signature.backend)
      .bind(5, signature.mode)
      .bind(6, signature.against)
      .bind(7, t)
      .bind(8, t)
      .bind(9, u.bundle)
      .bind(10, testIndex)
      .bind(11, judgement.reason)
      .step();
  return u;
}

bool CampaignStore::knowsBug(const std::string& hash) const {
  std::lock_guard lock(mutex_);
  Stmt s(db_, "SELECT 1 FROM bugs WHERE hash = ?");
  s.bind(1, hash);
  return s.step();
}

void CampaignStore::recordStats(const StatsRecord& stats) {
  std::lock_guard lock(mutex_);
  nlohmann::json per = nlohmann::json::object();
  for (const auto& [sut, c] : stats.perSut)
    per[sut] = {{"pass", c.pass}, {"unsupported", c.unsupported}, {"bugs", c.bugs}, {"harness_errors", c.harnessErrors}};
  Stmt(db_,
       "INSERT INTO stats (at, elapsed_seconds, tests, tests_per_second, unique_bugs, per_sut) "
       "VALUES (?, ?, ?, ?, ?, ?)")
      .bind(1, now())
      .bind(2, stats.elapsedSeconds)
      .bind(3, stats.tests)
      .bind(4, stats.testsPerSecond)
      .bind(5, stats.uniqueBugs)
      .bind(6, dumpJson(per))
      .step();
}

void CampaignStore::recordCoverage(const CoverageRecord& coverage) {
  std::lock_guard lock(mutex_);
  Stmt(db_, "INSERT INTO coverage (at, elapsed_seconds, tests, metrics) VALUES (?, ?, ?, ?)")
      .bind(1, now())
      .bind(2, coverage.elapsedSeconds)
      .bind(3, coverage.tests)
      .bind(4, dumpJson(coverage.metrics))
      .step();
}

void CampaignStore::saveSearchState(const nlohmann::json& state, int64_t tests) {
  std::lock_guard lock(mutex_);
  Stmt(db_, "INSERT OR REPLACE INTO search_state (id, at, tests, state) VALUES (1, ?, ?, ?)")
      .bind(1, now())
      .bind(2, tests)
      .bind(3, dumpJson(state))
      .step();
}

std::optional<nlohmann::json> CampaignStore::searchState() const {
  std::lock_guard lock(mutex_);
  Stmt s(db_, "SELECT state FROM search_state WHERE id = 1");
  if (!s.step()) return std::nullopt;
  try {
    return nlohmann::json::parse(s.text(0));
  } catch (const nlohmann::json::parse_error&) {
    throw Error("campaign database: the saved search state is not valid JSON");
  }
}

std::map<std::string, SutCounts> CampaignStore::sutCounts() const {
  std::lock_guard lock(mutex_);
  std::map<std::string, SutCounts> out;
  Stmt s(db_,
         "SELECT backend || '/' || mode, verdict, COUNT(*) FROM results WHERE against = 'reference' "
         "GROUP BY backend, mode, verdict");
  while (s.step()) {
    SutCounts& c = out[s.text(0)];
    const std::string v = s.text(1);
    const int64_t n = s.integer(2);
    if (v == "pass")
      c.pass += n;
    else if (v == "unsupported")
      c.unsupported += n;
    else if (v == "harness-error")
      c.harnessErrors += n;
    else
      c.bugs += n;
  }
  return out;
}

}  // namespace nnfuzz
