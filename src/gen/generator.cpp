#include "gen/generator.h"

#include "gen/generators.h"

namespace nnfuzz {

std::vector<std::string> GeneratedCase::opTypes() const {
  std::vector<std::string> ops;
  for (NodeId id : graph.nodes()) ops.push_back(qualifiedOp(graph.node(id)));
  return ops;
}

std::unique_ptr<Generator> makeGenerator(const GenConfig& config) {
  if (config.generator == "declgen") return makeDeclGen(config);
  if (config.generator == "randoop") return makeRandoopGen(config);
  if (config.generator == "graph") return makeGraphGen(config);
  if (config.generator == "neuri") return makeNeuriGen(config);
  return makeIsraGen(config);
}

uint64_t caseSeed(uint64_t seed, uint64_t index) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ULL + index + 0x632be59bd9b4e019ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

GeneratedCase generateCase(const GenConfig& config, uint64_t index) {
  Rng rng(caseSeed(config.seed, index));
  return makeGenerator(config)->generate(rng);
}

}  // namespace nnfuzz
