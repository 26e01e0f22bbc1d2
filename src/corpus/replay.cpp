#include "corpus/replay.h"

#include <chrono>
#include <map>
#include <set>
#include <unistd.h>

#include "campaign/sut_set.h"
#include "onnx/case_folder.h"
#include "support/error.h"

namespace nnfuzz {

namespace fs = std::filesystem;

namespace {

std::string keyOf(const ReplayResult& r) {
  return std::to_string(r.entry) + "|" + r.mode + "|" + r.against;
}

std::string whoOf(const ReplayResult& r) {
  return r.backend + "/" + r.mode + (r.against == "reference" ? "" : " vs " + r.against);
}

}  // namespace

std::vector<RegressionLine> regressions(const std::vector<CorpusEntry>& entries,
                                        const std::vector<ReplayResult>& previous,
                                        const std::vector<ReplayResult>& current) {
  std::map<int64_t, std::string> names;
  for (const CorpusEntry& e : entries) names[e.id] = "tier " + std::to_string(e.tier) + " " + e.name;
  std::map<std::string, const ReplayResult*> before;
  for (const ReplayResult& r : previous) before[keyOf(r)] = &r;
  std::vector<RegressionLine> lines;
  std::set<std::string> seen;
  for (const ReplayResult& r : current) {
    seen.insert(keyOf(r));
    auto it = before.find(keyOf(r));
    const bool wasBug = it != before.end() && it->second->bug;
    if (r.bug) lines.push_back({wasBug ? "still-failing" : "newly-failing", names[r.entry], whoOf(r), r.reason});
    else if (wasBug) lines.push_back({"now-passing", names[r.entry], whoOf(r), r.reason});
  }
  return lines;
}

std::vector<SutReplay> replayCorpus(CorpusDb& db, const ReplayOptions& o) {
  campaign::oracleNamed(o.policy);  // a bad policy name fails before the SUTs start
  const WorkerLimits limits;
  const auto suts = campaign::chooseSuts(o.backends, o.backendsFile, limits);
  const Oracle oracle = campaign::oracleNamed(o.policy, suts);
  auto workers = campaign::makeWorkers(suts, limits);
  std::vector<CorpusEntry> entries = db.entries(o.tier > 0 ? std::optional<int>(o.tier) : std::nullopt);

  std::vector<SutReplay> out;
  std::map<std::string, size_t> bySut;
  for (const auto& s : suts) {
    bySut[s.def.name] = out.size();
    SutReplay r;
    r.sut = s.def.name;
    r.version = s.info.version;
    r.replay = db.startReplay(r.sut, r.version);
    r.entries = static_cast<int>(entries.size());
    out.push_back(std::move(r));
  }
  const fs::path scratch = fs::temp_directory_path() / ("nnfuzz-replay-" + std::to_string(::getpid()));
  for (const CorpusEntry& e : entries) {
    fs::remove_all(scratch);
    db.materialize(e.id, scratch);
    const CaseData data = readCase(scratch);
    std::vector<RunOutcome> outcomes;
    for (auto& w : workers) {
      const auto start = std::chrono::steady_clock::now();
      outcomes.push_back(w->runCase(scratch));
      const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (auto it = bySut.find(outcomes.back().backend); it != bySut.end()) out[it->second].seconds += took;
    }
    for (const auto& [j, run] : campaign::judgeRuns(oracle, outcomes, data.expected)) {
      auto it = bySut.find(j.backend);
      if (it == bySut.end()) continue;
      SutReplay& r = out[it->second];
      const ReplayResult result{e.id, j.backend, j.mode, j.against, std::string(verdictName(j.verdict)), j.bug(), j.reason};
      db.record(r.replay, result);
      ++r.judgements;
      if (j.bug()) ++r.failing;
      else if (j.verdict == Verdict::Unsupported) ++r.unsupported;
      else ++r.passing;
    }
  }
  fs::remove_all(scratch);
  for (SutReplay& r : out) {
    db.finishReplay(r.replay, r.seconds);
    const auto previous = db.previousReplay(r.sut, r.replay);
    if (previous) {
      r.previous = previous->id;
      r.previousVersion = previous->version;
    }
    r.lines = regressions(entries, previous ? db.results(previous->id) : std::vector<ReplayResult>{}, db.results(r.replay));
  }
  return out;
}

}  // namespace nnfuzz
