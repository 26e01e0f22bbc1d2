// graph_gen.cpp - digraph, mutations and one block per node (see graph_gen.h).
#include "gen/graph_gen.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "gen/block_place.h"
#include "gen/generators.h"
#include "gen/graph_models.h"
#include "gen/recipe_mutations.h"
#include "gen/sequences.h"
#include "interp/interpreter.h"
#include "interp/values.h"
#include "ops/common.h"
#include "ops/registry.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

using nlohmann::json;

/// Block draws per node before the node falls back to Identity on its first input.
constexpr int kAttemptsPerNode = 16;
/// Tries to place a required sequence on its node before the node draws a block instead.
constexpr int kChainAttempts = 200;
/// In-degrees whose candidate blocks are worked out once and shared (higher ones per model).
constexpr int kSharedDegrees = 24;

/// What a node may draw, worked out once per (corpus, operator weights, limits) and shared by
/// every model made with them: it costs a recipe per block and degree, far more than a model.
struct BlockChoices {
  std::vector<double> weight;                 ///< per corpus block (0: the config excludes it)
  std::vector<std::vector<char>> fits;        ///< [d][block]: the block takes in-degree d
  /// [d]: the blocks to draw from (variadic fallback applied) and their weights.
  std::vector<std::pair<std::vector<int>, std::vector<double>>> byDegree;
};

uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ULL + (h >> 29); }
uint64_t mixText(uint64_t h, std::string_view text) { return mix(h, std::hash<std::string_view>{}(text)); }
uint64_t mixDouble(uint64_t h, double v) { return mix(h, std::hash<double>{}(v)); }

/// Everything BlockChoices depends on, as one number.
uint64_t choicesKey(const GenConfig& config, const BlockCorpus& corpus) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const Block& b : corpus.blocks()) {
    h = mixText(h, b.name);
    h = mix(h, b.isSubgraph() ? (b.recipe ? 2 : 3) : 1);
    for (int d : b.inDegrees) h = mix(h, static_cast<uint64_t>(d));
  }
  for (size_t i = 0; i < config.ops.size(); ++i) h = mixDouble(mixText(h, config.ops[i]->name), config.opWeights[i]);
  h = mixDouble(h, config.graph.subgraphWeight);
  const Limits& l = config.limits;
  h = mix(mix(mix(h, static_cast<uint64_t>(l.maxRank)), static_cast<uint64_t>(l.minDim)), static_cast<uint64_t>(l.maxDim));
  for (DType t : l.dtypes) h = mix(h, static_cast<uint64_t>(t));
  return h;
}

class GraphModelMaker {
 public:
  GraphModelMaker(const GenConfig& config, const BlockCorpus& corpus, std::span<const int> preferred, Rng& rng)
      : config_(config), settings_(config.graph), corpus_(corpus), rng_(rng),
        preferred_(preferred.begin(), preferred.end()), pool_(out_.graph, rng), builder_(out_.graph, pool_) {
    for (size_t i = 0; i < config.ops.size(); ++i) opWeight_[config.ops[i]->name] = config.opWeights[i];
  }

