// nn_util.h - helpers shared by the neural-network operator files (conv, conv_transpose,
// pool, global_pool, batch_norm, gemm, matmul, softmax, reduce, argmax, topk, ...): attribute
// validation, walking lines along an axis, the window geometry of convolutions and pooling (auto_pad, pads, strides,
// dilations, ceil_mode) and axis lists.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ops/common.h"

namespace nnfuzz::nnsupport {

/// An error naming the first attribute not in `known` (the opset-17 schema's attribute
/// list, which the ONNX checker enforces), or "" when all are known.
std::string unknownAttr(const Attributes& attrs, std::initializer_list<std::string_view> known);

/// Reads an INT attribute in [lo, hi] (fallback when absent); false with `err` set otherwise.
bool readInt(const Attributes& attrs, std::string_view name, int64_t lo, int64_t hi, int64_t fallback, int64_t& out,
             std::string& err);
/// Reads an INTS attribute of exactly `len` elements, each >= lo (filled with fallback when absent).
bool readInts(const Attributes& attrs, std::string_view name, size_t len, int64_t lo, int64_t fallback,
              std::vector<int64_t>& out, std::string& err);
/// Reads a FLOAT attribute (fallback when absent).
bool readFloat(const Attributes& attrs, std::string_view name, double fallback, double& out, std::string& err);

/// The epsilon of the normalizations (LayerNormalization, GroupNormalization) when absent.
inline constexpr double kDefaultNormEpsilon = 1e-5;

/// The auto_pad attribute's domain.
inline AttrSpec autoPadDomain() {
  return {"auto_pad", AttrKind::String, 0, 0, 0, 0, {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"}};
}

enum class AutoPad { NotSet, SameUpper, SameLower, Valid };
inline constexpr std::string_view kAutoPadNames[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};

/// Reads auto_pad (NOTSET when absent).
bool readAutoPad(const Attributes& attrs, AutoPad& out, std::string& err);

/// The window geometry of a convolution or pooling over n spatial dims.
struct Window {
  Shape in, kernel, strides, dilations, padBegin, padEnd, out;
  AutoPad autoPad = AutoPad::NotSet;
  bool ceilMode = false;
  size_t rank() const { return in.size(); }
  int64_t extent(size_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }
};

/// Reads auto_pad, strides, dilations (when useDilations; else all 1) and pads for the
/// spatial dims `in` with the given kernel. Explicit pads with auto_pad != NOTSET are
/// rejected; negative pads too.
bool readWindow(const Attributes& attrs, const Shape& in, const Shape& kernel, bool useDilations, Window& w,
                std::string& err);
/// Conv/pool geometry: resolves auto_pad into pads, then the output size (ceil_mode as
/// ONNX Runtime and the ONNX reference: the last window must start inside the input or
/// its left padding). False when some output dim would be < 1.
bool resolveForward(Window& w, std::string& err);
/// The output size ONNX's shape inference computes for dim i (no last-window rule; SAME
/// pads clamped at 0; ceil through float division). Samplers keep ceil_mode only where
/// it agrees with resolveForward, so generated models pass strict shape inference.
int64_t onnxForwardSize(const Window& w, size_t i);
/// True when every window along dim i holds at least one element of the input (else a
/// max/average over it is undefined).
bool windowsNonEmpty(const Window& w, size_t i);

/// The taps of the window at output position `outIndex`: (kernel offset, input offset)
/// pairs, row-major over the spatial dims, for the taps that fall inside the input.
/// `k` is scratch space (so kernels allocate once per call, not per element).
void windowTaps(const Window& w, const std::vector<int64_t>& outIndex, std::vector<int64_t>& k,
                std::vector<std::pair<int64_t, int64_t>>& taps);

/// Draws auto_pad (NOTSET most often, written explicitly or left out) and writes it.
AutoPad sampleAutoPad(Rng& rng, Attributes& attrs);

/// True when `infer` accepts operands `before` followed by `candidate` under `attrs`
/// (the accepts() of a further-input pattern whose validity the op's infer decides).
bool inferAccepts(InferResult (*infer)(const InferArgs&), const std::vector<TensorType>& before,
                  const TensorType& candidate, const Attributes& attrs);

/// The spatial dims (all but the first two) of an N x C x D1 x ... shape.
inline Shape spatialDims(const Shape& s) { return Shape(s.begin() + 2, s.end()); }

/// Writes `values` as attribute `name`, or leaves it out when it equals the default
/// `fallback` everywhere and the coin says so (so defaults get tested both ways).
void writeInts(Attributes& attrs, std::string_view name, const std::vector<int64_t>& values, int64_t fallback,
               Rng& rng, double omitProbability = 0.5);

/// Offset of a multi-index in a row-major shape.
inline int64_t flatIndex(const std::vector<int64_t>& index, const Shape& shape) {
  int64_t flat = 0;
  for (size_t i = 0; i < shape.size(); ++i) flat = flat * shape[i] + index[i];
  return flat;
}

/// Reduction axes: normalised, sorted and duplicate free; false when one is out of range or repeated.
bool normalizeAxes(const std::vector<int64_t>& axes, int rank, std::vector<int>& out, std::string& err);
/// A random non-empty set of distinct axes of a rank >= 1 tensor, some written negative.
std::vector<int64_t> sampleAxes(Rng& rng, int rank);

/// A random divisor of n (1 and n favoured).
int64_t sampleDivisor(Rng& rng, int64_t n);

/// Calls f(first element offset, stride, length, line number) for every line of a
/// row-major tensor of `shape` along `axis` (nothing when the tensor is empty).
template <typename F>
void forEachLine(const Shape& shape, size_t axis, F f) {
  const int64_t len = shape[axis], inner = product(shape, axis + 1), total = product(shape);
  if (total == 0) return;
  const int64_t outer = total / (len * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) f(o * len * inner + in, inner, len, o * inner + in);
}

/// How many elements of a line lie within the stability margin of its largest (or, with
/// !largest, smallest) element, that one included: above 1 the winner of an arg-max style
/// choice could flip under float32 rounding upstream.
int64_t nearBestCount(const double* p, int64_t stride, int64_t len, bool largest);

/// A scatter's target after one update (reduction none, add, mul, max or min).
inline double combineScatter(const std::string& reduction, double old, double update) {
  if (reduction == "add") return old + update;
  if (reduction == "mul") return old * update;
  if (reduction == "max") return std::max(old, update);
  if (reduction == "min") return std::min(old, update);
  return update;
}

}  // namespace nnfuzz::nnsupport
