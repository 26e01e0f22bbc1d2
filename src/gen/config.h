// config.h - the generation config: one JSON file, every field optional, CLI flags on top.
//
//   {
//     "generator": "isra",            // isra | declgen | randoop | graph | neuri
//     "seed": 1,
//     "min_ops": 1, "max_ops": 30,    // op count uniform in [min_ops, max_ops]
//     "max_rank": 5, "min_dim": 1, "max_dim": 5,
//     "picking_rate": 0.97,           // odds of reusing an existing value for an operand
//     "weight_rate": 0.5,             // odds that a fresh operand is a weight, not an input
//     "opset": 17,                    // target opset 7..21 (ops/version_forms.h)
//     "opsets": {"13": 1, "17": 2},   // or a mix: each model's opset drawn with these odds
//     "dtypes": {"f32": 1, "f64": 0.1},      // dtypes of fresh tensors, with weights
//     "ops": {"*": 1, "Conv": 2},             // allow-list with weights; "*" = every other op
//     "exclude_ops": ["Resize"],
//     "avoid": [{"op": "Mean", "dtypes": ["f64"]}],  // configurations not to generate (avoid.h)
//     "graph": {...},                 // the graph generator's settings (GraphSettings)
//     "format": "onnx",               // or "caffe"/"both": only Caffe-expressible models (isra)
//     "weight_fill": {"Conv": {"sparsity": 0.5}}  // user-set weights (weight_fill.h)
//     "caffe_layers": {"Power": 1, "Crop": 0.5},  // Caffe layers drawn as ONNX runs (caffe_units.h)
//     "values": {"narrow": 0.7, "wide": 0.1, "special": 0.1, "integral": 0.1},  // fresh values (ValueMix)
//     "outputs": {"consumed": 0, "weights": 0},  // extra graph outputs (OutputMix, isra)
//     "empty_inputs": 0.2,            // odds of trailing optional inputs written as ""
//     "default_attrs": {"written": 0.2, "omitted": 0.2},  // nodes' attributes at defaults (DefaultAttrMix)
//     "limits": {...},                // depth, required sequences, parameter limits (limits.h)
//     "neuri": {...}                  // the neuri generator's settings (NeuriSettings)
//   }
//
// Policies are data: the effective config is written into every case's meta.json and its
// hash names it, so a case can be regenerated from (config, seed, index).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "gen/avoid.h"
#include "gen/block_corpus.h"
#include "gen/weight_fill.h"
#include "gen/limits.h"
#include "interp/values.h"
#include "ops/op_spec.h"

namespace nnfuzz {

/// The graph generator's settings (Luo et al.; graph_gen.h), JSON object "graph":
///   {"model": "ws" | "rn" | "both", "blocks": 10 or {"min": 5, "max": 15}, "k": [2, 4, 6],
///    "p_ws": 0.5, "p_rn": 0.9, "same_size_padding": 0.5, "subgraph_weight": 1,
///    "mutations": {"r": [0, 0.1, 0.2], "edges_add": true, "edges_remove": true,
///                  "nodes_add": true, "nodes_remove": true, "tensor_shape": true, "parameter": true},
///    "blocks_file": "my_blocks.json"}
struct GraphSettings {
  std::string model = "both";
  int minBlocks = 5, maxBlocks = 15;
  std::vector<int> k{2, 4, 6};
  double pWs = 0.5, pRn = 0.9;
  double sameSizePadding = 0.5;  ///< odds that a Conv/Pool node gets same-size padding
  double subgraphWeight = 1.0;   ///< weight of each subgraph block (operators use "ops")
  std::vector<double> mutationRates{0, 0.1, 0.2};  ///< r of a model, drawn uniformly
  bool edgesAdd = true, edgesRemove = true, nodesAdd = true, nodesRemove = true;
  bool tensorShape = true, parameter = true;
  std::string blocksFile;  ///< empty: the built-in corpus (config/blocks.json)
  /// The corpus blocksFile names, loaded when the config is made (shared by copies).
  std::shared_ptr<const BlockCorpus> corpus;
};

/// The neuri generator's settings (NeuRI, seed 002 §3.3; gen/neuri.h), JSON object "neuri":
///   {"rules": "rules", "symbolic": 1, "concrete": 1, "rule_rate": 0.5, "domains": ["com.microsoft"]}
struct NeuriSettings {
  /// The rule folder (`nnfuzz infer -o`); empty: rules/ of nnfuzz's tree ($NNFUZZ_ROOT/rules).
  std::string rules;
  double symbolic = 1.0;  ///< share of insertions drawn as symbolic operators
  double concrete = 1.0;  ///< share of insertions drawn as concrete operators (records)
  /// Odds that a symbolic operator with a solvable rule is made from the rule, not its spec.
  double ruleRate = 0.5;
  /// Operator domains besides the default one whose rules and records may be inserted
  /// (opt-in: such operators are ONNX Runtime's own, and nnfuzz has no reference for them).
  std::vector<std::string> domains;
};

/// Graph outputs beyond the unread results (isra; JSON "outputs"), for frontends that assume
/// an output is read by nobody or is computed by a node: the odds that a result read by
/// later nodes is a graph output too, and that a weight read by a node is one.
struct OutputMix {
  double consumed = 0;
  double weights = 0;
  bool operator==(const OutputMix&) const = default;
};

/// Odds per node that every attribute at its schema default is written out, or that those
/// holding the default are left out ("default_attrs"; generator.cpp). The rest keep the
/// sampler's choice.
struct DefaultAttrMix {
  double written = 0.2;
  double omitted = 0.2;
  bool operator==(const DefaultAttrMix&) const = default;
};

struct GenConfig {
  std::string generator = "isra";
  uint64_t seed = 1;
  int minOps = 1;
  int maxOps = 30;
  Limits limits;  ///< rank/dim bounds and dtypes with weights
  double pickingRate = 0.97;
  double weightRate = 0.5;
  /// Kinds of fresh values ("values": {"narrow": .7, "wide": .1, "special": .1, "integral": .1}).
  ValueMix values{0.7, 0.1, 0.1, 0.1};
  OutputMix outputs;
  /// Odds that a node whose schema has optional inputs after its last given one writes
  /// some of them as the empty name "" (absent, but spelled out; middle ones always are).
  double emptyInputs = 0.2;
  DefaultAttrMix defaultAttrs;
  int opset = 17;
  /// A mix of target opsets with odds (empty: every model targets `opset`). Each model's
  /// opset is drawn from its case seed; the generator then runs as with that `opset`.
  std::map<int, double> opsetMix;
  std::vector<const OpSpec*> ops;  ///< allowed operators, registry order
  std::vector<double> opWeights;   ///< parallel to ops
  /// Configurations never to generate: what a target SUT lacks or is known to get wrong.
  std::vector<AvoidRule> avoid;
  GraphSettings graph;
  /// "onnx", or "caffe"/"both": draw only nodes Caffe layers express (gen/caffe_filter.h).
  std::string format = "onnx";
  /// With a Caffe format: odds of each Caffe unit (caffe_units.h), drawn like an operator.
  std::map<std::string, double> caffeLayers;
  /// User-set weight contents per operator: constants, sparsity (gen/weight_fill.h).
  WeightFills weightFill;
  NetLimits net;  ///< structure and parameter limits (JSON "limits")
  NeuriSettings neuri;