  GeneratedCase make() {
    const bool ws = settings_.model == "ws" || (settings_.model == "both" && rng_.bernoulli(0.5));
    const int n = static_cast<int>(rng_.uniformInt(settings_.minBlocks, settings_.maxBlocks));
    const int k = rng_.pick(settings_.k);
    const double p = ws ? settings_.pWs : settings_.pRn;
    Digraph dg = ws ? wattsStrogatz(n, k, p, rng_) : residualNetwork(k, p, n, rng_);
    const double r = rng_.pick(settings_.mutationRates);
    json mutations = json::array();
    if (r > 0 && settings_.edgesAdd) mutations.push_back({{"kind", "edges_add"}, {"count", addRandomEdges(dg, r, rng_)}});
    if (r > 0 && settings_.edgesRemove)
      mutations.push_back({{"kind", "edges_remove"}, {"count", removeRandomEdges(dg, r, rng_)}});

    // Required sequences (limits.h): each, with its odds, replaces one node's block.
    for (const RequiredSequence& s : config_.net.sequences)
      if (rng_.bernoulli(s.p)) chainAt_.emplace(static_cast<int>(rng_.uniformInt(0, n - 1)), &s);
    TensorType inputType = sampleInputType();
    if (r > 0 && settings_.tensorShape && config_.net.inputShapes.empty() && rng_.bernoulli(r)) {
      const TensorType before = inputType;
      mutateShape(inputType.shape);
      mutations.push_back({{"kind", "tensor_shape"}, {"from", toString(before)}, {"to", toString(inputType)}});
    }
    const ValueId input = builder_.input(sampleTensor(inputType, defaultRange(inputType.dtype), rng_));

    std::vector<std::vector<ValueId>> nodeOutputs(static_cast<size_t>(n));
    json nodes = json::array();
    for (int v = 0; v < n; ++v) {
      std::vector<ValueId> inputs;
      for (int u : dg.predecessors(v)) {
        const auto& outs = nodeOutputs[static_cast<size_t>(u)];
        const auto succ = dg.successors(u);
        const size_t slot = static_cast<size_t>(std::find(succ.begin(), succ.end(), v) - succ.begin());
        inputs.push_back(outs[slot % outs.size()]);
      }
      if (inputs.empty()) inputs.push_back(input);
      nodes.push_back(placeNode(v, inputs, r, mutations, nodeOutputs[static_cast<size_t>(v)]));
    }
    finish();
    out_.requestedOps = n;
    out_.meta = {{"graph_model", ws ? "ws" : "rn"}, {"n", n}, {"k", k}, {"p", p}, {"r", r},
                 {"edges", dg.edges}, {"input", toString(inputType)}, {"nodes", nodes}, {"mutations", mutations}};
    if (!config_.net.empty()) {
      out_.meta["depth"] = graphDepth(out_.graph);
      out_.meta["sequences"] = placedChains_;
    }
    return std::move(out_);
  }

 private:
  TensorType sampleInputType() {
    const Limits& limits = config_.limits;
    const DType dtype = opsupport::sampleDType(rng_, limits, opsupport::kAllTypes);
    if (!config_.net.inputShapes.empty()) return {dtype, rng_.pick(config_.net.inputShapes)};
    const int rank = rng_.bernoulli(0.5) ? std::min(4, limits.maxRank)
                                         : static_cast<int>(rng_.uniformInt(std::min(1, limits.maxRank), limits.maxRank));
    return {dtype, opsupport::sampleShape(rng_, limits, rank)};
  }

  /// Tensor Shape Mutation: one dimension takes another size, or the rank grows or shrinks by one.
  void mutateShape(Shape& shape) {
    const Limits& limits = config_.limits;
    const bool resize = !shape.empty() && limits.minDim < limits.maxDim && rng_.bernoulli(0.5);
    if (resize) {
      int64_t& dim = shape[static_cast<size_t>(rng_.uniformInt(0, static_cast<int64_t>(shape.size()) - 1))];
      int64_t next = rng_.uniformInt(limits.minDim, limits.maxDim - 1);
      dim = next >= dim ? next + 1 : next;
    } else if (!shape.empty() && (static_cast<int>(shape.size()) >= limits.maxRank || rng_.bernoulli(0.5))) {
      shape.erase(shape.begin() + rng_.uniformInt(0, static_cast<int64_t>(shape.size()) - 1));
    } else if (static_cast<int>(shape.size()) < limits.maxRank) {
      shape.insert(shape.begin() + rng_.uniformInt(0, static_cast<int64_t>(shape.size())),
                   rng_.uniformInt(limits.minDim, limits.maxDim));
    }
  }

