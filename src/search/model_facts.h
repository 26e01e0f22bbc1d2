// model_facts.h - one model reduced to what the coverage metrics read.
//
// Both metric sets look at the same things: each node's operator type, its operands
// (omitted ones marked), its results and who consumes them (with multiplicity: Add(x, x)
// consumes x twice), its attribute list and the shapes of its operands. ModelFacts holds
// exactly that, as flat arrays of ids and 64-bit digests, built either from a GraphIR
// graph (inside generation: no ONNX round trip) or from any ONNX model (offline: no
// registry needed, so unknown operators never stop it). For a graph g, the facts of g and
// of exportModel(g) give the same coverage; a test holds both builders to that.
//
// Two details exist only to reproduce Isra's script (criterion.py @9a70269, see
// shared/research/peers.md §1): `israSkip` marks the nodes of Isra's output tail, and
// `israShape` is the shape the script reads for an operand, which differs from the true
// shape where the script renames a graph output that other nodes consume.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "onnx/onnx_pb.h"
#include "gen/block_corpus.h"
#include "search/hash.h"

namespace nnfuzz::search {

/// An omitted optional operand in ModelFacts::operands.
inline constexpr uint32_t kOmitted = UINT32_MAX;

struct ModelFacts {
  struct Node {
    int32_t op = -1;       ///< corpus op index, or -1 when the corpus lacks the type
    uint32_t unknown = 0;  ///< when op < 0: index into unknownOps
    /// Name holds "flatten_node" or "concat_outputs" (Isra's output tail), or the node is in
    /// a body (Isra's script reads no bodies). Body nodes follow the main graph's nodes.
    bool israSkip = false;
    bool hasAttrs = false;
    uint64_t attrsInOrder = 0;  ///< digest of the attribute list as written (Isra compares lists)
    uint64_t attrsByName = 0;   ///< digest of the attributes sorted by name (Luo's "parameters")
    uint32_t operandBegin = 0, operandEnd = 0;  ///< range in `operands`
    uint32_t resultBegin = 0, resultEnd = 0;    ///< range in `results`
  };
  struct Value {
    int32_t producer = -1;     ///< producing node, -1 for inputs, initializers and dangling names
    bool graphOutput = false;  ///< a node result that the graph lists as an output
    uint64_t shape = kUnknownShape;      ///< digest of its shape
    uint64_t israShape = kUnknownShape;  ///< digest of the dims Isra's script reads for it
    uint32_t useBegin = 0, useEnd = 0;   ///< range in `uses`
  };

  std::vector<Node> nodes;  ///< in graph order
  std::vector<Value> values;
  std::vector<uint32_t> operands;  ///< value ids, kOmitted for an empty optional operand
  std::vector<uint32_t> results;   ///< value ids
  std::vector<uint32_t> uses;      ///< consuming node of each use, grouped by value, in node order
  std::vector<std::string> unknownOps;  ///< op types outside the corpus, first-seen order
  std::vector<uint32_t> unknownCounts;  ///< nodes of each unknownOps entry

  /// Empties everything but keeps the capacity (the tracker reuses one ModelFacts).
  void clear();
  /// Number of non-empty operands: the in-degree both sources use.
  int nonEmptyOperands(const Node& n) const;
  /// Total uses of the node's results by other nodes: Luo's out-degree.
  int consumerEdges(const Node& n) const;
};

/// Fills `out` from a GraphIR graph (live nodes in order).
void factsFromGraph(const Graph& graph, const BlockCorpus& corpus, ModelFacts& out);

/// Fills `out` from an ONNX model of any operators and domains. Shapes come from the
/// initializers, graph inputs and outputs and value_info, completed by ONNX shape inference
/// (non-strict: nodes it cannot infer keep unknown shapes) unless every node result is
/// already declared. Takes the model by value because inference adds to it.
void factsFromOnnx(onnx::ModelProto model, const BlockCorpus& corpus, ModelFacts& out);

namespace detail {
/// Groups every non-omitted operand use by value into `uses` (the builders' last step).
void finishUses(ModelFacts& facts);
/// Records a node's operator: its corpus index or an unknown-op entry.
void setOperator(ModelFacts& facts, ModelFacts::Node& node, const BlockCorpus& corpus, const std::string& type);
/// Digest of one attribute (name, ONNX AttributeProto type code, value), shared by both
/// builders so a GraphIR attribute and its exported proto agree.
class AttrDigest {
 public:
  AttrDigest(const std::string& name, int type) { h_.addString(name).add(static_cast<uint64_t>(type)); }
  Hasher& hasher() { return h_; }
  uint64_t digest() const { return h_.digest(); }

 private:
  Hasher h_;
};
/// Folds per-attribute digests into a list digest.
uint64_t listDigest(const std::vector<uint64_t>& digests);
}  // namespace detail

}  // namespace nnfuzz::search
