// mcts.h - Luo et al.'s block chooser (ICSE'21 §III-E): a Monte Carlo search tree whose
// nodes are blocks of the corpus.
//
// One iteration: selection descends from the root by UCT, potential = v/n + e*sqrt(ln N / n)
// (v the node's successes, n its visits, N its parent's visits), to at most tc1 levels;
// expansion gives the node it stops at a new child: the operator with the lowest coverage not
// yet on the path (or, with subgraphOdds, a subgraph block holding it), at most maxChildren
// children per node; simulation (the caller) makes and runs models from the path's blocks;
// backpropagation adds the result to every node from the new child up to the root.
//
// tc2, "the maximum times a node can be explored", is read as the visits a node needs before
// it is expanded: until then selection stops at it and it is simulated again (tc2 = 1: a
// child is simulated once, then it may grow children of its own).
//
// The tree is plain data: it has no lock (the caller serialises choose/update) and it saves
// to and loads from JSON, so a resumed campaign continues the same search.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gen/block_corpus.h"
#include "support/rng.h"

namespace nnfuzz::search {

struct MctsOptions {
  int maxDepth = 10;                            ///< tc1: levels below the root
  int visitsBeforeExpansion = 1;                ///< tc2
  double exploration = 0.70710678118654752440;  ///< e = 1/sqrt(2)
  int maxChildren = 3;
  double subgraphOdds = 0.5;  ///< expansion picks a subgraph holding the operator this often
  /// What a simulation earns (the caller computes it): "success" is the paper's 0/1 (a failure
  /// or any coverage growth); "gain" is 1 for a new bug, else the OLC gain against the
  /// campaign's mean gain, so paths that grow coverage more than usual stand out.
  std::string reward = "gain";
};

/// Reads {"tc1", "tc2", "e", "max_children", "subgraph_odds", "reward"} over `base`; throws nnfuzz::Error.
MctsOptions mctsOptionsFromJson(MctsOptions base, const nlohmann::json& json);
nlohmann::json mctsOptionsToJson(const MctsOptions& options);

class BlockTree {
 public:
  /// `corpus` must outlive the tree.
  BlockTree(const BlockCorpus& corpus, MctsOptions options);

  /// What one iteration should simulate.
  struct Choice {
    int node = 0;             ///< the tree node to update afterwards
    std::vector<int> blocks;  ///< corpus block indices on the path, root side first
  };
  /// Selection and expansion. `opCoverage[i]` is the coverage (Luo's OLC_op) of the corpus's
  /// operator i; ties between the lowest are broken by `rng`.
  Choice choose(std::span<const double> opCoverage, Rng& rng);
  /// Backpropagation: adds a visit and `reward` (in [0, 1]) to `node` and its ancestors.
  void update(int node, double reward);

  size_t size() const { return nodes_.size(); }
  int depthOf(int node) const;
  /// Visits and value of a node (0 is the root).
  int64_t visits(int node) const { return nodes_[static_cast<size_t>(node)].visits; }
  double value(int node) const { return nodes_[static_cast<size_t>(node)].value; }
  const std::vector<int>& children(int node) const { return nodes_[static_cast<size_t>(node)].children; }
  int block(int node) const { return nodes_[static_cast<size_t>(node)].block; }

  /// {"options": ..., "nodes": [[block, parent, visits, value], ...]}.
  nlohmann::json toJson() const;
  /// Restores a tree saved by toJson over the same corpus; throws nnfuzz::Error when it does
  /// not fit (a block index out of range, a broken parent link).
  void restore(const nlohmann::json& json);

 private:
  struct Node {
    int block = -1;  ///< -1 for the root
    int parent = -1;
    int64_t visits = 0;
    double value = 0;
    std::vector<int> children;
  };
  double potential(const Node& child, int64_t parentVisits) const;
  /// A new child block for `node`, or -1 when every operator is on the path or a child.
  int expansionBlock(int node, std::span<const double> opCoverage, Rng& rng) const;
  std::vector<int> pathBlocks(int node) const;

  const BlockCorpus* corpus_;
  MctsOptions options_;
  std::vector<Node> nodes_;
  std::vector<std::vector<int>> subgraphsOf_;  ///< per operator index: subgraph blocks holding it
};

}  // namespace nnfuzz::search