  double weightOf(const Block& b) const {
    if (choices_) return choices_->weight[static_cast<size_t>(&b - corpus_.blocks().data())];
    if (!b.isSubgraph()) {
      // Operators with bodies are built by the isra generator only (gen/control_flow.h).
      if (const OpSpec* spec = findOp(b.name); spec && !spec->bodies.empty()) return 0.0;
      auto it = opWeight_.find(b.name);
      return it == opWeight_.end() ? 0.0 : it->second;
    }
    if (!b.recipe) return 0.0;
    for (const std::string& m : b.members)
      if (!opWeight_.count(m)) return 0.0;  // a member the config excludes
    return settings_.subgraphWeight;
  }

  bool fits(const Block& b, int d) const {
    if (choices_ && d < kSharedDegrees)
      return choices_->fits[static_cast<size_t>(d)][static_cast<size_t>(&b - corpus_.blocks().data())];
    if (b.isSubgraph()) return b.recipe && b.recipe->numInputs() == d;
    const OpSpec* spec = findOp(b.name);
    return spec && usableUnder(*spec, config_.limits) && std::binary_search(b.inDegrees.begin(), b.inDegrees.end(), d) &&
           operatorRecipe(*spec, d);
  }

  /// A block for in-degree d: an unplaced preferred one first, then the preferred set, then
  /// the whole corpus by weight; variadic operators when no block lists d.
  int drawBlock(int d, int attempt) {
    std::vector<int> pool;
    std::vector<double> weights;
    auto consider = [&](int i, bool variadic) {
      const Block& b = corpus_.blocks()[static_cast<size_t>(i)];
      const double w = weightOf(b);
      if (w <= 0) return;
      if (variadic ? (b.isSubgraph() || !findOp(b.name) || findOp(b.name)->maxInputs < d) : !fits(b, d)) return;
      pool.push_back(i);
      weights.push_back(w);
    };
    if (attempt < kAttemptsPerNode / 2) {
      for (int i : preferred_)
        if (!std::count(out_.blocksUsed.begin(), out_.blocksUsed.end(), i)) consider(i, false);
      if (pool.empty())
        for (int i : preferred_) consider(i, false);
    }
    if (!pool.empty()) return pool[rng_.weighted(weights)];
    // The whole corpus's candidates for d: shared across models, or (rare high in-degrees)
    // worked out once per model.
    const auto& [all, allWeights] = choices_ && d < kSharedDegrees
                                        ? choices_->byDegree[static_cast<size_t>(d)]
                                        : candidates_.try_emplace(d, wholeCorpusPool(d)).first->second;
    if (all.empty()) return -1;
    return all[rng_.weighted(allWeights)];
  }

  /// Every corpus block that takes in-degree d, with its weight; the variadic operators when
  /// no block lists d.
  std::pair<std::vector<int>, std::vector<double>> wholeCorpusPool(int d) const {
    std::vector<int> pool;
    std::vector<double> weights;
    const auto blocks = corpus_.blocks();
    for (bool variadic : {false, true}) {
      if (!pool.empty()) break;
      for (size_t i = 0; i < blocks.size(); ++i) {
        const Block& b = blocks[i];
        const double w = weightOf(b);
        if (w <= 0) continue;
        if (variadic ? (b.isSubgraph() || !findOp(b.name) || findOp(b.name)->maxInputs < d) : !fits(b, d)) continue;
        pool.push_back(static_cast<int>(i));
        weights.push_back(w);
      }
    }
    return {std::move(pool), std::move(weights)};
  }

