// cmd_corpus.cpp - `nnfuzz corpus add|list|replay`: the three-tier regression corpus
// (src/corpus). Flag parsing and printing only.
#include <fmt/core.h>

#include <chrono>

#include "cli/cli.h"
#include "cli/commands.h"
#include "corpus/corpus_db.h"
#include "corpus/replay.h"
#include "corpus/tiers.h"
#include "support/error.h"

namespace nnfuzz::cli {

namespace {

struct CorpusFlags {
  std::string corpus = "corpus.db";
  std::vector<int> tiers;
  uint64_t seed = 1;
  std::string campaign;
  ReplayOptions replay;
};

void runAdd(const CorpusFlags& f) {
  CorpusDb db(f.corpus);
  std::vector<int> tiers = f.tiers;
  if (tiers.empty()) tiers = f.campaign.empty() ? std::vector<int>{1, 2} : std::vector<int>{3};
  for (int tier : tiers) {
    const auto start = std::chrono::steady_clock::now();
    int n = 0;
    if (tier == 1) n = fillOperatorTier(db, f.seed);
    else if (tier == 2) n = fillNetworkTier(db, f.seed);
    else if (tier == 3) {
      if (f.campaign.empty()) throw Error("corpus add --tier 3 needs --from-campaign DIR");
      n = importCampaignBugs(db, f.campaign);
    } else {
      throw Error("unknown tier " + std::to_string(tier) + " (1: operators, 2: networks, 3: campaign bugs)");
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print("tier {}: {} {} in {:.1f} s\n", tier, tier == 3 ? "added" : "regenerated", n, s);
  }
}

void runList(const CorpusFlags& f) {
  CorpusDb db(f.corpus);
  int counts[4] = {0, 0, 0, 0};
  for (const CorpusEntry& e : db.entries()) {
    if (f.tiers.empty() || std::find(f.tiers.begin(), f.tiers.end(), e.tier) != f.tiers.end()) {
      fmt::print("{} {:<40} {:<5} {}\n", e.tier, e.name, e.format,
                 e.tier == 3 ? e.sut + " " + e.version + " " + e.verdict : e.origin);
    }
    if (e.tier >= 1 && e.tier <= 3) ++counts[e.tier];
  }
  fmt::print("tier 1: {} operators, tier 2: {} networks, tier 3: {} bugs\n", counts[1], counts[2], counts[3]);
}

void runReplay(const CorpusFlags& f) {
  CorpusDb db(f.corpus);
  ReplayOptions o = f.replay;
  if (f.tiers.size() == 1) o.tier = f.tiers.front();
  bool anyNew = false;
  for (const SutReplay& r : replayCorpus(db, o)) {
    fmt::print("{} {}: {} entries, {} judgements: {} pass, {} unsupported, {} failing ({:.1f} s in the SUT)\n", r.sut,
               r.version, r.entries, r.judgements, r.passing, r.unsupported, r.failing, r.seconds);
    fmt::print("  compared with {}\n",
               r.previous ? "replay " + std::to_string(r.previous) + " (" + r.sut + " " + r.previousVersion + ")"
                          : std::string("nothing (first replay of this SUT)"));
    int counts[3] = {0, 0, 0};
    for (const RegressionLine& l : r.lines) {
      fmt::print("  {:<14} {:<36} {:<28} {}\n", l.status, l.entry, l.who, l.reason.substr(0, 100));
      counts[l.status == "still-failing" ? 0 : l.status == "now-passing" ? 1 : 2]++;
      anyNew = anyNew || l.status == "newly-failing";
    }
    fmt::print("  still-failing {}, now-passing {}, newly-failing {}\n", counts[0], counts[1], counts[2]);
  }
  if (anyNew) exitCode() = 1;
}

}  // namespace

void addCorpusCommand(CLI::App& app) {
  auto f = std::make_shared<CorpusFlags>();
  auto* cmd = app.add_subcommand("corpus", "The three-tier regression corpus: add, list, replay");
  cmd->require_subcommand(1);
  auto corpusOption = [f](CLI::App* sub) {
    sub->add_option("--corpus", f->corpus, "corpus file (SQLite)")->capture_default_str();
    sub->add_option("--tier", f->tiers, "tier(s): 1 operators, 2 classic networks, 3 campaign bugs");
  };
  auto* add = cmd->add_subcommand("add", "Regenerate tier 1/2, or add a campaign's bugs to tier 3");
  corpusOption(add);
  add->add_option("--seed", f->seed, "seed of tier 1 parameters and tier 2 weights")->capture_default_str();
  add->add_option("--from-campaign", f->campaign, "campaign folder whose bugs/ join tier 3");
  add->callback([f] { runAdd(*f); });
  auto* list = cmd->add_subcommand("list", "List entries and the size of each tier");
  corpusOption(list);
  list->callback([f] { runList(*f); });
  auto* replay = cmd->add_subcommand("replay", "Run the corpus (tier 3, then 1, then 2) and compare with the last replay");
  corpusOption(replay);
  replay->add_option("--backends", f->replay.backends, "comma-separated SUTs")->capture_default_str();
  replay->add_option("--backends-file", f->replay.backendsFile, "extra backend definitions");
  replay->add_option("--policy", f->replay.policy, "allclose | luo")->capture_default_str();
  replay->callback([f] { runReplay(*f); });
}

void addBugsToCorpus(const std::filesystem::path& campaign, const std::string& corpusPath) {
  const std::string path = corpusPath.empty() ? (campaign / "corpus.db").string() : corpusPath;
  CorpusDb corpus(path);
  const int added = importCampaignBugs(corpus, campaign);
  if (added > 0) fmt::print("corpus: {} bug{} added to tier 3 of {}\n", added, added == 1 ? "" : "s", path);
}

}  // namespace nnfuzz::cli
