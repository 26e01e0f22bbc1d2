// value_ranges.h - the values each operator's operands actually held over a test set: where
// the generator's value space has blind spots (issue 14: no Sigmoid ever saw |x| > 2).
//
// Per (operator, operand index) it keeps how many nodes were seen, the extremes, and how
// many nodes saw at least one element that is large (|x| > 4), tiny (0 < |x| < 1e-3), zero,
// or negative. Bool operands are skipped; integer operands count like floats.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/graph.h"

namespace nnfuzz::search {

struct OperandValues {
  int64_t nodes = 0;
  double min = 0, max = 0, maxAbs = 0;
  int64_t large = 0, tiny = 0, zero = 0, negative = 0;  ///< nodes with such an element
};

class ValueRanges {
 public:
  /// Adds one model with every value's contents (`values` indexed by ValueId, as
  /// runGraphAll returns them).
  void add(const Graph& graph, const std::vector<Tensor>& values);
  void merge(const ValueRanges& other);
  const std::map<std::pair<std::string, int>, OperandValues>& operands() const { return operands_; }

  /// The table `nnfuzz cov --values` prints, one row per operator and operand.
  std::string format() const;
  nlohmann::json toJson() const;

 private:
  std::map<std::pair<std::string, int>, OperandValues> operands_;
};

/// The threshold for "large" (the Sigmoid/Tanh saturation mark).
inline constexpr double kLargeValue = 4.0;
/// The threshold for "tiny" non-zero magnitudes.
inline constexpr double kTinyValue = 1e-3;

}  // namespace nnfuzz::search
