// op_spec.h - what nnfuzz knows about one operator.
//
// One OpSpec per ONNX operator, defined in one file per operator or small family
// (src/ops/<family>.cpp) and listed once in ops.def. A spec holds, side by side:
//  - the signature (arity, dtypes and ranks of the first input, which inputs are constants),
//  - the syntactic attribute domains (for the blind baseline generators and docs),
//  - the Isra-order sampler: accept/sample the first input, sample attributes given it,
//    then give the pattern each further input must meet given everything before it,
//  - shape inference, which is also the validity check (it rejects every invalid node),
//  - the reference kernel (double accumulation), value-domain needs and a stability check,
//  - the ONNX mapping: GraphIR attributes are the ONNX attributes, so the mapping is the
//    op type and the opset version of the schema we implement.
// Specs never own state and never touch global RNGs: everything comes in as arguments.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attributes.h"
#include "ir/tensor.h"
#include "support/rng.h"

namespace nnfuzz {

class Graph;

/// Runs a body graph on its formal inputs (in order) and returns its outputs. The
/// interpreter hands one to kernels of operators with bodies (If, Loop, Scan): the ops
/// library sits below the interpreter and cannot call it. The runner binds the body's
/// outer parameters to the node's captures itself.
using BodyRunner = std::function<std::vector<Tensor>(const Graph& body, const std::vector<const Tensor*>& formals)>;

/// Generation bounds every sampler honours (from the config).
struct Limits {
  int maxRank = 5;
  int64_t maxDim = 5;
  int64_t minDim = 1;
  std::vector<DType> dtypes{DType::Float32};  ///< dtypes the generator may create
  std::vector<double> dtypeWeights;           ///< relative odds per entry of dtypes (empty: equal)
};

/// The values an operand may hold (checked against concrete data during generation and
/// used to sample fresh inputs and weights).
struct ValueRange {
  double lo = -2.0;
  double hi = 2.0;
  double minMagnitude = 0.0;  ///< |x| >= minMagnitude (e.g. divisors); 0 = no need
  bool operator==(const ValueRange&) const = default;
};

/// The default range of fresh values of a dtype (ints small so products stay exact).
ValueRange defaultRange(DType dtype);

/// The constraint a further input must meet, computed after the first input and the
/// attributes (and any earlier inputs) are fixed.
struct InputPattern {
  /// Types this operand accepts; an existing value of such a type may be reused.
  std::function<bool(const TensorType&)> accepts;
  /// Samples a fresh type for which accepts() holds (a new input or weight gets it).
  std::function<TensorType(Rng&)> sample;
  /// Fixed contents: the operand must be a new weight holding exactly this (shape
  /// arguments, axes, pads, ...). accepts/sample are unused then.
  std::optional<Tensor> constant;
  /// Leave this optional operand empty.
  bool omit = false;
  /// The values the operand may hold.
  ValueRange range;

  static InputPattern omitted() {
    InputPattern p;
    p.omit = true;
    return p;
  }
  static InputPattern constantTensor(Tensor t) {
    InputPattern p;
    p.constant = std::move(t);
    return p;
  }
  /// Exactly this type.
  static InputPattern exactly(TensorType type, ValueRange range);
};

/// An operation being instantiated in Isra's order. Samplers read the chosen input types
/// and write attributes.
struct OpDraft {
  int arity = 1;                       ///< number of operand slots (step 1)
  std::vector<TensorType> inputTypes;  ///< chosen so far; size() == index being sampled
  SmallVector<bool, 8> omitted;        ///< per chosen operand: left empty
  /// Per chosen operand: its fixed contents if a constant, else null (they live in the
  /// instantiation's operands, which outlive the draft).
  SmallVector<const Tensor*, 8> constants;
  Attributes attrs;
  const Limits* limits = nullptr;
  Rng* rng = nullptr;

