// dtype.h - element types of GraphIR tensors.
//
// Values of every dtype are held as double inside nnfuzz (see tensor.h); this file says
// how a double is rounded to what each dtype can represent, and names dtypes in the text
// form ("f32") and in ONNX (TensorProto.DataType numbers).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace nnfuzz {

enum class DType : uint8_t { Float32, Float64, Int32, Int64, Int8, UInt8, Bool };

inline constexpr DType kAllDTypes[] = {DType::Float32, DType::Float64, DType::Int32, DType::Int64,
                                       DType::Int8,    DType::UInt8,   DType::Bool};

/// Short name used by the text form and configs: f32 f64 i32 i64 i8 u8 bool.
std::string_view dtypeName(DType dtype);
std::optional<DType> dtypeFromName(std::string_view name);

/// ONNX TensorProto.DataType number (FLOAT = 1, ...).
int onnxElemType(DType dtype);
std::optional<DType> dtypeFromOnnx(int elemType);

inline bool isFloat(DType d) { return d == DType::Float32 || d == DType::Float64; }
inline bool isInteger(DType d) { return !isFloat(d) && d != DType::Bool; }

/// The largest double below 2^63. An int64 element is held as at most this (INT64_MAX,
/// Slice's usual "to the end", becomes it), so converting any element back is defined.
inline constexpr double kInt64Ceiling = 9223372036854774784.0;
/// An int64 value as a tensor element (saturated at kInt64Ceiling).
double int64Element(int64_t value);
/// A tensor element as an int64: saturated at both ends, NaN as 0.
int64_t toInt64Saturated(double x);
/// roundTo for the integer types and bool.
double roundToIntegral(DType dtype, double x);
/// Rounds a double to the nearest value of `dtype`: float32 rounding, integer truncation
/// toward zero with two's-complement wrap-around (what C and every SUT do), bool as x != 0.
/// Inline: the reference kernels round every element they write.
inline double roundTo(DType dtype, double x) {
  if (dtype == DType::Float32) return static_cast<double>(static_cast<float>(x));
  if (dtype == DType::Float64) return x;
  return roundToIntegral(dtype, x);
}

}  // namespace nnfuzz
