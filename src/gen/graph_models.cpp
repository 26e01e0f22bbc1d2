// graph_models.cpp - WS and RN digraphs and the edge mutations.
#include "gen/graph_models.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace nnfuzz {

namespace {

using EdgeSet = std::set<std::pair<int, int>>;

std::pair<int, int> ordered(int a, int b) { return {std::min(a, b), std::max(a, b)}; }

Digraph fromSet(int n, const EdgeSet& edges) {
  Digraph g;
  g.n = n;
  g.edges.assign(edges.begin(), edges.end());
  return g;
}

int pickIndex(Rng& rng, size_t size) { return static_cast<int>(rng.uniformInt(0, static_cast<int64_t>(size) - 1)); }

}  // namespace

bool Digraph::hasEdge(int a, int b) const {
  return std::binary_search(edges.begin(), edges.end(), ordered(a, b));
}

std::vector<int> Digraph::predecessors(int v) const {
  std::vector<int> out;
  for (auto [s, d] : edges)
    if (d == v) out.push_back(s);
  return out;
}

std::vector<int> Digraph::successors(int v) const {
  std::vector<int> out;
  for (auto [s, d] : edges)
    if (s == v) out.push_back(d);
  return out;
}

bool Digraph::connected() const {
  if (n <= 1) return true;
  std::vector<std::vector<int>> adj(static_cast<size_t>(n));
  for (auto [s, d] : edges) {
    adj[static_cast<size_t>(s)].push_back(d);
    adj[static_cast<size_t>(d)].push_back(s);
  }
  std::vector<bool> seen(static_cast<size_t>(n), false);
  std::vector<int> stack{0};
  seen[0] = true;
  int reached = 1;
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    for (int w : adj[static_cast<size_t>(v)])
      if (!seen[static_cast<size_t>(w)]) {
        seen[static_cast<size_t>(w)] = true;
        ++reached;
        stack.push_back(w);
      }
  }
  return reached == n;
}

bool Digraph::addEdge(int a, int b) {
  if (a == b) return false;
  const auto e = ordered(a, b);
  auto it = std::lower_bound(edges.begin(), edges.end(), e);
  if (it != edges.end() && *it == e) return false;
  edges.insert(it, e);
  return true;
}

Digraph wattsStrogatz(int n, int k, double p, Rng& rng) {
  const int half = std::max(0, std::min(k, n - 1) / 2);
  EdgeSet edges;
  for (int j = 1; j <= half; ++j)
    for (int i = 0; i < n; ++i) edges.insert(ordered(i, (i + j) % n));
  // Rewire in Watts and Strogatz's order: all first neighbours, then all second ones, ...
  for (int j = 1; j <= half; ++j)
    for (int i = 0; i < n; ++i) {
      const auto e = ordered(i, (i + j) % n);
      if (!edges.count(e) || !rng.bernoulli(p)) continue;
      std::vector<int> targets;
      for (int w = 0; w < n; ++w)
        if (w != i && !edges.count(ordered(i, w))) targets.push_back(w);
      if (targets.empty()) continue;
      edges.erase(e);
      edges.insert(ordered(i, targets[static_cast<size_t>(pickIndex(rng, targets.size()))]));
    }
  return fromSet(n, edges);
}

Digraph residualNetwork(int k, double p, int n, Rng& rng) {
  EdgeSet edges;
  std::vector<int> count(static_cast<size_t>(std::max(n, 0)), 0);
  for (int i = 0; i + 1 < n; ++i) {
    edges.insert({i, i + 1});
    ++count[static_cast<size_t>(i)];
    ++count[static_cast<size_t>(i + 1)];
  }
  for (int i = 0; i < n; ++i) {
    const int tries = k - count[static_cast<size_t>(i)];
    for (int t = 0; t < tries; ++t) {
      if (!rng.bernoulli(p)) continue;
      std::vector<int> targets;
      for (int j = i + 1; j < n; ++j)
        if (count[static_cast<size_t>(j)] < k && !edges.count({i, j})) targets.push_back(j);
      if (targets.empty()) break;
      const int j = targets[static_cast<size_t>(pickIndex(rng, targets.size()))];
      edges.insert({i, j});
      ++count[static_cast<size_t>(i)];
      ++count[static_cast<size_t>(j)];
    }
  }
  return fromSet(n, edges);
}

int addRandomEdges(Digraph& g, double r, Rng& rng) {
  const int want = static_cast<int>(std::ceil(g.numEdges() * r - 1e-9));
  int added = 0;
  while (added < want) {
    std::vector<std::pair<int, int>> absent;
    for (int a = 0; a < g.n; ++a)
      for (int b = a + 1; b < g.n; ++b)
        if (!g.hasEdge(a, b)) absent.emplace_back(a, b);
    if (absent.empty()) break;
    const auto [a, b] = absent[static_cast<size_t>(pickIndex(rng, absent.size()))];
    g.addEdge(a, b);
    ++added;
  }
  return added;
}

int removeRandomEdges(Digraph& g, double r, Rng& rng) {
  const int want = static_cast<int>(std::floor(g.numEdges() * r + 1e-9));
  int removed = 0;
  while (removed < want) {
    std::vector<size_t> order(g.edges.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[static_cast<size_t>(pickIndex(rng, i))]);
    bool done = false;
    for (size_t i : order) {
      Digraph trial = g;
      trial.edges.erase(trial.edges.begin() + static_cast<std::ptrdiff_t>(i));
      if (!trial.connected()) continue;
      g = std::move(trial);
      done = true;
      break;
    }
    if (!done) break;
    ++removed;
  }
  return removed;
}

}  // namespace nnfuzz