  /// True if a node falls under an avoid rule or outside the parameter limits.
  /// Also true when the target opset cannot express the node (version_forms.h); operands
  /// whose contents are not in `constants` (nullptr or too short) count as not constant.
  bool avoids(const OpSpec& spec, std::span<const TensorType* const> operands, const Attributes& attrs,
              std::span<const Tensor* const> constants = {}) const;

  /// Files `avoid` by operator, so avoids() reads only the node's rules (it is asked per
  /// draw, and most rules are about other operators). For a config whose rules no longer
  /// change (a generator's own copy); a copy of the config, or rules added or removed
  /// since, are scanned as before.
  void indexAvoidRules();
  struct AvoidIndex {
    const AvoidRule* rules = nullptr;  // avoid.data() and avoid.size() when indexed
    size_t count = 0;
    std::unordered_map<const OpSpec*, std::vector<const AvoidRule*>> byOp;
  };
  AvoidIndex avoidIndex;  ///< indexAvoidRules()'s, for avoids() only
};

/// The most operators a model may have (max_ops): about 10 s a model at the cap.
inline constexpr int kMaxOpsCap = 10000;

/// The built-in default: every operator, float32 mostly, Isra's paper settings, and the
/// configurations ONNX Runtime's CPU provider rejects or gets wrong avoided (avoid.h).
GenConfig defaultConfig();
/// Applies a JSON config on top of `base`. Throws nnfuzz::Error naming the bad field.
GenConfig applyConfigJson(GenConfig base, const nlohmann::json& json);
/// Reads a JSON config file on top of the default. Throws nnfuzz::Error.
GenConfig loadConfigFile(const std::string& path);
/// Checks cross-field rules (min <= max, rates in [0,1], ...). Throws nnfuzz::Error.
void validateConfig(const GenConfig& config);

/// Applies a "graph" JSON object (loading its blocks_file). Throws nnfuzz::Error.
GraphSettings applyGraphJson(GraphSettings base, const nlohmann::json& json);
/// Checks the graph settings' ranges. Throws nnfuzz::Error.
void validateGraphSettings(const GraphSettings& settings);
/// Checks the "limits" object against the rest of the config (limits.cpp). Throws nnfuzz::Error.
void validateNetLimits(const GenConfig& config);
nlohmann::json graphSettingsToJson(const GraphSettings& settings);
/// Applies a "neuri" JSON object; checks its ranges (neuri_config.cpp). Throws nnfuzz::Error.
NeuriSettings applyNeuriJson(NeuriSettings base, const nlohmann::json& json);
nlohmann::json neuriSettingsToJson(const NeuriSettings& settings);
/// Checks that the neuri generator's rule folder loads and leaves operators to insert. Throws nnfuzz::Error.
void validateNeuri(const GenConfig& config);

/// The effective config as JSON (every field explicit), and its 64-bit FNV-1a hash in hex.
nlohmann::json configToJson(const GenConfig& config);
std::string configHash(const GenConfig& config);

}  // namespace nnfuzz
