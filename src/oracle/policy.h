// policy.h - how the oracle compares one output tensor with the tensor it should equal.
//
// Two policies for floating-point outputs:
//   allclose  |a - e| <= atol + rtol * |e| for every element (numpy's allclose; NNSmith's and
//             NeuRI's defaults atol 1e-3, rtol 1e-2);
//   luo       Luo et al.'s rule: the output fails when more than `luoMaxFraction` (0.1%) of its
//             elements have a relative error above `luoRelError` (0.1%). The relative error is
//             |a - e| / max(|e|, luoFloor): without a floor, an expected exact zero would make
//             any rounding difference an infinite relative error.
// Whatever the policy: dtype and shape must match first; integers and bools must be exact;
// NaN must appear exactly where NaN is expected, and each infinity exactly where the same
// signed infinity is expected. This file compares tensors only; verdicts live in oracle.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ir/tensor.h"

namespace nnfuzz {

enum class PolicyKind { AllClose, Luo };

/// A comparison policy with its thresholds (see the file comment).
struct Policy {
  PolicyKind kind = PolicyKind::AllClose;
  double atol = 1e-3;            ///< allclose: absolute tolerance
  double rtol = 1e-2;            ///< allclose: relative tolerance
  double luoRelError = 1e-3;     ///< luo: an element is bad above this relative error
  double luoMaxFraction = 1e-3;  ///< luo: the output fails above this fraction of bad elements
  double luoFloor = 1e-3;        ///< luo: denominators below this magnitude are raised to it

  /// "allclose" or "luo".
  std::string_view name() const;
  /// {"policy": "allclose", "atol": ..., ...}: what meta.json and repro.py record.
  nlohmann::json toJson() const;
  /// Reads toJson()'s form; missing fields keep their defaults. Throws Error on bad input.
  static Policy fromJson(const nlohmann::json& j);
  /// The default policy of a name ("allclose", "luo"); nullopt for an unknown name.
  static std::optional<Policy> named(std::string_view name);
};

/// How an output differs, most severe first: a dtype or shape mismatch makes values moot.
enum class DiffKind { None, DType, Shape, NonFinite, Values };

/// "dtype", "shape", "nonfinite", "values" ("none" for None).
std::string_view diffKindName(DiffKind kind);

/// The comparison of one output.
struct OutputDiff {
  size_t output = 0;            ///< position among the model's outputs
  DiffKind kind = DiffKind::None;
  std::string detail;           ///< one line: how it differs, with the first bad element
  int64_t badElements = 0;      ///< elements counted as wrong under the policy
  int64_t elements = 0;
  double maxAbsError = 0;       ///< over pairs of finite values
  double maxRelError = 0;       ///< |a - e| / |e| over pairs of finite values with e != 0

  bool ok() const { return kind == DiffKind::None; }
};

/// Whether one element counts as wrong under `policy` (`exact`: an integer or bool dtype):
/// the per-element rule compareOutput applies (Luo's fraction rule is applied on top of it).
bool elementDiffers(double actual, double expected, bool exact, const Policy& policy);

/// A flat element position as a multi-index, "[1,0,2]" ("[]" for a scalar).
std::string elementIndex(const Shape& shape, size_t flat);

/// Compares `actual` with `expected` under `policy` (output position `output` is recorded).
OutputDiff compareOutput(const Tensor& actual, const Tensor& expected, const Policy& policy, size_t output = 0);

}  // namespace nnfuzz
