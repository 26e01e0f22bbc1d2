// weight_fill.h - user-set weight contents per operator: constants and sparsity (Wu's
// sparse_percentage), config "weight_fill":
//
//   "weight_fill": {"Conv": {"sparsity": 0.5}, "Gemm": {"constant": 0.25}, "*": {"sparsity": 0.1}}
//
// Keys are operator names ("*": every operator not named). A fresh weight operand of such
// an operator is filled with `constant` in every element, or keeps its random values with
// each element set to 0 with probability `sparsity`. A fill that would leave the operand's
// value domain (a divisor that must not be 0, Log's positive input) is not applied. Weights
// are known before evaluation only where the generator decides them first: with
// "format": "caffe"/"both" (gen/caffe_filter.h); other runs ignore weight_fill.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ops/instantiate.h"

namespace nnfuzz {

struct WeightFill {
  std::string op;  ///< operator name, or "*"
  std::optional<double> constant;
  double sparsity = 0.0;  ///< odds that an element becomes 0
};
using WeightFills = std::vector<WeightFill>;

/// Parses the "weight_fill" object; throws nnfuzz::Error naming the bad entry.
WeightFills parseWeightFills(const nlohmann::json& json);
nlohmann::json weightFillsToJson(const WeightFills& fills);

/// Applies the rule for `op` (or "*") to the fresh weight operands (isWeight[k] and no
/// existing value, no fixed constant) of `inst`, whose contents are in `fresh`.
void fillWeights(const WeightFills& fills, std::string_view op, const Instantiation& inst,
                 const std::vector<bool>& isWeight, std::vector<Tensor>& fresh, Rng& rng);

}  // namespace nnfuzz
