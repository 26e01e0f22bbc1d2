#include "gen/generator.h"

#include "gen/generators.h"

#include <map>

#include "ops/opset_fit.h"
#include "ops/version_forms.h"
#include "support/error.h"

namespace nnfuzz {

std::vector<std::string> GeneratedCase::opTypes() const {
  std::vector<std::string> ops;
  for (NodeId id : graph.nodes()) ops.push_back(qualifiedOp(graph.node(id)));
  return ops;
}

namespace {

std::unique_ptr<Generator> makeNamed(const GenConfig& config) {
  if (config.generator == "declgen") return makeDeclGen(config);
  if (config.generator == "randoop") return makeRandoopGen(config);
  if (config.generator == "graph") return makeGraphGen(config);
  if (config.generator == "neuri") return makeNeuriGen(config);
  return makeIsraGen(config);
}

// The named generator at each target opset (the config's one, or its mix): operators the
// opset lacks are left out, and the model's graph records the opset it was made for.
class OpsetGen : public Generator {
 public:
  explicit OpsetGen(const GenConfig& config) {
    std::map<int, double> mix = config.opsetMix;
    if (mix.empty()) mix[config.opset] = 1.0;
    for (const auto& [opset, weight] : mix) {
      if (!(weight > 0)) continue;
      // Generators may keep a reference to their config: each keeps its own here.
      GenConfig& c = *configs_.emplace_back(std::make_unique<GenConfig>(config));
      c.opset = opset;
      c.opsetMix.clear();
      c.ops.clear();
      c.opWeights.clear();
      for (size_t k = 0; k < config.ops.size(); ++k)
        if (availableAt(config.ops[k]->name, opset)) {
          c.ops.push_back(config.ops[k]);
          c.opWeights.push_back(config.opWeights[k]);
        }
      opsets_.push_back(opset);
      weights_.push_back(weight);
      inner_.push_back(makeNamed(c));
    }
  }

  GeneratedCase generate(Rng& rng) const override {
    // A single opset draws nothing, so such runs keep their bytes.
    const size_t k = inner_.size() == 1 ? 0 : rng.weighted(weights_);
    // Nodes are drawn in the opset's forms; a pass that rewrites the graph afterwards (the
    // graph generator's mutations) may still leave one the opset cannot express: draw again.
    GeneratedCase c = inner_[k]->generate(rng);
    for (int redraw = 0; redraw < kRedraws && opsetMisfit(c.graph, opsets_[k]); ++redraw) c = inner_[k]->generate(rng);
    if (auto misfit = opsetMisfit(c.graph, opsets_[k])) throw Error("no model fits opset " + std::to_string(opsets_[k]) + ": " + *misfit);
    c.graph.setOpset(opsets_[k]);
    return c;
  }

 private:
  static constexpr int kRedraws = 20;
  std::vector<std::unique_ptr<GenConfig>> configs_;
  std::vector<int> opsets_;
  std::vector<double> weights_;
  std::vector<std::unique_ptr<Generator>> inner_;
};

}  // namespace

std::unique_ptr<Generator> makeGenerator(const GenConfig& config) { return std::make_unique<OpsetGen>(config); }

uint64_t caseSeed(uint64_t seed, uint64_t index) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ULL + index + 0x632be59bd9b4e019ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

GeneratedCase generateCase(const GenConfig& config, uint64_t index) {
  return generateCase(*makeGenerator(config), config.seed, index);
}

GeneratedCase generateCase(const Generator& generator, uint64_t seed, uint64_t index) {
  Rng rng(caseSeed(seed, index));
  return generator.generate(rng);
}

}  // namespace nnfuzz
