// block_template.h - a subgraph block's recipe: its member operators, where each operand
// of each member comes from, fixed and derived attributes, and which member results are the
// block's outputs.
//
// JSON (one block of a corpus file, see block_corpus.h):
//   {"name": "Conv+BatchNormalization", "targets": ["onnxruntime:ConvBNFusion"],
//    "members": [{"op": "Conv", "inputs": ["in:0", "w", "w"]},
//                {"op": "BatchNormalization", "inputs": ["m:0", "w", "w", "w", "c:1"],
//                 "attrs": {"epsilon": 0.001}}],
//    "outputs": ["m:1"]}
// An operand is "in:K" (block input K), "m:J" or "m:J.O" (output O of member J < this one),
// "w" (a fresh weight), "x" (a fresh runtime input), "c:V" (a fresh weight whose every
// element is V), "none" (an optional operand left empty) or "default" (Isra's
// instantiation decides). The list's length is the member's operand count. "derive" gives
// attributes computed from other members: {"perm": "inverse_of:J"} (the inverse of member
// J's Transpose perm) and {"perm": "swap_last_two"}.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/attributes.h"

namespace nnfuzz {

/// Where one operand of a subgraph member comes from.
struct OperandRef {
  enum class Kind : uint8_t { BlockInput, Member, Weight, Input, Constant, Omitted, Default };
  Kind kind = Kind::Default;
  int index = 0;     ///< BlockInput: the block input; Member: the member
  int output = 0;    ///< Member: which of its results
  double value = 0;  ///< Constant: the value of every element
  bool operator==(const OperandRef&) const = default;
  /// A data flow from outside the operand itself (a block input or another member).
  bool isFlow() const { return kind == Kind::BlockInput || kind == Kind::Member; }
};

/// Parses "in:0", "m:2.1", "w", "x", "c:0.5", "none", "default"; throws nnfuzz::Error.
OperandRef parseOperandRef(std::string_view text);
/// The text form parseOperandRef reads.
std::string operandRefText(const OperandRef& ref);

/// One operator of a subgraph block.
struct MemberTemplate {
  std::string op;
  std::vector<OperandRef> operands;  ///< one per operand slot
  Attributes attrs;                  ///< fixed attribute values, set over the sampled ones
  std::vector<std::pair<std::string, std::string>> derived;  ///< attribute name, rule
};

/// A subgraph block's recipe.
struct SubgraphTemplate {
  std::vector<MemberTemplate> members;
  std::vector<OperandRef> outputs;  ///< Member refs: the block's results, in order

  /// The number of block inputs (distinct "in:K" refs; they are 0..K-1).
  int numInputs() const;
  /// (src, dst) member pairs, one per member operand that is another member's result.
  std::vector<std::pair<int, int>> innerEdges() const;
  /// Throws nnfuzz::Error (naming `block`) if a ref is out of range or points forward,
  /// block inputs are not 0..K-1, an operator is unknown or given too many operands, or a
  /// derive rule is unknown.
  void validate(const std::string& block) const;
};

/// Reads "members", "outputs" (default: the last member's first result) of a block object.
SubgraphTemplate readTemplate(const nlohmann::ordered_json& block, const std::string& name);
/// Writes "members" and "outputs" into `block`.
void writeTemplate(const SubgraphTemplate& tmpl, nlohmann::ordered_json& block);

/// The recipe of an old-style subgraph block (members and inner edges only): each member
/// takes its inner edges' sources in order, members without one take the next block input,
/// missing required operands are left to Isra; members nothing reads are the outputs.
/// nullopt when a member is not a registered operator or cannot take its edges.
std::optional<SubgraphTemplate> templateFromEdges(const std::vector<std::string>& members,
                                                  const std::vector<std::pair<int, int>>& edges);

/// Applies a derive rule to a member's attributes given the attributes its block's earlier
/// members ended up with; false when it cannot apply (then the sampled value stays).
bool applyDerivedAttr(const std::string& name, const std::string& rule, const std::vector<Attributes>& earlier,
                      int firstInputRank, Attributes& attrs);

}  // namespace nnfuzz
