// sqlite_stmt.h - a prepared SQLite statement that finalises itself, and the reading of a bug
// row: what the campaign store (writer) and the campaign reader (read-only view) share.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "store/campaign_store.h"
#include "support/error.h"

namespace nnfuzz {

/// Opens (creating it and its folder) the read-write database at `path` with a 10 s busy
/// timeout, for one connection shared by threads; `readOnly` opens an existing file as is.
/// Throws "cannot open WHAT PATH: why".
inline sqlite3* openDatabase(const std::filesystem::path& path, const std::string& what, bool readOnly = false) {
  std::error_code ec;
  if (!readOnly && path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  sqlite3* db = nullptr;
  const int flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    const std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw Error("cannot open " + what + " " + path.string() + ": " + why);
  }
  sqlite3_busy_timeout(db, 10000);  // readers (reports, replays) may hold the file briefly
  return db;
}

/// A prepared statement; binds by position from 1, reads columns from 0.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
      throw Error(std::string("campaign database: ") + sqlite3_errmsg(db));
  }
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  Stmt& bind(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Stmt& bindNull(int i) {
    sqlite3_bind_null(stmt_, i);
    return *this;
  }
  /// Steps once; true while a row is available.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw Error(std::string("campaign database: ") + sqlite3_errmsg(db_));
  }
  sqlite3_stmt* raw() { return stmt_; }  ///< for binds Stmt lacks (blobs)
  int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

/// The bugs table's columns that make a StoredBug, in the order readStoredBug expects them.
inline constexpr const char* kStoredBugColumns = "hash, signature, count, bundle, example_test, first_seen, last_seen";

/// The StoredBug in columns 0-6 of `s` (selected as kStoredBugColumns).
inline StoredBug readStoredBug(const Stmt& s) {
  StoredBug b;
  b.hash = s.text(0);
  b.signature = Signature::fromJson(nlohmann::json::parse(s.text(1)));
  b.count = static_cast<uint64_t>(s.integer(2));
  b.bundle = s.text(3);
  b.exampleTest = s.integer(4);
  b.firstSeen = s.real(5);
  b.lastSeen = s.real(6);
  return b;
}

}  // namespace nnfuzz
