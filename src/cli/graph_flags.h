// graph_flags.h - the graph generator's flags, shared by `nnfuzz gen` and `nnfuzz fuzz`:
// --graph-model, --blocks (a node count N or N-M, or a block corpus file) and --mutations.
#pragma once

#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace nnfuzz::cli {

struct GraphFlags {
  std::string model;
  std::string blocks;     ///< N, N-M or a corpus file
  std::string mutations;  ///< r,r,...
};

/// Adds the three flags to `cmd`.
void addGraphFlags(CLI::App* cmd, GraphFlags& flags);
/// The config fields the given flags set, as a partial config ({"graph": {...}} or {}).
/// Throws nnfuzz::Error for a malformed value.
nlohmann::json graphFlagsJson(const GraphFlags& flags);

}  // namespace nnfuzz::cli
