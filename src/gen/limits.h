// limits.h - structure and parameter limits (Wu's struct_limit and param_limit files, seed
// 004 §4.1-4.2), one JSON object "limits" of the generation config honoured by every generator:
//
//   "limits": {
//     "depth": {"min": 3, "max": 12},                    // longest operator path, input to output
//     "sequences": [{"ops": ["Conv", "Gemm"], "p": 0.5}], // required chains, odds per model
//     "params": {"Conv": {"kernel_shape": {"min": 3, "max": 4}, "group": [1],
//                         "input1.dim0": {"min": 10, "max": 20}}},
//     "input_shapes": [[1, 16, 10, 10]]                    // shapes of fresh runtime inputs
//   }
//
// Depth is the number of operator nodes on the longest path from a graph input or weight to
// a graph output (helper operators the generator inserts count too).
//
// Sequences: each op's first operand is the previous op's result (aligned with helper
// operators when the previous result's type does not fit). Chains are merged at load, Wu's
// dadj_snake rule: when one chain ends with the operator another begins with, the two become
// one chain (Conv→Gemm + Gemm→MaxPool = Conv→Gemm→MaxPool) placed with the larger of their
// odds, so each original chain still occurs at least as often as asked; repeated until no
// two chains join (a chain never joins itself).
//
// Params narrow what the operators' own samplers draw; they never widen it: a node whose
// sampled attributes or weight dims fall outside is not generated (another draw replaces
// it), so a limit no input admits just removes the operator there. A limit on an attribute
// needs it present (a node leaving it to its ONNX default is not generated); list attributes
// (kernel_shape, pads) need every element within. "inputK.dimD" limits dimension D of
// operand K: Conv's num_output is "input1.dim0" (W is M x C/group x k...), Gemm's is
// "input1.dim1" (transB 0). A range is {"min": a, "max": b} (either end optional); a set is
// a list of values (numbers, or strings for string attributes).
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/graph.h"
#include "ops/op_spec.h"

namespace nnfuzz {

/// One limited parameter of one operator.
struct ParamLimit {
  std::string key;  ///< the attribute name, or "inputK.dimD"
  int operand = -1, dim = -1;  ///< for "inputK.dimD"
  std::optional<double> min, max;    ///< a range (when set is empty)
  std::vector<std::string> set;      ///< allowed values, text form (attrText, strings unquoted)

  bool allowsNumber(double v) const;
  bool allowsText(const std::string& text) const;
};

struct OpParamLimits {
  const OpSpec* op = nullptr;
  std::vector<ParamLimit> params;
};

struct RequiredSequence {
  std::vector<const OpSpec*> ops;
  double p = 1.0;
  std::string text() const;  ///< "Conv>Gemm"
};

struct NetLimits {
  int minDepth = 0, maxDepth = 0;  ///< maxDepth 0: no upper bound
  std::vector<RequiredSequence> sequences;  ///< merged chains
  std::vector<OpParamLimits> params;
  std::vector<Shape> inputShapes;  ///< empty: the generators' own shapes

  bool empty() const { return minDepth == 0 && maxDepth == 0 && sequences.empty() && params.empty() && inputShapes.empty(); }
  bool depthAllows(int depth) const { return depth >= minDepth && (maxDepth == 0 || depth <= maxDepth); }
  /// Does a node of `spec` with these operand types (nullptr = omitted) and attributes meet
  /// the parameter limits?
  bool paramsAllow(const OpSpec& spec, std::span<const TensorType* const> operands, const Attributes& attrs) const;
  /// Is `type` one a fresh runtime input may have (always, without input_shapes)?
  bool inputShapeAllows(const TensorType& type) const;
};

/// Narrows a node's sampled attributes to the parameter limits (Isra's step 3 done within
/// them): each limited attribute present has every element clamped into its range or, off
/// its set, replaced by a random member. True if anything changed; then shape inference
/// decides whether the node is still valid (a rejection, not a sampler bug, if not).
bool narrowAttributes(const NetLimits& limits, const OpSpec& spec, Attributes& attrs, Rng& rng);
/// A fresh type for operand `index` of `spec` drawn from `sample` until its dims meet the
/// "inputK.dimD" limits (a few tries); nullopt when no limit applies or no draw met them.
std::optional<TensorType> sampleWithinDims(const NetLimits& limits, const OpSpec& spec, int index,
                                           const std::function<TensorType(Rng&)>& sample, Rng& rng);

/// Parses the "limits" object; throws nnfuzz::Error with a one-line message naming the field.
NetLimits parseNetLimits(const nlohmann::json& json);
nlohmann::json netLimitsToJson(const NetLimits& limits);
/// Wu's chain merging (see above).
std::vector<RequiredSequence> mergeSequences(std::vector<RequiredSequence> sequences);

/// Longest operator path from a graph input or weight to each value, by value id.
std::vector<int> valueDepths(const Graph& graph);
/// The model's depth: the longest path to a graph output.
int graphDepth(const Graph& graph);

}  // namespace nnfuzz
