// graph_models_test.cpp - WS and RN structure over many seeds, and the edge mutations' counts.
#include <gtest/gtest.h>

#include <cmath>

#include "gen/graph_models.h"

namespace nnfuzz {
namespace {

void expectDag(const Digraph& g) {
  for (size_t i = 0; i < g.edges.size(); ++i) {
    const auto [s, d] = g.edges[i];
    ASSERT_LT(s, d);
    ASSERT_GE(s, 0);
    ASSERT_LT(d, g.n);
    if (i > 0) {
      ASSERT_LT(g.edges[i - 1], g.edges[i]);  // sorted and distinct
    }
  }
}

std::vector<int> degrees(const Digraph& g) {
  std::vector<int> deg(static_cast<size_t>(g.n), 0);
  for (auto [s, d] : g.edges) ++deg[static_cast<size_t>(s)], ++deg[static_cast<size_t>(d)];
  return deg;
}

TEST(GraphModels, WsWithoutRewiringIsTheRingLattice) {
  Rng rng(1);
  for (int k : {2, 4, 6}) {
    const Digraph g = wattsStrogatz(12, k, 0.0, rng);
    EXPECT_EQ(g.numEdges(), 12 * k / 2);
    for (int d : degrees(g)) EXPECT_EQ(d, k);
    EXPECT_TRUE(g.hasEdge(0, 11));  // the ring closes, oriented 0 -> 11
    EXPECT_TRUE(g.hasEdge(3, 3 + k / 2));
    EXPECT_FALSE(g.hasEdge(3, 4 + k / 2));
  }
}

TEST(GraphModels, WsKeepsItsEdgeCountAndRewiresMoreWithHigherP) {
  for (int k : {2, 4, 6}) {
    std::vector<double> share;
    for (double p : {0.1, 0.5, 0.9}) {
      double rewired = 0, total = 0;
      for (uint64_t seed = 0; seed < 200; ++seed) {
        Rng rng(seed);
        const int n = 10 + static_cast<int>(seed % 6);
        const Digraph g = wattsStrogatz(n, k, p, rng);
        expectDag(g);
        ASSERT_EQ(g.n, n);
        ASSERT_EQ(g.numEdges(), n * k / 2);  // rewiring moves edges, never drops them
        const Digraph lattice = wattsStrogatz(n, k, 0.0, rng);
        for (auto [s, d] : g.edges) rewired += !lattice.hasEdge(s, d);
        total += g.numEdges();
      }
      share.push_back(rewired / total);
    }
    // A rewired edge may land on another lattice position, so the share stays below p.
    EXPECT_GT(share[0], 0.05) << k;
    EXPECT_LT(share[0], 0.11) << k;
    EXPECT_LT(share[0], share[1]) << k;
    EXPECT_LT(share[1], share[2]) << k;
  }
}

TEST(GraphModels, RnIsALineWithResidualEdgesUpToKNeighbours) {
  for (int k : {2, 4, 6}) {
    double edgesLowP = 0, edgesHighP = 0;
    for (uint64_t seed = 0; seed < 200; ++seed) {
      const int n = 5 + static_cast<int>(seed % 11);
      for (double p : {0.1, 0.9}) {
        Rng rng(seed);
        const Digraph g = residualNetwork(k, p, n, rng);
        expectDag(g);
        ASSERT_EQ(g.n, n);
        for (int i = 0; i + 1 < n; ++i) ASSERT_TRUE(g.hasEdge(i, i + 1));
        for (int d : degrees(g)) ASSERT_LE(d, std::max(k, 2));
        (p < 0.5 ? edgesLowP : edgesHighP) += g.numEdges();
      }
    }
    // k = 2: only the two ends of the line have room, so the one possible extra edge closes a ring.
    EXPECT_GT(edgesHighP, (k == 2 ? 1.05 : 1.3) * edgesLowP) << k;
  }
}

TEST(GraphModels, RnFollowsTheSeedsStepsExactly) {
  // p = 1: node 0 (one neighbour) joins the next k - 1 nodes that still have room, ...
  Rng rng(3);
  const Digraph g = residualNetwork(4, 1.0, 6, rng);
  for (int d : degrees(g)) EXPECT_LE(d, 4);
  EXPECT_EQ(degrees(g)[0], 4);  // 1 from the line + 3 added
  Digraph ring = residualNetwork(2, 1.0, 6, rng);  // k = 2: only the ends have room
  EXPECT_EQ(ring.numEdges(), 6);
  EXPECT_TRUE(ring.hasEdge(0, 5));
}

TEST(GraphModels, EdgeMutationsChangeCeilAndFloorOfERTimesEdges) {
  for (uint64_t seed = 0; seed < 300; ++seed) {
    Rng rng(seed);
    const int k = seed % 2 ? 4 : 6;
    const Digraph base = seed % 3 ? wattsStrogatz(12, k, 0.5, rng) : residualNetwork(k, 0.9, 12, rng);
    for (double r : {0.1, 0.2}) {
      Digraph g = base;
      const int e = g.numEdges();
      ASSERT_EQ(addRandomEdges(g, r, rng), static_cast<int>(std::ceil(e * r)));
      ASSERT_EQ(g.numEdges(), e + static_cast<int>(std::ceil(e * r)));
      expectDag(g);
      Digraph h = base;
      if (!h.connected()) continue;
      ASSERT_EQ(removeRandomEdges(h, r, rng), static_cast<int>(std::floor(e * r)));
      ASSERT_EQ(h.numEdges(), e - static_cast<int>(std::floor(e * r)));
      ASSERT_TRUE(h.connected());
      expectDag(h);
    }
  }
}

TEST(GraphModels, RemovalNeverDisconnectsATree) {
  Rng rng(5);
  Digraph line = residualNetwork(2, 0.0, 8, rng);  // p = 0: a path, every edge a bridge
  EXPECT_EQ(removeRandomEdges(line, 0.5, rng), 0);
  EXPECT_EQ(line.numEdges(), 7);
}

}  // namespace
}  // namespace nnfuzz
