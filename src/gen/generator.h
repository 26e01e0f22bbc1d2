// generator.h - model generators behind one interface.
//
// A generator turns (config, seed) into a GeneratedCase: a verified graph, the concrete
// input values, and the reference outputs. Case i of a run uses seed caseSeed(seed, i),
// so cases are independent, replayable one by one and can be made in parallel.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gen/config.h"
#include "ir/graph.h"

namespace nnfuzz {

struct GeneratedCase {
  Graph graph;
  std::vector<Tensor> inputs;   ///< one per runtime input, graph.inputs() order
  std::vector<Tensor> outputs;  ///< reference outputs, graph.outputs() order
  bool nonFinite = false;       ///< some reference output is NaN/Inf: not a normal test
  /// Graph outputs (indices) with no reference value: they depend on an opaque node (an
  /// operator without a spec, ops/registry.h); their `outputs` entries are zeros.
  std::vector<size_t> unreferenced;
  /// True when every output has a finite reference value: the test is judged against it.
  bool trusted() const { return !nonFinite && unreferenced.empty(); }
  int requestedOps = 0;         ///< the op count drawn for this case
  int attempts = 0;             ///< operator (isra/randoop) or graph (declgen) attempts made
  int unsoundOps = 0;           ///< instantiations a sampler got wrong (skipped); tests want 0
  std::string firstUnsound;     ///< what the first of them was
  std::vector<int> blocksUsed;  ///< graph generator: corpus block indices placed, first use order
  nlohmann::json meta;          ///< generator-specific facts for meta.json (null if none)
  std::vector<std::string> opTypes() const;
};

/// A generator keeps no state between cases (generate is const), so one instance serves a
/// whole run, from any number of threads, and case i is the same whichever instance makes it.
class Generator {
 public:
  virtual ~Generator() = default;
  virtual GeneratedCase generate(Rng& rng) const = 0;
};

/// The generator the config names. The config must have passed validateConfig.
std::unique_ptr<Generator> makeGenerator(const GenConfig& config);

/// The seed of case `index` of a run seeded with `seed`.
uint64_t caseSeed(uint64_t seed, uint64_t index);

/// Generates case `index` of a run: makeGenerator(config) with caseSeed(config.seed, index).
GeneratedCase generateCase(const GenConfig& config, uint64_t index);
/// The same with a generator made once for the run (making one costs as much as a small case).
GeneratedCase generateCase(const Generator& generator, uint64_t seed, uint64_t index);

}  // namespace nnfuzz
