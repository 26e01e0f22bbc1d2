// block_corpus.h - Luo's block corpus: the operators (and small subgraphs) a test set is
// measured against and the graph generator builds models from.
//
// A block (Luo et al., ICSE'21, §III-A/§III-D) has a name, the allowed in-degrees, the
// allowed out-degrees and, for a subgraph, its inner edges. A subgraph's name is its
// operator sequence joined by '+' ("Conv+Relu+Pow+Concat") and each inner edge is a pair of
// member indices; edges may repeat (Luo's Conv+Conv+Add+Add has (2,3) twice). The coverage
// metrics are operator-level: n_t is the number of operator blocks, and every member of a
// subgraph must also be an operator block. Subgraph blocks are for the block chooser and the
// graph generator, which builds them from their recipe (block_template.h): a block listing
// "members" says where each operand of each member comes from, and its in-degree, name
// members and inner edges follow from that; an old-style subgraph (name and inner edges
// only) gets a recipe derived from its edges. "targets" names the optimizer passes a block
// aims at ("onnxruntime:ConvBNFusion"); the generator only records them.
//
// JSON (what --corpus reads and saveCorpus writes):
//   {"blocks": [
//     {"name": "Relu", "in_degree": [1], "out_degree": [0, 1, 2]},
//     {"name": "Conv+Relu+Pow+Concat", "in_degree": [2], "out_degree": [0, 1, 2],
//      "inner_edges": [[0, 1], [1, 3], [2, 3]]},
//     {"name": "Conv+Relu", "targets": ["onnxruntime:ConvActivationFusion"],
//      "members": [{"op": "Conv", "inputs": ["in:0", "w", "w"]}, {"op": "Relu", "inputs": ["m:0"]}]}]}
// Isra's bc.json layout ({"Relu": {"in_degree": [1], "out_degree": [...]}, ...}) is read
// too, so a peer's operator set can be used as is.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gen/block_template.h"

namespace nnfuzz {

/// One block of the corpus.
struct Block {
  std::string name;
  std::vector<int> inDegrees;   ///< allowed in-degrees, sorted, distinct
  std::vector<int> outDegrees;  ///< allowed out-degrees, sorted, distinct
  std::vector<std::string> members;              ///< the operators: {name} for an operator block
  std::vector<std::pair<int, int>> innerEdges;  ///< (src, dst) member indices; subgraphs only
  /// How the generator builds a subgraph (none for operators and for old-style subgraphs
  /// whose edges give no buildable recipe).
  std::optional<SubgraphTemplate> recipe = std::nullopt;
  std::vector<std::string> targets = {};  ///< optimizer passes the block aims at, "sut:pass"
  bool isSubgraph() const { return members.size() > 1; }
};

/// A validated block corpus with an operator index.
class BlockCorpus {
 public:
  /// Validates the blocks (unique names, non-empty degree sets, subgraph members are
  /// operator blocks, edges in range); throws nnfuzz::Error naming the bad block.
  explicit BlockCorpus(std::vector<Block> blocks);

  std::span<const Block> blocks() const { return blocks_; }
  /// n_t: the number of operator (non-subgraph) blocks.
  int numOps() const { return static_cast<int>(opBlocks_.size()); }
  /// The operator block of op index `op` (0 <= op < numOps(), corpus order).
  const Block& op(int op) const { return blocks_[static_cast<size_t>(opBlocks_[static_cast<size_t>(op)])]; }
  /// The op index of an operator type, or -1 when the corpus has no such operator block.
  int opIndex(std::string_view type) const;

 private:
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<Block> blocks_;
  std::vector<int> opBlocks_;
  std::unordered_map<std::string, int, StringHash, std::equal_to<>> opIndex_;
};

/// Degrees a corpus may list: 0..kMaxDegree (the metrics keep degree sets as 64-bit masks).
inline constexpr int kMaxDegree = 63;
/// Variadic operators list in-degrees up to this (Isra's INFINITE_INPUT is 5 as well).
inline constexpr int kMaxListedInDegree = 5;
/// Out-degrees the default corpus allows: {0..5}, the range of Luo's experiments.
inline constexpr int kMaxDefaultOutDegree = 5;

/// The corpus of our operator library: one block per operator the default opset draws, with in-degrees
/// minInputs..min(maxInputs, kMaxListedInDegree) (optional operands included) and
/// out-degrees 0..kMaxDefaultOutDegree, plus Luo's Fig. 5 subgraphs when all their
/// operators are registered.
BlockCorpus defaultCorpus();

/// The graph generator's default corpus, config/blocks.json compiled in: every registered
/// operator (in-degrees: the operands a data flow may feed) and the subgraph patterns.
BlockCorpus builtinBlocks();

/// Reads either JSON layout (see the file comment); throws nnfuzz::Error.
BlockCorpus corpusFromJson(const nlohmann::ordered_json& json);
/// Loads a corpus file; throws nnfuzz::Error naming the file.
BlockCorpus loadCorpusFile(const std::filesystem::path& path);
/// The {"blocks": [...]} form.
nlohmann::ordered_json corpusToJson(const BlockCorpus& corpus);

}  // namespace nnfuzz
