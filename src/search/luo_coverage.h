// luo_coverage.h - Luo et al.'s operator-level coverage (ICSE'21 §III-B, formulas 1-7).
//
// For each operator c of the corpus (n_t of them) over a test set I:
//   OTC_op = 1 if c occurs in I
//   IDC_op = |in-degrees of c seen| / |in-degrees the corpus allows for c|
//   ODC_op = |out-degrees of c seen| / |out-degrees allowed|
//   SEC_op = |operator types c feeds| / n_t
//   SPC_op = |distinct (operand shapes, parameters) vectors of c| / n_maxspc
//   OLC_op = the weighted mean of the five;
// and for I, each metric's mean over the n_t operators, OLC(I) their weighted mean.
//
// Definitions for ONNX graphs (the paper's are for TensorFlow graphs):
//  - in-degree: the non-empty operands (data flows in), weights included;
//  - out-degree: the uses of the node's results by other nodes (data flows out); a graph
//    output is not a data flow, so a node feeding only graph outputs has out-degree 0,
//    which Table I allows;
//  - the vector: the operand shapes in order (an omitted operand marked) and the
//    attributes by name; dtypes are not part of it.
// Operators outside the corpus are not measured (every denominator is the corpus's), but
// they do count as the neighbours they are in the in- and out-degrees of corpus operators.
// Degrees the corpus does not allow are not coverage (IDC and ODC stay <= 100%) and are
// reported separately. SPC_op saturates at 1: n_maxspc is the "expected maximum".
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "gen/block_corpus.h"
#include "search/model_facts.h"

namespace nnfuzz::search {

struct LuoOptions {
  int nMaxSpc = 200;  ///< the paper's experiments; its Table II example uses 10
  std::array<double, 5> opWeights{1, 1, 1, 1, 1};   ///< OLC_op weights of OTC IDC ODC SEC SPC
  std::array<double, 5> setWeights{1, 1, 1, 1, 1};  ///< OLC(I) weights
};

/// Coverage of one operator.
struct LuoOpRow {
  std::string op;
  int64_t nodes = 0;  ///< occurrences in the test set
  double otc = 0, idc = 0, odc = 0, sec = 0, spc = 0, olc = 0;
  std::vector<int> inDegrees, outDegrees;            ///< allowed degrees seen
  std::vector<int> otherInDegrees, otherOutDegrees;  ///< seen but not allowed by the corpus
  int successors = 0;      ///< distinct corpus operator types fed
  int64_t spcVectors = 0;  ///< distinct vectors (not capped)
};

struct LuoReport {
  std::vector<LuoOpRow> ops;  ///< corpus order
  double otc = 0, idc = 0, odc = 0, sec = 0, spc = 0, olc = 0;
  int nt = 0;
  int nMaxSpc = 0;
};

class LuoCoverage {
 public:
  LuoCoverage(const BlockCorpus& corpus, LuoOptions options);
  /// Whether adding the model would raise some metric with a non-zero weight.
  bool grows(const ModelFacts& facts) const;
  /// Adds the model; returns grows(facts) as it was before.
  bool add(const ModelFacts& facts);
  LuoReport report() const;

 private:
  struct OpState {
    uint64_t allowedIn = 0, allowedOut = 0;  ///< bit d: degree d allowed (d < 64)
    int numAllowedIn = 0, numAllowedOut = 0;
    uint64_t seenIn = 0, seenOut = 0;  ///< allowed degrees seen
    std::vector<int> otherIn, otherOut;
    std::vector<uint64_t> successors;  ///< bitset over op indices
    int numSuccessors = 0;
    int64_t spc = 0;
    int64_t nodes = 0;
  };
  bool weighted(int metric) const { return options_.opWeights[metric] > 0 || options_.setWeights[metric] > 0; }
  uint64_t spcKey(const ModelFacts& facts, const ModelFacts::Node& node) const;
  /// One pass over a model's corpus nodes: with a const Self it only asks whether something
  /// would grow (stopping at the first thing); otherwise it records everything.
  template <typename Self>
  static bool visit(Self& self, const ModelFacts& facts);

  std::vector<std::string> names_;
  LuoOptions options_;
  std::vector<OpState> ops_;
  std::unordered_set<uint64_t> spcSeen_;  ///< (op, vector) digests
};

}  // namespace nnfuzz::search
