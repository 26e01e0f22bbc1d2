// cmd_merge.cpp - `nnfuzz merge -o OUT SHARD...`: one campaign from its shards' folders.
#include <fmt/core.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "store/campaign_merge.h"

namespace nnfuzz::cli {

void addMergeCommand(CLI::App& app) {
  auto out = std::make_shared<std::string>();
  auto shards = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand("merge", "Fold the folders of a campaign's shards (fuzz --shard I/N) into one campaign");
  cmd->add_option("SHARD", *shards, "shard campaign folders")->required();
  cmd->add_option("-o,--out", *out, "the merged campaign's folder (campaign.db, bugs/, corpus/)")->required();
  cmd->callback([out, shards] {
    std::vector<std::filesystem::path> dirs(shards->begin(), shards->end());
    const MergeSummary m = mergeCampaigns(*out, dirs);
    for (const std::string& note : m.notes) fmt::print("note: {}\n", note);
    fmt::print("merged {} shards into {}: {} tests, {} results, {} unique bugs\n", m.shards, *out, m.tests, m.results,
               m.bugs);
  });
}

}  // namespace nnfuzz::cli