  json placeNode(int v, const std::vector<ValueId>& inputs, double r, json& mutations, std::vector<ValueId>& outputs) {
    const int d = static_cast<int>(inputs.size());
    for (auto [it, end] = chainAt_.equal_range(v); it != end; ++it)
      for (int attempt = 0; attempt < kChainAttempts; ++attempt)  // parameter limits may reject most draws
        if (std::optional<Placement> placed = placeSequence(builder_, config_, *it->second, inputs.front(), rng_)) {
          placedChains_.push_back({{"ops", it->second->text()}, {"nodes", placed->members}});
          return record(v, it->second->text(), -1, d, *placed, nullptr, outputs);
        }
    for (int attempt = 0; attempt < kAttemptsPerNode; ++attempt) {
      ++out_.attempts;
      const int index = drawBlock(d, attempt);
      if (index < 0) break;
      const Block& block = corpus_.blocks()[static_cast<size_t>(index)];
      std::optional<SubgraphTemplate> recipe;
      json nodeMutations = json::array();
      if (block.isSubgraph()) {
        recipe = *block.recipe;
        if (r > 0 && settings_.nodesAdd && rng_.bernoulli(r)) {
          recipe = duplicateMember(*recipe, rng_);
          nodeMutations.push_back({{"kind", "nodes_add"}, {"node", v}, {"block", block.name}});
        }
        if (r > 0 && settings_.nodesRemove && rng_.bernoulli(r))
          if (auto fewer = dropMember(*recipe, rng_)) {
            recipe = std::move(fewer);
            nodeMutations.push_back({{"kind", "nodes_remove"}, {"node", v}, {"block", block.name}});
          }
      } else {
        recipe = operatorRecipe(*findOp(block.name), d);
        if (!recipe) continue;
      }
      PlaceRequest request{&*recipe, !block.isSubgraph(), inputs, r > 0 && settings_.parameter && rng_.bernoulli(r)};
      std::optional<Placement> placed = placeBlock(builder_, config_, request, rng_);
      if (!placed && request.mutateParameter) {
        request.mutateParameter = false;
        placed = placeBlock(builder_, config_, request, rng_);
      }
      if (!placed) continue;
      for (auto& m : nodeMutations) mutations.push_back(std::move(m));
      if (!placed->parameterMutation.is_null()) {
        json pm = placed->parameterMutation;
        pm["kind"] = "parameter";
        pm["node"] = v;
        mutations.push_back(std::move(pm));
      }
      if (!std::count(out_.blocksUsed.begin(), out_.blocksUsed.end(), index)) out_.blocksUsed.push_back(index);
      return record(v, block.name, index, d, *placed, block.isSubgraph() && recipe->members.size() != block.members.size()
                                                        ? &*recipe : nullptr, outputs);
    }
    // Nothing fitted: the node passes its first input on, and its other edges are dropped.
    const auto identity = operatorRecipe(*findOp("Identity"), 1);
    PlaceRequest request{&*identity, true, std::span<const ValueId>(inputs.data(), 1), false};
    std::optional<Placement> placed = placeBlock(builder_, config_, request, rng_);
    if (!placed) throw Error("graph generator: Identity could not be placed");
    json node = record(v, "Identity", -1, d, *placed, nullptr, outputs);
    node["fallback"] = true;
    return node;
  }

  json record(int v, const std::string& name, int index, int d, const Placement& placed, const SubgraphTemplate* mutated,
              std::vector<ValueId>& outputs) {
    outputs = placed.outputs;
    for (NodeId m : placed.members) memberNodes_.push_back(m);
    json node = {{"node", v}, {"block", name}, {"corpus_index", index}, {"in_degree", d}};
    if (!placed.helperOps.empty()) node["helpers"] = placed.helperOps;
    if (placed.samePadding) node["same_size_padding"] = placed.samePadding;
    if (mutated) {
      std::vector<std::string> ops;
      for (const MemberTemplate& m : mutated->members) ops.push_back(m.op);
      node["members"] = ops;
    }
    return node;
  }

  void finish() {
    Graph& g = out_.graph;
    std::vector<ValueId> outputs;
    for (NodeId id : memberNodes_)
      if (g.node(id).alive) appendGraphOutputs(g, id, rng_, outputs);
    g.setOutputs(outputs);
    g.removeUnused();
    for (ValueId v : g.inputs()) out_.inputs.push_back(pool_.data(v));
    for (ValueId v : outputs) {
      out_.outputs.push_back(pool_.data(v));
      out_.nonFinite = out_.nonFinite || !allFinite(out_.outputs.back());
    }
  }

