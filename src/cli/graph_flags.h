// graph_flags.h - generation flags shared by `nnfuzz gen` and `nnfuzz fuzz`: the graph
// generator's --graph-model, --blocks (a node count N or N-M, or a block corpus file) and
// --mutations, and the target --opset.
#pragma once

#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace nnfuzz::cli {

struct GraphFlags {
  std::string model;
  std::string blocks;     ///< N, N-M or a corpus file
  std::string mutations;  ///< r,r,...
  std::string opset;      ///< N (7..21)
};

/// Adds the flags to `cmd`.
void addGraphFlags(CLI::App* cmd, GraphFlags& flags);
/// The config fields the given flags set, as a partial config ({"graph": {...}, "opset": N} or {}).
/// Throws nnfuzz::Error for a malformed value.
nlohmann::json graphFlagsJson(const GraphFlags& flags);

}  // namespace nnfuzz::cli
