// cmd_merge.cpp - `nnfuzz merge -o OUT SHARD...`: one campaign from its shards' folders.
#include <fmt/core.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "store/campaign_merge.h"

namespace nnfuzz::cli {

void addMergeCommand(CLI::App& app) {
  auto out = std::make_shared<std::string>();
  auto shards = std::make_shared<std::vector<std::string>>();
  auto corpus = std::make_shared<std::string>();
  auto noCorpus = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("merge", "Fold the folders of a campaign's shards (fuzz --shard I/N) into one campaign");
  cmd->add_option("SHARD", *shards, "shard campaign folders")->required();
  cmd->add_option("-o,--out", *out, "the merged campaign's folder (campaign.db, bugs/, corpus/)")->required();
  cmd->add_option("--corpus", *corpus, "regression corpus whose tier 3 gets the merged bugs (default OUT/corpus.db)");
  cmd->add_flag("--no-corpus", *noCorpus, "do not add the bugs to a regression corpus");
  cmd->callback([out, shards, corpus, noCorpus] {
    std::vector<std::filesystem::path> dirs(shards->begin(), shards->end());
    const MergeSummary m = mergeCampaigns(*out, dirs);
    for (const std::string& note : m.notes) fmt::print("note: {}\n", note);
    fmt::print("merged {} shards into {}: {} tests, {} results, {} unique bugs\n", m.shards, *out, m.tests, m.results,
               m.bugs);
    // Tier 3 as the unsharded campaign would have it: the merged bundles, one per signature.
    if (!*noCorpus) addBugsToCorpus(*out, *corpus);
  });
}

}  // namespace nnfuzz::cli