  const TensorType& first() const { return inputTypes.front(); }
};

/// A node's operand types and constant contents as callers gather them (for inferNode,
/// NodeView, GenConfig::avoids): per node and per draw, so inline up to 8 operands.
using OperandTypes = SmallVector<const TensorType*, 8>;
using OperandConstants = SmallVector<const Tensor*, 8>;

/// Shape inference input: types of operands (nullptr if omitted) and the contents of those
/// that are constants (weights; nullptr otherwise).
struct InferArgs {
  std::span<const TensorType* const> inputs;
  std::span<const Tensor* const> constants;
  const Attributes& attrs;
  int opsetVersion = 17;
};

/// Output types, or why the node is invalid.
struct InferResult {
  std::vector<TensorType> types;
  std::string error;
  bool ok() const { return error.empty(); }
  static InferResult fail(std::string why) { return {{}, std::move(why)}; }
};

/// A reference kernel call. Outputs arrive with their types set and data zero-filled to
/// the right size; the kernel writes exact double results, and the interpreter rounds
/// them to the output dtype.
struct KernelArgs {
  std::span<const Tensor* const> inputs;  ///< nullptr for omitted operands
  const Attributes& attrs;
  std::span<Tensor> outputs;
  const BodyRunner* runBody = nullptr;  ///< set for operators with bodies
};

/// What the reference's work estimate sees of a node before running it: operand types
/// (nullptr for omitted ones), attributes and result types.
struct WorkArgs {
  std::span<const TensorType* const> inputs;
  const Attributes& attrs;
  std::span<const TensorType> outputs;
};

/// Elements of a type, as a double (no overflow for absurd shapes).
inline double elementCount(const TensorType& t) {
  double n = 1;
  for (int64_t d : t.shape) n *= static_cast<double>(d);
  return n;
}

enum class AttrKind : uint8_t { Int, Float, String, Ints, Floats, Strings };

/// Syntactic domain of one attribute: what a blind generator may write.
struct AttrSpec {
  std::string_view name;
  AttrKind kind;
  double lo = 0, hi = 0;                  ///< value (or element) range for numbers
  int minLen = 0, maxLen = 0;             ///< list length range
  std::vector<std::string_view> choices;  ///< for strings (and each element of a string list)
};

/// Attribute domains for the blind generators (named fields avoid partial aggregates).
inline AttrSpec intAttr(std::string_view name, double lo, double hi) {
  AttrSpec a;
  a.name = name;
  a.kind = AttrKind::Int;
  a.lo = lo;
  a.hi = hi;
  return a;
}
inline AttrSpec floatAttr(std::string_view name, double lo, double hi) {
  AttrSpec a = intAttr(name, lo, hi);
  a.kind = AttrKind::Float;
  return a;
}
inline AttrSpec intsAttr(std::string_view name, double lo, double hi, int minLen, int maxLen) {
  AttrSpec a = intAttr(name, lo, hi);
  a.kind = AttrKind::Ints;
  a.minLen = minLen;
  a.maxLen = maxLen;
  return a;
}
inline AttrSpec stringAttr(std::string_view name, std::vector<std::string_view> choices) {
  AttrSpec a;
  a.name = name;
  a.kind = AttrKind::String;
  a.choices = std::move(choices);
  return a;
}

struct OpSpec {
  std::string_view name;  ///< ONNX op type, spelled as in the spec
  int sinceVersion = 1;   ///< version of the ONNX schema implemented (the one in force at opset 17)
  int minInputs = 1, maxInputs = 1;  ///< operand slots, optional ones included
  int maxGenInputs = 0;              ///< cap for variadic ops when generating (0 = maxInputs)
  std::vector<DType> dtypes;         ///< dtypes of the first input
  int minRank = 0, maxRank = 5;      ///< rank of the first input
  uint32_t constantInputs = 0;  ///< bit i: operand i must be a weight (shape-like argument)
  /// Operand 0 may be omitted (only Loop's M in ONNX); dtypes and ranks then check nothing.
  bool firstOptional = false;
  /// Bit i: result i is optional in the schema. An unused optional result that is no graph
  /// output is exported as an empty name (absent), and generators may leave it so.
  uint32_t optionalOutputs = 0;
  /// The operand whose dtype is the schema's main type parameter T (what backends register
  /// kernels by); configs that avoid (op, dtype) pairs look at this operand.
  int typeOperand = 0;
  std::vector<AttrSpec> attrs;  ///< attribute domains for blind sampling

  /// Extra conditions on the first input beyond dtype and rank (nullptr: none). When set,
  /// sampleFirst must be set too, so a fresh first input is sampled from the domain.
  bool (*acceptsFirst)(const TensorType&, const Limits&) = nullptr;
  TensorType (*sampleFirst)(Rng&, const Limits&, DType) = nullptr;
  /// When operand 0 must be a constant (constantInputs bit 0: Range's start,
  /// ConstantOfShape's shape): draws its contents; the generator makes it a fresh weight.
  Tensor (*sampleConstantFirst)(Rng&, const Limits&) = nullptr;
  /// The values the first input may hold, given nothing else (nullptr: defaultRange).
  ValueRange (*firstRange)(DType) = nullptr;
  /// Step 3: attributes given the first input (nullptr: no attributes).
  void (*sampleAttrs)(OpDraft&) = nullptr;
  /// Step 4: the pattern of operand draft.inputTypes.size() (>= 1).
  InputPattern (*nextInput)(const OpDraft&) = nullptr;

  InferResult (*infer)(const InferArgs&) = nullptr;
  void (*reference)(KernelArgs&) = nullptr;
  /// True when the result is too sensitive to float32 rounding of the inputs to compare
  /// (an input within a hair of a rounding, comparison or argmax boundary). nullptr: never.
  bool (*unstable)(const KernelArgs&) = nullptr;
  /// Elementary steps the reference kernel takes, for the interpreter's work budget, where
  /// it is far above the operands' and results' sizes (a contraction, a recurrence).
  /// nullptr: those sizes, times the kernel_shape window when the op has one.
  double (*work)(const WorkArgs&) = nullptr;

  /// Names of the graph attributes (If: else_branch, then_branch). An operator with bodies
  /// is built by the generators' control-flow builder, not by instantiateOp alone.
  std::vector<std::string_view> bodies;

  bool isConstantInput(int i) const { return i >= 0 && i < 32 && ((constantInputs >> i) & 1u); }
  bool isOptionalOutput(size_t i) const { return i < 32 && ((optionalOutputs >> i) & 1u); }
};

}  // namespace nnfuzz
