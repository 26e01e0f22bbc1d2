// mcts.cpp - the MCTS block chooser (see mcts.h).
#include "search/mcts.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "support/error.h"

namespace nnfuzz::search {

MctsOptions mctsOptionsFromJson(MctsOptions base, const nlohmann::json& json) {
  if (!json.is_object()) throw Error("config: mcts must be an object");
  for (const auto& [key, value] : json.items()) {
    auto number = [&, &key = key, &value = value] {
      if (!value.is_number()) throw Error("config: mcts." + key + " must be a number");
      return value.get<double>();
    };
    if (key == "tc1") base.maxDepth = static_cast<int>(number());
    else if (key == "tc2") base.visitsBeforeExpansion = static_cast<int>(number());
    else if (key == "e") base.exploration = number();
    else if (key == "max_children") base.maxChildren = static_cast<int>(number());
    else if (key == "subgraph_odds") base.subgraphOdds = number();
    else if (key == "reward") {
      if (!value.is_string() || (value != "gain" && value != "success"))
        throw Error("config: mcts.reward must be \"gain\" or \"success\"");
      base.reward = value.get<std::string>();
    } else throw Error("config: unknown field mcts." + key + " (tc1, tc2, e, max_children, subgraph_odds, reward)");
  }
  if (base.maxDepth < 1) throw Error("config: mcts.tc1 must be >= 1");
  if (base.visitsBeforeExpansion < 1) throw Error("config: mcts.tc2 must be >= 1");
  if (base.maxChildren < 1) throw Error("config: mcts.max_children must be >= 1");
  if (!(base.exploration >= 0)) throw Error("config: mcts.e must be >= 0");
  if (!(base.subgraphOdds >= 0 && base.subgraphOdds <= 1)) throw Error("config: mcts.subgraph_odds must be in [0, 1]");
  return base;
}

nlohmann::json mctsOptionsToJson(const MctsOptions& o) {
  return {{"tc1", o.maxDepth},
          {"tc2", o.visitsBeforeExpansion},
          {"e", o.exploration},
          {"max_children", o.maxChildren},
          {"subgraph_odds", o.subgraphOdds},
          {"reward", o.reward}};
}

BlockTree::BlockTree(const BlockCorpus& corpus, MctsOptions options)
    : corpus_(&corpus), options_(options), nodes_(1), subgraphsOf_(static_cast<size_t>(corpus.numOps())) {
  const auto blocks = corpus.blocks();
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (!blocks[b].isSubgraph()) continue;
    for (const std::string& member : blocks[b].members) {
      const int op = corpus.opIndex(member);
      auto& holders = subgraphsOf_[static_cast<size_t>(op)];
      if (op >= 0 && std::find(holders.begin(), holders.end(), static_cast<int>(b)) == holders.end())
        holders.push_back(static_cast<int>(b));
    }
  }
}

int BlockTree::depthOf(int node) const {
  int depth = 0;
  for (int n = node; nodes_[static_cast<size_t>(n)].parent >= 0; n = nodes_[static_cast<size_t>(n)].parent) ++depth;
  return depth;
}

std::vector<int> BlockTree::pathBlocks(int node) const {
  std::vector<int> blocks;
  for (int n = node; n > 0; n = nodes_[static_cast<size_t>(n)].parent) blocks.push_back(nodes_[static_cast<size_t>(n)].block);
  std::reverse(blocks.begin(), blocks.end());
  return blocks;
}

double BlockTree::potential(const Node& child, int64_t parentVisits) const {
  if (child.visits == 0) return std::numeric_limits<double>::infinity();
  const double n = static_cast<double>(child.visits);
  return child.value / n + options_.exploration * std::sqrt(std::log(static_cast<double>(std::max<int64_t>(parentVisits, 1))) / n);
}