  const GenConfig& config_;
  const GraphSettings& settings_;
  const BlockCorpus& corpus_;
  Rng& rng_;
  std::vector<int> preferred_;
  GeneratedCase out_;
  ValuePool pool_;
  EvalBuilder builder_;
  std::unordered_map<std::string_view, double> opWeight_;
  std::vector<NodeId> memberNodes_;
  std::multimap<int, const RequiredSequence*> chainAt_;  ///< digraph node -> the chain it holds
  json placedChains_ = json::array();
  std::map<int, std::pair<std::vector<int>, std::vector<double>>> candidates_;  ///< by in-degree
  std::shared_ptr<const BlockChoices> choices_;  ///< shared; null while they are being worked out

  friend std::shared_ptr<const BlockChoices> sharedChoices(const GenConfig&, const BlockCorpus&);
  /// Works BlockChoices out with this maker's own (uncached) rules.
  BlockChoices workOutChoices() {
    BlockChoices c;
    const auto blocks = corpus_.blocks();
    for (const Block& b : blocks) c.weight.push_back(weightOf(b));
    c.fits.resize(kSharedDegrees);
    for (int d = 0; d < kSharedDegrees; ++d) {
      for (const Block& b : blocks) c.fits[static_cast<size_t>(d)].push_back(fits(b, d));
      c.byDegree.push_back(wholeCorpusPool(d));
    }
    return c;
  }

 public:
  void useChoices(std::shared_ptr<const BlockChoices> choices) { choices_ = std::move(choices); }
};

/// The BlockChoices of (config, corpus), worked out on first use; thread-safe.
std::shared_ptr<const BlockChoices> sharedChoices(const GenConfig& config, const BlockCorpus& corpus) {
  static std::mutex mu;
  static std::unordered_map<uint64_t, std::shared_ptr<const BlockChoices>> cache;
  const uint64_t key = choicesKey(config, corpus);
  {
    std::lock_guard lock(mu);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  Rng unused(0);
  GraphModelMaker maker(config, corpus, {}, unused);
  auto choices = std::make_shared<const BlockChoices>(maker.workOutChoices());
  std::lock_guard lock(mu);
  if (cache.size() > 64) cache.clear();  // configs come and go in tests; campaigns use one or two
  return cache.emplace(key, std::move(choices)).first->second;
}

class GraphGen : public Generator {
 public:
  explicit GraphGen(const GenConfig& config) : config_(config) {}
  GeneratedCase generate(Rng& rng) const override { return generateGraphModel(config_, graphCorpus(config_), {}, rng); }

 private:
  const GenConfig& config_;
};

}  // namespace

GeneratedCase generateGraphModel(const GenConfig& config, const BlockCorpus& corpus, std::span<const int> preferred,
                                 Rng& rng) {
  const NetLimits& net = config.net;
  // The depth of a digraph of blocks is known only once built: draw models until one fits.
  constexpr int kDepthTries = 200;
  for (int attempt = 0; attempt < kDepthTries; ++attempt) {
    GraphModelMaker maker(config, corpus, preferred, rng);
    maker.useChoices(sharedChoices(config, corpus));
    GeneratedCase c = maker.make();
    if (net.minDepth == 0 && net.maxDepth == 0) return c;
    if (net.depthAllows(graphDepth(c.graph))) return c;
  }
  throw Error("graph generator: no model of depth in [" + std::to_string(net.minDepth) + ", " +
              std::to_string(net.maxDepth) + "] after " + std::to_string(kDepthTries) +
              " tries; widen limits.depth or change graph.blocks");
}

const BlockCorpus& graphCorpus(const GenConfig& config) {
  if (!config.graph.corpus) throw Error("graph generator: the config has no block corpus");
  return *config.graph.corpus;
}

std::unique_ptr<Generator> makeGraphGen(const GenConfig& config) { return std::make_unique<GraphGen>(config); }

}  // namespace nnfuzz
