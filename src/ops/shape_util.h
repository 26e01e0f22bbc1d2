// shape_util.h - helpers shared by the shape-manipulation operators (reshape.cpp,
// squeeze.cpp, slice.cpp, pad.cpp, ...): reading constant index operands, checking axis
// lists, building index tensors and small sampling helpers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "ops/common.h"

namespace nnfuzz::shapeops {

/// A double holding an integer converted to int64, saturating: an imported INT64_MAX
/// arrives as 2^63, which a plain cast would turn into INT64_MIN.
inline int64_t saturatingInt(double x) {
  if (x >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (x <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(x);
}

/// A runtime index in [-n, n-1] as a position in [0, n). Out of range is an error (ONNX
/// says so), not a silent 0: a Loop or Scan body's indices change between iterations, and
/// the generator must see the body fail rather than take a made-up result.
int64_t indexWithin(double v, int64_t n);

inline std::vector<int64_t> intsOf(const Tensor& t) {
  std::vector<int64_t> out(t.data.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = saturatingInt(t.data[i]);
  return out;
}

inline bool isIndexType(DType d) { return d == DType::Int32 || d == DType::Int64; }

/// Checks that operand `i` (a constant) is a 1-D tensor of int64 (or int32 when
/// allowInt32); returns the reason if it is not, "" if it is.
inline std::string checkIndexVector(const InferArgs& args, size_t i, const char* what, bool allowInt32 = false) {
  const TensorType* t = args.inputs[i];
  if (!t) return std::string(what) + " is missing";
  if (!(t->dtype == DType::Int64 || (allowInt32 && t->dtype == DType::Int32)))
    return std::string(what) + " must be " + (allowInt32 ? "int32 or int64" : "int64");
  if (t->rank() != 1) return std::string(what) + " must be 1-D";
  if (!args.constants[i]) return std::string(what) + " must be a constant";
  return "";
}

/// The complaint about the first attribute not in `known` (the ONNX checker rejects
/// unrecognised attributes), or "".
inline std::string unknownAttribute(const Attributes& attrs, std::initializer_list<std::string_view> known) {
  for (const auto& [name, value] : attrs)
    if (std::find(known.begin(), known.end(), name) == known.end()) return "unknown attribute " + name;
  return "";
}

/// Normalises a list of axes against `rank`; nullopt when one is out of range or repeats.
inline std::optional<std::vector<int>> normalizeAxes(const std::vector<int64_t>& axes, int rank) {
  std::vector<int> out;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    auto n = opsupport::normalizeAxis(a, rank);
    if (!n || seen[static_cast<size_t>(*n)]) return std::nullopt;
    seen[static_cast<size_t>(*n)] = true;
    out.push_back(*n);
  }
  return out;
}

/// A 1-D index tensor of dtype int32 or int64.
inline Tensor indexTensor(DType dtype, const std::vector<int64_t>& values) {
  Tensor t = int64Tensor(values);
  t.type.dtype = dtype;
  return t;
}

/// A 0-D int64 tensor.
inline Tensor int64Scalar(int64_t v) { return Tensor(TensorType{DType::Int64, {}}, {static_cast<double>(v)}); }

/// A random permutation of 0..n-1.
inline std::vector<int64_t> randomPermutation(Rng& rng, int n) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  for (int i = n - 1; i > 0; --i) std::swap(p[static_cast<size_t>(i)], p[static_cast<size_t>(rng.uniformInt(0, i))]);
  return p;
}

/// An axis in [0, rank) written either way: as is or in its negative form.
inline int64_t maybeNegative(Rng& rng, int64_t axis, int rank) { return rng.bernoulli(0.3) ? axis - rank : axis; }

/// The largest dim a growing op may give (see the generation rules).
inline int64_t maxResultDim(const Limits& limits) { return 4 * limits.maxDim; }

/// Offset of a multi-index in a row-major tensor of `shape`.
inline int64_t offsetOf(const std::vector<int64_t>& index, const Shape& shape) {
  int64_t off = 0;
  for (size_t i = 0; i < shape.size(); ++i) off = off * shape[i] + index[i];
  return off;
}

}  // namespace nnfuzz::shapeops
