// config.h - the generation config: one JSON file, every field optional, CLI flags on top.
//
//   {
//     "generator": "isra",            // isra | declgen | randoop
//     "seed": 1,
//     "min_ops": 1, "max_ops": 30,    // op count uniform in [min_ops, max_ops]
//     "max_rank": 5, "min_dim": 1, "max_dim": 5,
//     "picking_rate": 0.97,           // odds of reusing an existing value for an operand
//     "weight_rate": 0.5,             // odds that a fresh operand is a weight, not an input
//     "opset": 17,
//     "dtypes": {"f32": 1, "f64": 0.1},      // dtypes of fresh tensors, with weights
//     "ops": {"*": 1, "Conv": 2},             // allow-list with weights; "*" = every other op
//     "exclude_ops": ["Resize"],
//     "avoid": [{"op": "Mean", "dtypes": ["f64"]}]  // configurations not to generate (avoid.h)
//   }
//
// Policies are data: the effective config is written into every case's meta.json and its
// hash names it, so a case can be regenerated from (config, seed, index).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gen/avoid.h"
#include "ops/op_spec.h"

namespace nnfuzz {

struct GenConfig {
  std::string generator = "isra";
  uint64_t seed = 1;
  int minOps = 1;
  int maxOps = 30;
  Limits limits;  ///< rank/dim bounds and dtypes with weights
  double pickingRate = 0.97;
  double weightRate = 0.5;
  int opset = 17;
  std::vector<const OpSpec*> ops;  ///< allowed operators, registry order
  std::vector<double> opWeights;   ///< parallel to ops
  /// Configurations never to generate: what a target SUT lacks or is known to get wrong.
  std::vector<AvoidRule> avoid;

  bool avoids(const OpSpec& spec, const std::vector<const TensorType*>& operands, const Attributes& attrs) const;
};

/// The built-in default: every operator, float32 mostly, Isra's paper settings, and the
/// configurations ONNX Runtime's CPU provider rejects or gets wrong avoided (avoid.h).
GenConfig defaultConfig();
/// Applies a JSON config on top of `base`. Throws nnfuzz::Error naming the bad field.
GenConfig applyConfigJson(GenConfig base, const nlohmann::json& json);
/// Reads a JSON config file on top of the default. Throws nnfuzz::Error.
GenConfig loadConfigFile(const std::string& path);
/// Checks cross-field rules (min <= max, rates in [0,1], ...). Throws nnfuzz::Error.
void validateConfig(const GenConfig& config);

/// The effective config as JSON (every field explicit), and its 64-bit FNV-1a hash in hex.
nlohmann::json configToJson(const GenConfig& config);
std::string configHash(const GenConfig& config);

}  // namespace nnfuzz
