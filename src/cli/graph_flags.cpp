// graph_flags.cpp - the graph generator's flags (see graph_flags.h).
#include "cli/graph_flags.h"

#include <cstdio>
#include <sstream>

#include "support/error.h"

namespace nnfuzz::cli {

void addGraphFlags(CLI::App* cmd, GraphFlags& flags) {
  cmd->add_option("--graph-model", flags.model, "graph generator: ws | rn | both (default both)");
  cmd->add_option("--blocks", flags.blocks,
                  "graph generator: blocks per model (N or N-M, default 5-15), or a block corpus file "
                  "(default: the built-in config/blocks.json)");
  cmd->add_option("--mutations", flags.mutations,
                  "graph generator: mutation rates r drawn per model, e.g. 0,0.1,0.2 (0 alone: no mutations)");
  cmd->add_option("--opset", flags.opset, "target ONNX opset, 7..21 (default 17; config \"opsets\" mixes several)");
}

nlohmann::json graphFlagsJson(const GraphFlags& flags) {
  nlohmann::json graph = nlohmann::json::object();
  if (!flags.model.empty()) graph["model"] = flags.model;
  if (!flags.blocks.empty()) {
    int lo = 0, hi = 0;
    char dash = 0, extra = 0;
    const int fields = std::sscanf(flags.blocks.c_str(), "%d%c%d%c", &lo, &dash, &hi, &extra);
    if (fields == 1)
      graph["blocks"] = lo;
    else if (fields == 3 && dash == '-')
      graph["blocks"] = {{"min", lo}, {"max", hi}};
    else
      graph["blocks_file"] = flags.blocks;
  }
  if (!flags.mutations.empty()) {
    nlohmann::json rates = nlohmann::json::array();
    std::stringstream in(flags.mutations);
    std::string part;
    while (std::getline(in, part, ',')) {
      try {
        size_t used = 0;
        rates.push_back(std::stod(part, &used));
        if (used != part.size()) throw std::invalid_argument(part);
      } catch (const std::exception&) {
        throw Error("--mutations expects rates such as 0,0.1,0.2, got '" + flags.mutations + "'");
      }
    }
    graph["mutations"] = {{"r", rates}};
  }
  nlohmann::json out = graph.empty() ? nlohmann::json::object() : nlohmann::json{{"graph", graph}};
  if (!flags.opset.empty()) {
    int opset = 0;
    char extra = 0;
    if (std::sscanf(flags.opset.c_str(), "%d%c", &opset, &extra) != 1)
      throw Error("--opset expects a number from 7 to 21, got '" + flags.opset + "'");
    out["opset"] = opset;  // the range is checked with the rest of the config
  }
  return out;
}

}  // namespace nnfuzz::cli
