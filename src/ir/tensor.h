// tensor.h - tensor types and concrete tensors.
//
// A Tensor keeps its elements as doubles whatever its dtype: reference kernels
// accumulate in double and round once per operation (roundTo), and int64 values stay
// exact as long as they are below 2^53, which the generator guarantees.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/dtype.h"
#include "support/small_vector.h"

namespace nnfuzz {

/// Dims, inline up to rank 6: types are copied often, and most copies then allocate nothing.
using Shape = SmallVector<int64_t, 6>;

/// Product of dims [from, min(to, rank)).
inline int64_t product(const Shape& shape, size_t from = 0, size_t to = SIZE_MAX) {
  int64_t p = 1;
  for (size_t i = from; i < shape.size() && i < to; ++i) p *= shape[i];
  return p;
}

struct TensorType {
  DType dtype = DType::Float32;
  Shape shape;

  int rank() const { return static_cast<int>(shape.size()); }
  int64_t numel() const;
  bool operator==(const TensorType&) const = default;
};

/// "f32[1,3,4]"; a scalar is "f32[]".
std::string toString(const TensorType& type);

/// One element value as reports print it: 9 significant digits, enough to tell any two
/// float32 values apart ("1.13079715", "1e-05").
std::string formatValue(double x);

/// Row-major strides of a shape, in elements.
std::vector<int64_t> stridesOf(const Shape& shape);

struct Tensor {
  TensorType type;
  std::vector<double> data;  // row-major, already rounded to type.dtype
  /// Every element is bit for bit what any implementation computing in the dtype gets:
  /// true for inputs and weights, and for results the rules of ops/exactness.h allow.
  /// Stability checks trust an exact 0 or an exact tie; an inexact one may be a few ulps off.
  bool exact = true;
  /// An inexact result that a SUT may get wrong by far more than a few ulps of its own
  /// magnitude (a normalisation over a constant group cancels terms hundreds of times
  /// larger), and every inexact value computed from one. No stability check trusts it.
  bool noisy = false;

  Tensor() = default;
  explicit Tensor(TensorType t) : type(std::move(t)), data(static_cast<size_t>(type.numel()), 0.0) {}
  Tensor(TensorType t, std::vector<double> values) : type(std::move(t)), data(std::move(values)) {}

  int64_t numel() const { return static_cast<int64_t>(data.size()); }
  /// Equal types and elements (exactness is a property of how a value was made, not of it).
  bool operator==(const Tensor& other) const { return type == other.type && data == other.data; }
};

/// An int64 1-D tensor holding `values` (shape arguments, axes, pads).
Tensor int64Tensor(const std::vector<int64_t>& values);
/// A scalar of `dtype` holding v rounded to it.
inline Tensor scalarTensor(DType dtype, double v) { return Tensor(TensorType{dtype, {}}, {roundTo(dtype, v)}); }
/// A 1-D float32 tensor holding `values` (taken as float32 already).
inline Tensor float32Tensor(std::vector<double> values) {
  const auto n = static_cast<int64_t>(values.size());
  return Tensor(TensorType{DType::Float32, {n}}, std::move(values));
}
/// The elements of an integer tensor as int64 values.
std::vector<int64_t> toInt64s(const Tensor& tensor);

}  // namespace nnfuzz
