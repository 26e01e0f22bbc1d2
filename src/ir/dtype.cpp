#include "ir/dtype.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace nnfuzz {

namespace {
struct DTypeInfo {
  DType dtype;
  std::string_view name;
  int onnx;
};
constexpr DTypeInfo kInfo[] = {
    {DType::Float32, "f32", 1}, {DType::Float64, "f64", 11}, {DType::Int32, "i32", 6},
    {DType::Int64, "i64", 7},   {DType::Int8, "i8", 3},      {DType::UInt8, "u8", 2},
    {DType::Bool, "bool", 9},
};

template <typename Int>
double wrapTo(double x) {
  if (!std::isfinite(x)) return 0;  // UB in C; SUTs disagree, so the generator never lets it happen
  double truncated = std::trunc(x);
  // Narrowing an int64 to a smaller integer type is modular in C++20.
  if (std::abs(truncated) >= 9223372036854775808.0) truncated = std::fmod(truncated, 9223372036854775808.0);
  const auto bits = static_cast<int64_t>(truncated);
  return static_cast<double>(static_cast<Int>(bits));
}
}  // namespace

std::string_view dtypeName(DType dtype) { return kInfo[static_cast<int>(dtype)].name; }

std::optional<DType> dtypeFromName(std::string_view name) {
  for (const auto& info : kInfo)
    if (info.name == name) return info.dtype;
  return std::nullopt;
}

int onnxElemType(DType dtype) { return kInfo[static_cast<int>(dtype)].onnx; }

std::optional<DType> dtypeFromOnnx(int elemType) {
  for (const auto& info : kInfo)
    if (info.onnx == elemType) return info.dtype;
  return std::nullopt;
}

double int64Element(int64_t value) { return std::min(static_cast<double>(value), kInt64Ceiling); }

int64_t toInt64Saturated(double x) {
  if (std::isnan(x)) return 0;
  if (x >= kInt64Ceiling) return static_cast<int64_t>(kInt64Ceiling);
  if (x <= -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(x);
}

double roundToIntegral(DType dtype, double x) {
  switch (dtype) {
    case DType::Float32: return static_cast<double>(static_cast<float>(x));
    case DType::Float64: return x;
    case DType::Int32: return wrapTo<int32_t>(x);
    case DType::Int64: return wrapTo<int64_t>(x);
    case DType::Int8: return wrapTo<int8_t>(x);
    case DType::UInt8: return wrapTo<uint8_t>(x);
    case DType::Bool: return x != 0 ? 1.0 : 0.0;
  }
  return x;
}

}  // namespace nnfuzz
