// campaign_merge.cpp - shard databases and bundles into one campaign (campaign_merge.h).
#include "store/campaign_merge.h"

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "store/campaign_store.h"
#include "store/sqlite_stmt.h"
#include "support/error.h"

namespace nnfuzz {

namespace fs = std::filesystem;

namespace {

struct Shard {
  fs::path dir;
  nlohmann::json config;  ///< without "shard"
  std::string label;      ///< "I/N", or "" for an unsharded campaign
  nlohmann::json versions;
  double startedAt = 0;
};

class Db {
 public:
  Db(const fs::path& path, bool readOnly) : db_(openDatabase(path, "campaign database", readOnly)) {}
  ~Db() { sqlite3_close(db_); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  sqlite3* get() const { return db_; }
  void exec(const std::string& sql) const {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      const std::string why = err ? err : "error";
      sqlite3_free(err);
      throw Error("merging campaigns: " + why);
    }
  }

 private:
  sqlite3* db_ = nullptr;
};

Shard readShard(const fs::path& dir) {
  const fs::path path = dir / "campaign.db";
  if (!fs::exists(path)) throw Error("not a campaign folder (no campaign.db): " + dir.string());
  Db db(path, /*readOnly=*/true);
  Shard s{dir, {}, "", {}, 0};
  try {
    Stmt q(db.get(), "SELECT config, versions, started_at FROM campaign WHERE id = 1");
    if (!q.step()) throw Error("no campaign row");
    s.config = nlohmann::json::parse(q.text(0));
    s.versions = nlohmann::json::parse(q.text(1));
    s.startedAt = q.real(2);
  } catch (const std::exception& e) {
    throw Error("not a campaign database: " + path.string() + " (" + e.what() + ")");
  }
  if (s.config.contains("shard")) {
    s.label = s.config["shard"].get<std::string>();
    s.config.erase("shard");
  }
  return s;
}

// The bundle folder of `bundle` (as recorded) inside the shard: recorded paths name the
// machine the shard ran on, so the folder name is looked up under the shard's bugs/.
fs::path bundleIn(const Shard& shard, const std::string& bundle) {
  return shard.dir / "bugs" / fs::path(bundle).filename();
}

void copyTree(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
  if (ec) throw Error("cannot copy " + from.string() + " to " + to.string() + ": " + ec.message());
}

}  // namespace

namespace {

MergeSummary fold(const fs::path& out, const std::vector<fs::path>& dirs);

}  // namespace

MergeSummary mergeCampaigns(const fs::path& out, const std::vector<fs::path>& dirs) {
  try {
    return fold(out, dirs);
  } catch (const Error&) {
    // A merge that fails leaves no half-merged campaign behind.
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(out / (std::string("campaign.db") + suffix), ec);
    throw;
  }
}

namespace {

MergeSummary fold(const fs::path& out, const std::vector<fs::path>& dirs) {
  if (dirs.empty()) throw Error("merge: give the shard folders to fold");
  if (fs::exists(out / "campaign.db")) throw Error("merge: " + (out / "campaign.db").string() + " exists already");
  std::vector<Shard> shards;
  for (const fs::path& dir : dirs) shards.push_back(readShard(dir));
  std::set<std::string> labels;
  int count = 0;
  for (const Shard& s : shards) {
    if (s.config != shards[0].config)
      throw Error("merge: " + s.dir.string() + " ran another config than " + shards[0].dir.string());
    if (!s.label.empty() && !labels.insert(s.label).second) throw Error("merge: shard " + s.label + " is given twice");
    if (!s.label.empty()) count = std::stoi(s.label.substr(s.label.find('/') + 1));
  }
  MergeSummary summary;
  summary.shards = static_cast<int>(shards.size());
  for (int i = 0; i < count; ++i)
    if (!labels.count(std::to_string(i) + "/" + std::to_string(count)))
      summary.notes.push_back("shard " + std::to_string(i) + "/" + std::to_string(count) + " was not given");

  nlohmann::json versions = nlohmann::json::object();
  for (const Shard& s : shards)
    if (s.versions.is_object()) versions.update(s.versions);
  fs::create_directories(out / "bugs");
  { CampaignStore create(out / "campaign.db", shards[0].config, versions); }  // the schema

  Db db(out / "campaign.db", /*readOnly=*/false);
  double started = shards[0].startedAt;
  for (const Shard& s : shards) started = std::min(started, s.startedAt);
  {
    Stmt q(db.get(), "UPDATE campaign SET started_at = ? WHERE id = 1");
    q.bind(1, started).step();
  }
  // Bug bundles to copy: hash -> (shard, recorded bundle) of the earliest hit.
  std::map<std::string, std::pair<size_t, int64_t>> earliest;
  for (size_t k = 0; k < shards.size(); ++k) {
    const Shard& s = shards[k];
    {
      Stmt attach(db.get(), "ATTACH DATABASE ? AS shard");
      attach.bind(1, (s.dir / "campaign.db").string()).step();
    }
    db.exec("BEGIN IMMEDIATE");  // one shard a transaction: SQLite detaches only outside one
    {
      Stmt clash(db.get(), "SELECT idx FROM shard.tests WHERE idx IN (SELECT idx FROM main.tests) LIMIT 1");
      if (clash.step())
        throw Error("merge: test " + std::to_string(clash.integer(0)) + " is recorded by " + s.dir.string() +
                    " and by another shard");
    }
    db.exec("INSERT INTO main.tests SELECT * FROM shard.tests");
    db.exec("INSERT INTO main.results SELECT * FROM shard.results");
    db.exec("INSERT INTO main.sessions SELECT * FROM shard.sessions");
    {
      Stmt bugs(db.get(), "SELECT hash, example_test FROM shard.bugs");
      while (bugs.step()) {
        auto [it, fresh] = earliest.try_emplace(bugs.text(0), k, bugs.integer(1));
        if (!fresh && bugs.integer(1) < it->second.second) it->second = {k, bugs.integer(1)};
      }
    }
    // Counts add up; the earliest hit's example, bundle and signature stay.
    db.exec(
        "INSERT INTO main.bugs SELECT * FROM shard.bugs WHERE true ON CONFLICT(hash) DO UPDATE SET "
        "count = count + excluded.count, first_seen = min(first_seen, excluded.first_seen), "
        "last_seen = max(last_seen, excluded.last_seen), "
        "signature = CASE WHEN excluded.example_test < example_test THEN excluded.signature ELSE signature END, "
        "bundle = CASE WHEN excluded.example_test < example_test THEN excluded.bundle ELSE bundle END, "
        "example_test = min(example_test, excluded.example_test)");
    db.exec("COMMIT");
    db.exec("DETACH DATABASE shard");
  }
  for (const auto& [hash, where] : earliest) {
    Stmt row(db.get(), "SELECT bundle FROM bugs WHERE hash = ?");
    row.bind(1, hash);
    if (!row.step()) continue;
    const std::string recorded = row.text(0);
    if (recorded.empty()) continue;
    const fs::path from = bundleIn(shards[where.first], recorded), to = out / "bugs" / from.filename();
    if (fs::exists(from)) copyTree(from, to);
    else summary.notes.push_back("bug " + hash + ": bundle " + from.string() + " is missing");
    Stmt update(db.get(), "UPDATE bugs SET bundle = ? WHERE hash = ?");
    update.bind(1, fs::absolute(to).string()).bind(2, hash).step();
  }
  {
    Stmt n(db.get(), "SELECT (SELECT COUNT(*) FROM tests), (SELECT COUNT(*) FROM results), (SELECT COUNT(*) FROM bugs)");
    n.step();
    summary.tests = n.integer(0);
    summary.results = n.integer(1);
    summary.bugs = n.integer(2);
  }
  // Kept models: the union (their names carry the test index, so shards never collide).
  for (const Shard& s : shards)
    if (fs::is_directory(s.dir / "corpus"))
      for (const auto& entry : fs::directory_iterator(s.dir / "corpus")) copyTree(entry.path(), out / "corpus" / entry.path().filename());
  return summary;
}

}  // namespace

}  // namespace nnfuzz
