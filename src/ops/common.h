// common.h - small helpers shared by operator files: broadcasting, index walking,
// axis normalisation, sampling shapes, and builders for elementwise families.
// Nothing here knows a particular operator.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ops/op_spec.h"

namespace nnfuzz::opsupport {

inline const std::vector<DType> kFloatTypes{DType::Float32, DType::Float64};
inline const std::vector<DType> kNumericTypes{DType::Float32, DType::Float64, DType::Int32,
                                              DType::Int64,   DType::Int8,    DType::UInt8};
inline const std::vector<DType> kSignedTypes{DType::Float32, DType::Float64, DType::Int32, DType::Int64,
                                             DType::Int8};
inline const std::vector<DType> kAllTypes{DType::Float32, DType::Float64, DType::Int32, DType::Int64,
                                          DType::Int8,    DType::UInt8,   DType::Bool};

inline bool contains(const std::vector<DType>& types, DType d) {  // inline: asked per reuse candidate
  return std::find(types.begin(), types.end(), d) != types.end();
}

/// Numpy-style (multidirectional) broadcast of two shapes, or nullopt if incompatible.
std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b);
/// Offset into a tensor of shape `from` for the element at `index` of the broadcast shape
/// `to` (from is right-aligned against to; dims of 1 repeat).
int64_t broadcastOffset(const Shape& from, const Shape& to, const std::vector<int64_t>& index);
/// Advances a row-major multi-index over `shape`; false when it wraps to all zeros.
inline bool nextIndex(std::vector<int64_t>& index, const Shape& shape) {  // in line: kernels call it per element
  for (size_t i = shape.size(); i-- > 0;) {
    if (++index[i] < shape[i]) return true;
    index[i] = 0;
  }
  return false;
}

/// Walks the elements of a broadcast result `to` in row-major order, keeping for each
/// operand shape the offset broadcastOffset would give, updated in O(1) a step: kernels
/// call it per element.
class BroadcastWalk {
 public:
  BroadcastWalk(const Shape& to, std::span<const Shape* const> from);
  /// The offset into operand k of the current element.
  int64_t offset(size_t k) const { return offsets_[k]; }
  /// Moves to the next element; false (all offsets back at 0) after the last.
  bool next() {
    // Along the innermost dim, in line: a call per element cost more than the step.
    const size_t rank = to_.size();
    if (rank == 0) return false;
    if (++index_[rank - 1] < to_[rank - 1]) {
      for (size_t k = 0; k < offsets_.size(); ++k) offsets_[k] += strides_[k * rank + rank - 1];
      return true;
    }
    return carry();
  }

 private:
  /// next() past the end of the innermost dim: back to its start, one step on the next one out.
  bool carry();
  const Shape& to_;
  std::vector<int64_t> index_;
  std::vector<int64_t> offsets_;
  std::vector<int64_t> strides_;  // [k * rank + i]: operand k's step along dim i of `to` (0 if broadcast)
};

/// Normalises an axis in [-rank, rank) to [0, rank); nullopt when out of range.
std::optional<int> normalizeAxis(int64_t axis, int rank);

/// A random shape of the given rank with dims in [limits.minDim, limits.maxDim].
Shape sampleShape(Rng& rng, const Limits& limits, int rank);
/// A random dtype from `allowed` that the generator may create (limits.dtypes), or the
/// first of `allowed` if none is.
DType sampleDType(Rng& rng, const Limits& limits, const std::vector<DType>& allowed);

/// A shape that broadcasts with `shape` without changing the result (dims copied or set
/// to 1, leading dims possibly dropped) — what a second elementwise operand looks like.
Shape sampleBroadcastableTo(Rng& rng, const Shape& shape);
/// Pattern for the further operands of a multidirectional-broadcast op: same dtype,
/// broadcast-compatible with `with`, rank <= limits.maxRank.
InputPattern broadcastPattern(const TensorType& with, const Limits& limits, ValueRange range);

/// Shape inference of an elementwise op whose operands all broadcast together; all
/// operands must share the first one's dtype; `outDType` overrides the result dtype.
/// (inferNode has already checked the first input's dtype and rank against the spec.)
InferResult inferBroadcast(const InferArgs& args, std::optional<DType> outDType = std::nullopt);
/// Shape inference of a one-input op whose result has the input's type.
InferResult inferSameAsFirst(const InferArgs& args);

/// A one-input elementwise op whose result has the input's type; set firstRange,
/// unstable or attributes on the returned spec where the op needs them.
OpSpec unarySpec(std::string_view name, int sinceVersion, std::vector<DType> dtypes, void (*reference)(KernelArgs&));

/// Kernel applying F to every element (for unarySpec).
template <double (*F)(double)>
void mapKernel(KernelArgs& args) {
  const Tensor& in = *args.inputs[0];
  Tensor& out = args.outputs[0];
  for (size_t i = 0; i < in.data.size(); ++i) out.data[i] = F(in.data[i]);
}

/// Applies f elementwise over broadcast operands 0..n-1 into output 0.
template <typename F>
void broadcastKernel(KernelArgs& args, F f) {
  Tensor& out = args.outputs[0];
  if (out.numel() == 0) return;
  std::vector<double> operands(args.inputs.size());
  // Operands of the result's shape (most draws) read at the result's offset: no walk.
  const bool flatOperands = std::all_of(args.inputs.begin(), args.inputs.end(),
                                        [&](const Tensor* in) { return in->type.shape == out.type.shape; });
  if (flatOperands) {
    for (size_t flat = 0; flat < out.data.size(); ++flat) {
      for (size_t k = 0; k < args.inputs.size(); ++k) operands[k] = args.inputs[k]->data[flat];
      out.data[flat] = f(operands);
    }
    return;
  }
  std::vector<const Shape*> shapes;
  for (const Tensor* in : args.inputs) shapes.push_back(&in->type.shape);
  BroadcastWalk walk(out.type.shape, shapes);
  int64_t flat = 0;
  do {
    for (size_t k = 0; k < args.inputs.size(); ++k)
      operands[k] = args.inputs[k]->data[static_cast<size_t>(walk.offset(k))];
    out.data[static_cast<size_t>(flat++)] = f(operands);
  } while (walk.next());
}

/// A binary broadcast kernel from a scalar function.
template <double (*F)(double, double)>
void binaryKernel(KernelArgs& a) {
  broadcastKernel(a, [](const std::vector<double>& v) { return F(v[0], v[1]); });
}

/// Distance from x to the nearest point in the discontinuity set of a rounding function
/// (integers for floor/ceil, half-integers for round).
inline double distanceToInteger(double x) { return std::abs(x - std::round(x)); }

/// A margin below which a float32 input is too close to a discontinuity to compare.
inline constexpr double kStabilityMargin = 1e-3;

/// The first input of an operator whose output saturates or stays linear (Sigmoid, Tanh,
/// Elu, ...): wide enough to reach the saturated regions, where kernels switch formulas.
inline ValueRange saturatingRange(DType) { return {-20.0, 20.0, 0.0}; }
inline OpSpec saturating(OpSpec s) {
  s.firstRange = saturatingRange;
  return s;
}

}  // namespace nnfuzz::opsupport
