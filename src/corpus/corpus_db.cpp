#include "corpus/corpus_db.h"

#include <chrono>
#include <fstream>
#include <sstream>

#include "store/sqlite_stmt.h"
#include "support/error.h"

namespace nnfuzz {

namespace fs = std::filesystem;

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS entries (
  id INTEGER PRIMARY KEY, tier INTEGER NOT NULL, name TEXT NOT NULL, format TEXT NOT NULL,
  ir TEXT NOT NULL, sut TEXT NOT NULL, version TEXT NOT NULL, verdict TEXT NOT NULL,
  origin TEXT NOT NULL, added_at REAL NOT NULL, UNIQUE (tier, name, format));
CREATE TABLE IF NOT EXISTS entry_files (
  entry INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE, path TEXT NOT NULL,
  data BLOB NOT NULL, PRIMARY KEY (entry, path));
CREATE TABLE IF NOT EXISTS replays (
  id INTEGER PRIMARY KEY, sut TEXT NOT NULL, version TEXT NOT NULL, started_at REAL NOT NULL,
  seconds REAL);
CREATE TABLE IF NOT EXISTS replay_results (
  replay INTEGER NOT NULL REFERENCES replays(id) ON DELETE CASCADE,
  entry INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
  backend TEXT NOT NULL, mode TEXT NOT NULL, against TEXT NOT NULL, verdict TEXT NOT NULL,
  bug INTEGER NOT NULL, reason TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS replay_results_by_replay ON replay_results (replay);
)sql";

double now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

CorpusDb::CorpusDb(const fs::path& path) {
  db_ = openDatabase(path, "corpus");
  try {
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA foreign_keys=ON");
    exec(kSchema);
  } catch (const Error& e) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error("corpus " + path.string() + ": " + e.what());
  }
}

CorpusDb::~CorpusDb() { sqlite3_close(db_); }

void CorpusDb::exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string why = err ? err : "unknown error";
    sqlite3_free(err);
    throw Error("corpus database: " + why);
  }
}

int64_t CorpusDb::add(CorpusEntry e, const fs::path& dir) {
  exec("BEGIN IMMEDIATE");
  try {
    Stmt(db_, "DELETE FROM entries WHERE tier = ? AND name = ? AND format = ?")
        .bind(1, static_cast<int64_t>(e.tier)).bind(2, e.name).bind(3, e.format).step();
    Stmt(db_, "INSERT INTO entries (tier, name, format, ir, sut, version, verdict, origin, added_at) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(1, static_cast<int64_t>(e.tier)).bind(2, e.name).bind(3, e.format).bind(4, e.ir).bind(5, e.sut)
        .bind(6, e.version).bind(7, e.verdict).bind(8, e.origin).bind(9, now())
        .step();
    const int64_t id = sqlite3_last_insert_rowid(db_);
    for (const auto& f : fs::recursive_directory_iterator(dir)) {
      if (!f.is_regular_file()) continue;
      const std::string data = slurp(f.path());
      Stmt s(db_, "INSERT INTO entry_files (entry, path, data) VALUES (?, ?, ?)");
      s.bind(1, id).bind(2, fs::relative(f.path(), dir).generic_string());
      sqlite3_bind_blob(s.raw(), 3, data.data(), static_cast<int>(data.size()), SQLITE_TRANSIENT);
      s.step();
    }
    exec("COMMIT");
    return id;
  } catch (...) {
    exec("ROLLBACK");
    throw;
  }
}

void CorpusDb::clearTier(int tier) {
  Stmt(db_, "DELETE FROM entries WHERE tier = ?").bind(1, static_cast<int64_t>(tier)).step();
}

std::vector<CorpusEntry> CorpusDb::entries(std::optional<int> tier) const {
  Stmt s(db_, "SELECT id, tier, name, format, ir, sut, version, verdict, origin, added_at FROM entries "
              "WHERE ?1 < 0 OR tier = ?1 ORDER BY CASE tier WHEN 3 THEN 0 ELSE tier END, name, format");
  s.bind(1, static_cast<int64_t>(tier.value_or(-1)));
  std::vector<CorpusEntry> out;
  while (s.step()) {
    CorpusEntry e;
    e.id = s.integer(0);
    e.tier = static_cast<int>(s.integer(1));
    e.name = s.text(2);
    e.format = s.text(3);
    e.ir = s.text(4);
    e.sut = s.text(5);
    e.version = s.text(6);
    e.verdict = s.text(7);
    e.origin = s.text(8);
    e.addedAt = s.real(9);
    out.push_back(std::move(e));
  }
  return out;
}

bool CorpusDb::has(int tier, const std::string& name, const std::string& format) const {
  Stmt s(db_, "SELECT 1 FROM entries WHERE tier = ? AND name = ? AND format = ?");
  s.bind(1, static_cast<int64_t>(tier)).bind(2, name).bind(3, format);
  return s.step();
}

void CorpusDb::materialize(int64_t entry, const fs::path& dir) const {
  Stmt s(db_, "SELECT path, data FROM entry_files WHERE entry = ?");
  s.bind(1, entry);
  while (s.step()) {
    const fs::path p = dir / s.text(0);
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    const std::string data = s.text(1);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) throw Error("cannot write " + p.string());
  }
}

int64_t CorpusDb::startReplay(const std::string& sut, const std::string& version) {
  Stmt(db_, "INSERT INTO replays (sut, version, started_at) VALUES (?, ?, ?)").bind(1, sut).bind(2, version).bind(3, now()).step();
  return sqlite3_last_insert_rowid(db_);
}

void CorpusDb::finishReplay(int64_t replay, double seconds) {
  Stmt(db_, "UPDATE replays SET seconds = ? WHERE id = ?").bind(1, seconds).bind(2, replay).step();
}

void CorpusDb::record(int64_t replay, const ReplayResult& r) {
  Stmt(db_, "INSERT INTO replay_results (replay, entry, backend, mode, against, verdict, bug, reason) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .bind(1, replay).bind(2, r.entry).bind(3, r.backend).bind(4, r.mode).bind(5, r.against).bind(6, r.verdict)
      .bind(7, static_cast<int64_t>(r.bug)).bind(8, r.reason)
      .step();
}

std::optional<ReplayRow> CorpusDb::previousReplay(const std::string& sut, int64_t replay) const {
  Stmt s(db_, "SELECT id, sut, version, started_at, seconds FROM replays "
              "WHERE sut = ? AND id < ? AND seconds IS NOT NULL ORDER BY id DESC LIMIT 1");
  s.bind(1, sut).bind(2, replay);
  if (!s.step()) return std::nullopt;
  return ReplayRow{s.integer(0), s.text(1), s.text(2), s.real(3), s.real(4)};
}

std::vector<ReplayResult> CorpusDb::results(int64_t replay) const {
  Stmt s(db_, "SELECT entry, backend, mode, against, verdict, bug, reason FROM replay_results WHERE replay = ?");
  s.bind(1, replay);
  std::vector<ReplayResult> out;
  while (s.step())
    out.push_back({s.integer(0), s.text(1), s.text(2), s.text(3), s.text(4), s.integer(5) != 0, s.text(6)});
  return out;
}

}  // namespace nnfuzz
