// isra_coverage.h - Isra's diversity metrics (Ren et al., SCIS 2025, §4.3), computed as
// the authors' script computes them (criterion.py @9a70269; shared/research/peers.md §1).
//
// Per operator type o of the corpus (n_C of them), over the whole test set:
//   in-degrees   min(#non-empty operands, 5), raised to o's smallest corpus in-degree
//   out-degrees  per result: 1 if it is a graph output, else max(1, #uses); summed, minus
//                the uses by operators outside the corpus, clamped to [1, 12]
//   successors   corpus types fed through results that are not graph outputs
//   pairs        (successor, successor-of-successor) types, the same way
//   attributes   distinct attribute lists (in written order; an empty list is not one)
//   shapes       distinct operand shapes (any position)
// and the test-set values, each a sum over the operators divided by n_C (unseen: 0):
//   OTC = #types seen / n_C            IDC = sum(|in-degrees| / |corpus in-degrees|) / n_C
//   ODC = sum(|out-degrees|) / n_C     (a count, not Luo's ratio)
//   SEC = sum(|successors| / n_C) / n_C
//   DEC = sum(|pairs| / n_C^2) / n_C
//   SAC = sum(|attributes| + |shapes|) / n_C   (the script's "SPC"; not normalised)
// Per model, then averaged over the models: NOO corpus nodes, NOT distinct corpus types,
// NOP distinct (type, type) edges, NTR distinct type triples along paths, NSA distinct
// operand shapes of the model (all operators) plus its attribute lists new to the test
// set, so NSA depends on the order models are added.
//
// Operators outside the corpus are ignored as nodes (not in NOO/NOT/NOP/NTR, not
// successors) and subtracted from out-degrees, but their operand shapes count in NSA.
// Nodes of Isra's output tail (named flatten_node* / concat_outputs) are skipped, and a
// graph output's consumers are invisible to the script (it renames the tensor), as there.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "gen/block_corpus.h"
#include "search/model_facts.h"

namespace nnfuzz::search {

/// Isra's caps (criterion.py): INFINITE_INPUT and MAX_OUTPUT.
inline constexpr int kIsraMaxInDegree = 5;
inline constexpr int kIsraMaxOutDegree = 12;

struct IsraOpRow {
  std::string op;
  int64_t nodes = 0;
  double idc = 0, sec = 0, dec = 0;
  int odc = 0;      ///< |out-degrees seen|
  int64_t sac = 0;  ///< attributes + shapes
  std::vector<int> inDegrees, outDegrees;
  int successors = 0;
  int64_t pairs = 0, attributes = 0, shapes = 0;
};

struct IsraReport {
  std::vector<IsraOpRow> ops;  ///< corpus order
  double otc = 0, idc = 0, odc = 0, sec = 0, dec = 0, sac = 0;
  double noo = 0, notypes = 0, nop = 0, ntr = 0, nsa = 0;  ///< per-model averages
  int64_t models = 0;
  int nc = 0;
};

class IsraCoverage {
 public:
  explicit IsraCoverage(const BlockCorpus& corpus);
  /// Whether the model would add to some per-operator set (the graph-level numbers are
  /// averages, not coverage).
  bool grows(const ModelFacts& facts) const;
  /// Adds the model (also to the per-model averages); returns grows(facts) as it was.
  bool add(const ModelFacts& facts);
  IsraReport report() const;

 private:
  struct OpState {
    int minIn = 0, numAllowedIn = 1;
    uint64_t seenIn = 0, seenOut = 0;  ///< bit d: degree d seen
    std::vector<uint64_t> successors;  ///< bitset over op indices
    int numSuccessors = 0;
    int64_t pairs = 0, attributes = 0, shapes = 0;
    int64_t nodes = 0;
  };
  template <typename Self>
  static bool visit(Self& self, const ModelFacts& facts);
  void addGraphLevel(const ModelFacts& facts, int64_t newAttributes);
  bool counts(const ModelFacts& facts, uint32_t node) const {
    return facts.nodes[node].op >= 0 && !facts.nodes[node].israSkip;
  }

  std::vector<std::string> names_;
  std::vector<OpState> ops_;
  std::unordered_set<uint64_t> pairsSeen_, attrsSeen_, shapesSeen_;  ///< keyed with the op
  double sums_[5] = {0, 0, 0, 0, 0};  ///< NOO NOT NOP NTR NSA over the models
  int64_t models_ = 0;
  std::vector<uint64_t> scratch_;  ///< per-model distinct sets (sorted, then counted)
};

}  // namespace nnfuzz::search