int BlockTree::expansionBlock(int node, std::span<const double> opCoverage, Rng& rng) const {
  // Operators already on the path or under this node are not candidates.
  std::vector<bool> taken(static_cast<size_t>(corpus_->numOps()), false);
  auto markBlock = [&](int block) {
    for (const std::string& member : corpus_->blocks()[static_cast<size_t>(block)].members)
      if (int op = corpus_->opIndex(member); op >= 0) taken[static_cast<size_t>(op)] = true;
  };
  for (int b : pathBlocks(node)) markBlock(b);
  for (int child : nodes_[static_cast<size_t>(node)].children) markBlock(nodes_[static_cast<size_t>(child)].block);
  double lowest = std::numeric_limits<double>::infinity();
  std::vector<int> candidates;
  for (int op = 0; op < corpus_->numOps(); ++op) {
    if (taken[static_cast<size_t>(op)]) continue;
    const double c = static_cast<size_t>(op) < opCoverage.size() ? opCoverage[static_cast<size_t>(op)] : 0.0;
    if (c < lowest) {
      lowest = c;
      candidates.clear();
    }
    if (c == lowest) candidates.push_back(op);
  }
  if (candidates.empty()) return -1;
  const int op = rng.pick(candidates);
  // A subgraph holding it, when none of the subgraph's other operators is taken either.
  std::vector<int> holders;
  for (int b : subgraphsOf_[static_cast<size_t>(op)]) {
    const auto& members = corpus_->blocks()[static_cast<size_t>(b)].members;
    if (std::none_of(members.begin(), members.end(), [&](const std::string& m) {
          const int i = corpus_->opIndex(m);
          return i != op && i >= 0 && taken[static_cast<size_t>(i)];
        }))
      holders.push_back(b);
  }
  if (!holders.empty() && rng.bernoulli(options_.subgraphOdds)) return rng.pick(holders);
  const std::string& name = corpus_->op(op).name;
  const auto blocks = corpus_->blocks();
  for (size_t b = 0; b < blocks.size(); ++b)
    if (!blocks[b].isSubgraph() && blocks[b].name == name) return static_cast<int>(b);
  return -1;
}

BlockTree::Choice BlockTree::choose(std::span<const double> opCoverage, Rng& rng) {
  int node = 0;
  for (int depth = 0;; ++depth) {
    Node& here = nodes_[static_cast<size_t>(node)];
    if (depth >= options_.maxDepth) break;                                  // terminal (tc1)
    if (node != 0 && here.visits < options_.visitsBeforeExpansion) break;  // explore it again (tc2)
    if (static_cast<int>(here.children.size()) < options_.maxChildren) {
      const int block = expansionBlock(node, opCoverage, rng);
      if (block >= 0) {
        Node child;
        child.block = block;
        child.parent = node;
        nodes_.push_back(child);
        const int id = static_cast<int>(nodes_.size()) - 1;
        nodes_[static_cast<size_t>(node)].children.push_back(id);
        node = id;
        break;
      }
    }
    if (here.children.empty()) break;
    int best = here.children.front();
    double bestPotential = -1;
    for (int child : here.children) {
      const double p = potential(nodes_[static_cast<size_t>(child)], here.visits);
      if (p > bestPotential) {
        bestPotential = p;
        best = child;
      }
    }
    node = best;
  }
  return {node, pathBlocks(node)};
}

void BlockTree::update(int node, double reward) {
  for (int n = node; n >= 0; n = nodes_[static_cast<size_t>(n)].parent) {
    nodes_[static_cast<size_t>(n)].visits += 1;
    nodes_[static_cast<size_t>(n)].value += reward;
  }
}

nlohmann::json BlockTree::toJson() const {
  nlohmann::json nodes = nlohmann::json::array();
  for (const Node& n : nodes_) nodes.push_back({n.block, n.parent, n.visits, n.value});
  return {{"options", mctsOptionsToJson(options_)}, {"nodes", std::move(nodes)}};
}

void BlockTree::restore(const nlohmann::json& json) {
  if (!json.is_object() || !json.contains("nodes") || !json["nodes"].is_array() || json["nodes"].empty())
    throw Error("search state: not an MCTS tree");
  const int numBlocks = static_cast<int>(corpus_->blocks().size());
  std::vector<Node> nodes;
  for (const auto& row : json["nodes"]) {
    if (!row.is_array() || row.size() != 4) throw Error("search state: a tree node is not [block, parent, visits, value]");
    Node n;
    n.block = row[0].get<int>();
    n.parent = row[1].get<int>();
    n.visits = row[2].get<int64_t>();
    n.value = row[3].get<double>();
    const int id = static_cast<int>(nodes.size());
    const bool root = id == 0;
    if (root ? (n.block != -1 || n.parent != -1) : (n.block < 0 || n.block >= numBlocks || n.parent < 0 || n.parent >= id))
      throw Error("search state: tree node " + std::to_string(id) + " does not fit this block corpus");
    if (!root) nodes[static_cast<size_t>(n.parent)].children.push_back(id);
    nodes.push_back(std::move(n));
  }
  nodes_ = std::move(nodes);
}

}  // namespace nnfuzz::search
