// graph_models.h - the random digraphs the graph generator lays blocks on (Luo et al.,
// ICSE'21 §III-G) and the seed's two edge-level mutations (§III-F).
//
// Both models make undirected graphs; nnfuzz orients every edge from the lower to the
// higher node index, so the digraph is acyclic and 0..n-1 is a topological order.
//  - WS(n, k, p), Watts-Strogatz: a ring of n nodes, each joined to its k/2 nearest
//    neighbours on either side; then each edge (i, i+j), j = 1..k/2, is rewired with
//    probability p to a uniformly chosen node that is neither i nor already i's neighbour.
//  - RN(k, p, n), the seed's Residual-Network model: the n nodes in a line (edges i-(i+1));
//    then for each node i in order whose neighbour count is below k, k - count(i) times:
//    with probability p, join i to a uniformly chosen later node j that has fewer than k
//    neighbours and is not yet i's neighbour.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "support/rng.h"

namespace nnfuzz {

/// A DAG on nodes 0..n-1 whose edges go from lower to higher index.
struct Digraph {
  int n = 0;
  std::vector<std::pair<int, int>> edges;  ///< (src, dst) with src < dst, sorted, distinct

  int numEdges() const { return static_cast<int>(edges.size()); }
  bool hasEdge(int a, int b) const;
  /// Sources of the edges into v, ascending.
  std::vector<int> predecessors(int v) const;
  /// Targets of the edges out of v, ascending.
  std::vector<int> successors(int v) const;
  /// True if the undirected graph is connected (a model has one component).
  bool connected() const;
  /// Adds the edge (min, max) if absent; false when it was there or a == b.
  bool addEdge(int a, int b);
};

/// Watts-Strogatz WS(n, k, p) oriented low -> high (k is clamped below n, rounded down to even).
Digraph wattsStrogatz(int n, int k, double p, Rng& rng);
/// The seed's RN(k, p, n) oriented low -> high.
Digraph residualNetwork(int k, double p, int n, Rng& rng);

/// Graph Edges Addition: adds ceil(E * r) new edges between random node pairs (fewer only
/// when the graph becomes complete). Returns the number added.
int addRandomEdges(Digraph& g, double r, Rng& rng);
/// Graph Edges Removal: removes floor(E * r) random edges, each one whose removal keeps the
/// graph connected (fewer when no such edge is left). Returns the number removed.
int removeRandomEdges(Digraph& g, double r, Rng& rng);

}  // namespace nnfuzz
