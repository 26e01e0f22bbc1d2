#include "gen/config.h"

#include "caffe/layer_map.h"
#include "gen/caffe_units.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>

#include "ops/instantiate.h"
#include "ops/registry.h"
#include "ops/schema_history.h"
#include "ops/version_forms.h"
#include "support/error.h"

namespace nnfuzz {

using nlohmann::json;

GenConfig defaultConfig() {
  GenConfig c;
  // Mostly float32, which every SUT implements for every op; the rest keep kernels for
  // other dtypes exercised without drowning a campaign in "not implemented" rejections.
  c.limits.dtypes = {DType::Float32, DType::Float64, DType::Int32, DType::Int64,
                     DType::Int8,    DType::UInt8,   DType::Bool};
  c.limits.dtypeWeights = {1.0, 0.03, 0.03, 0.05, 0.01, 0.01, 0.03};
  // Every operator: each model draws from those its opset has (generator.cpp).
  for (const OpSpec* spec : allOps()) {
    c.ops.push_back(spec);
    c.opWeights.push_back(1.0);
  }
  c.avoid = onnxRuntimeAvoidRules();
  c.graph.corpus = std::make_shared<const BlockCorpus>(builtinBlocks());
  return c;
}

bool GenConfig::avoids(const OpSpec& spec, std::span<const TensorType* const> operands, const Attributes& attrs,
                       std::span<const Tensor* const> constants) const {
  if (!net.params.empty() && !net.paramsAllow(spec, operands, attrs)) return true;
  {  // opset 17 too: what later opsets added to an operator is refused there
    OperandConstants known(constants.begin(), constants.end());
    known.resize(operands.size(), nullptr);
    // The result count only matters to Split's num_outputs, which always fits.
    if (formProblem(NodeView{spec.name, operands, known, attrs, 1}, opset)) return true;
  }
  const auto holds = [&](const AvoidRule& r) {
    return r.op == &spec &&
           (r.opsets.empty() || std::find(r.opsets.begin(), r.opsets.end(), opset) != r.opsets.end()) &&
           r.matches(spec, operands, attrs);
  };
  if (avoidIndex.rules != avoid.data() || avoidIndex.count != avoid.size())
    return std::any_of(avoid.begin(), avoid.end(), holds);
  auto it = avoidIndex.byOp.find(&spec);
  return it != avoidIndex.byOp.end() &&
         std::any_of(it->second.begin(), it->second.end(), [&](const AvoidRule* r) { return holds(*r); });
}

void GenConfig::indexAvoidRules() {
  avoidIndex = {avoid.data(), avoid.size(), {}};
  for (const AvoidRule& r : avoid) avoidIndex.byOp[r.op].push_back(&r);
}

namespace {

[[noreturn]] void bad(const std::string& field, const std::string& why) {
  throw Error("config field '" + field + "': " + why);
}

template <typename T>
T number(const json& j, const std::string& field) {
  if (!j.is_number()) bad(field, "expected a number, got " + std::string(j.type_name()));
  if constexpr (std::is_integral_v<T>) {
    if (!j.is_number_integer()) bad(field, "expected an integer");
    if (j.is_number_unsigned() && j.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return static_cast<T>(j.get<uint64_t>());
  }
  return j.get<T>();
}

const std::set<std::string> kKnownFields = {"generator", "seed",       "min_ops",     "max_ops",
                                            "max_rank",  "min_dim",    "max_dim",     "picking_rate",
                                            "weight_rate", "opset",  "opsets",  "dtypes",      "ops",
                                            "exclude_ops", "avoid",    "graph",       "format",      "weight_fill",
                                            "caffe_layers", "values",   "outputs",     "empty_inputs", "default_attrs",
                                            "limits",    "neuri"};

}  // namespace

GenConfig applyConfigJson(GenConfig c, const json& j) {
  if (!j.is_object()) throw Error("config: expected a JSON object at the top level");
  for (const auto& [key, _] : j.items())
    if (!kKnownFields.count(key)) throw Error("config: unknown field '" + key + "'");
  if (j.contains("generator")) {
    if (!j["generator"].is_string()) bad("generator", "expected a string");
    c.generator = j["generator"].get<std::string>();
  }
  if (j.contains("seed")) c.seed = number<uint64_t>(j["seed"], "seed");
  if (j.contains("min_ops")) c.minOps = number<int>(j["min_ops"], "min_ops");
  if (j.contains("max_ops")) c.maxOps = number<int>(j["max_ops"], "max_ops");
  if (j.contains("max_rank")) c.limits.maxRank = number<int>(j["max_rank"], "max_rank");
  if (j.contains("min_dim")) c.limits.minDim = number<int64_t>(j["min_dim"], "min_dim");
  if (j.contains("max_dim")) c.limits.maxDim = number<int64_t>(j["max_dim"], "max_dim");
  if (j.contains("picking_rate")) c.pickingRate = number<double>(j["picking_rate"], "picking_rate");
  if (j.contains("weight_rate")) c.weightRate = number<double>(j["weight_rate"], "weight_rate");
  if (j.contains("format")) {
    if (!j["format"].is_string()) bad("format", "expected a string");
    c.format = j["format"].get<std::string>();
  }
  if (j.contains("weight_fill")) c.weightFill = parseWeightFills(j["weight_fill"]);
  if (j.contains("caffe_layers")) {
    const json& u = j["caffe_layers"];
    if (!u.is_object()) bad("caffe_layers", "expected an object like {\"Power\": 1}");
    c.caffeLayers.clear();
    for (const auto& [name, w] : u.items()) {
      const auto names = caffeUnitNames();
      if (std::find(names.begin(), names.end(), name) == names.end()) bad("caffe_layers", "unknown Caffe unit '" + name + "'");
      const double weight = number<double>(w, "caffe_layers." + name);
      if (!(weight >= 0)) bad("caffe_layers." + name, "weight must be >= 0");
      c.caffeLayers[name] = weight;
    }
  }
  if (j.contains("values")) {
    const json& v = j["values"];
    if (!v.is_object()) bad("values", "expected an object like {\"narrow\": 0.7, \"special\": 0.3}");
    c.values = ValueMix{0, 0, 0, 0};
    for (const auto& [kind, w] : v.items()) {
      const double weight = number<double>(w, "values." + kind);
      if (!(weight >= 0)) bad("values." + kind, "weight must be >= 0");
      if (kind == "narrow") c.values.narrow = weight;
      else if (kind == "wide") c.values.wide = weight;
      else if (kind == "special") c.values.special = weight;
      else if (kind == "integral") c.values.integral = weight;
      else bad("values", "unknown kind '" + kind + "' (narrow, wide, special, integral)");
    }
    if (!(c.values.narrow + c.values.wide + c.values.special + c.values.integral > 0))
      bad("values", "at least one kind needs a weight above 0");
  }
  if (j.contains("outputs")) {
    const json& o = j["outputs"];
    if (!o.is_object()) bad("outputs", "expected an object like {\"consumed\": 0.1, \"weights\": 0.05}");
    for (const auto& [kind, w] : o.items()) {
      const double odds = number<double>(w, "outputs." + kind);
      if (!(odds >= 0 && odds <= 1)) bad("outputs." + kind, "odds must be in [0, 1]");
      if (kind == "consumed") c.outputs.consumed = odds;
      else if (kind == "weights") c.outputs.weights = odds;
      else bad("outputs", "unknown kind '" + kind + "' (consumed, weights)");
    }
  }
  if (j.contains("empty_inputs")) {
    c.emptyInputs = number<double>(j["empty_inputs"], "empty_inputs");
    if (!(c.emptyInputs >= 0 && c.emptyInputs <= 1)) bad("empty_inputs", "odds must be in [0, 1]");
  }
  if (j.contains("default_attrs")) {
    const json& o = j["default_attrs"];
    if (!o.is_object()) bad("default_attrs", "expected an object like {\"written\": 0.2, \"omitted\": 0.2}");
    for (const auto& [kind, w] : o.items()) {
      const double odds = number<double>(w, "default_attrs." + kind);
      if (!(odds >= 0 && odds <= 1)) bad("default_attrs." + kind, "odds must be in [0, 1]");
      if (kind == "written") c.defaultAttrs.written = odds;
      else if (kind == "omitted") c.defaultAttrs.omitted = odds;
      else bad("default_attrs", "unknown kind '" + kind + "' (written, omitted)");
    }
    if (c.defaultAttrs.written + c.defaultAttrs.omitted > 1) bad("default_attrs", "written + omitted must be at most 1");
  }
  if (j.contains("opset")) {
    c.opset = number<int>(j["opset"], "opset");
    c.opsetMix.clear();
  }
  if (j.contains("opsets")) {
    const json& m = j["opsets"];
    if (!m.is_object() || m.empty()) bad("opsets", "expected an object like {\"13\": 1, \"17\": 2}");
    c.opsetMix.clear();
    for (const auto& [key, weight] : m.items()) {
      int opset = 0;
      auto res = std::from_chars(key.data(), key.data() + key.size(), opset);
      if (res.ec != std::errc() || res.ptr != key.data() + key.size()) bad("opsets", "'" + key + "' is not an opset number");
      const double w = number<double>(weight, "opsets." + key);
      if (!(w >= 0)) bad("opsets." + key, "weight must be >= 0");
      c.opsetMix[opset] = w;
    }
  }
  if (j.contains("dtypes")) {
    const json& d = j["dtypes"];
    if (!d.is_object()) bad("dtypes", "expected an object like {\"f32\": 1}");
    c.limits.dtypes.clear();
    c.limits.dtypeWeights.clear();
    for (DType dtype : kAllDTypes) {
      const std::string name(dtypeName(dtype));
      if (!d.contains(name)) continue;
      const double w = number<double>(d[name], "dtypes." + name);
      if (w < 0) bad("dtypes." + name, "weight must be >= 0");
      if (w == 0) continue;
      c.limits.dtypes.push_back(dtype);
      c.limits.dtypeWeights.push_back(w);
    }
    for (const auto& [name, _] : d.items())
      if (!dtypeFromName(name)) bad("dtypes", "unknown dtype '" + name + "' (known: f32 f64 i32 i64 i8 u8 bool)");
  }
  if (j.contains("ops")) {
    const json& o = j["ops"];
    if (!o.is_object()) bad("ops", "expected an object like {\"*\": 1, \"Conv\": 2}");
    for (const auto& [name, _] : o.items())
      if (name != "*" && !findOp(name)) bad("ops", "unknown operator '" + name + "'");
    const double rest = o.contains("*") ? number<double>(o["*"], "ops.*") : 0.0;
    c.ops.clear();
    c.opWeights.clear();
    for (const OpSpec* spec : allOps()) {
      const std::string name(spec->name);
      const double w = o.contains(name) ? number<double>(o[name], "ops." + name) : rest;
      if (w < 0) bad("ops." + name, "weight must be >= 0");
      if (w == 0) continue;
      c.ops.push_back(spec);
      c.opWeights.push_back(w);
    }
  }
  if (j.contains("exclude_ops")) {
    const json& e = j["exclude_ops"];
    if (!e.is_array()) bad("exclude_ops", "expected a list of operator names");
    for (const json& name : e) {
      if (!name.is_string()) bad("exclude_ops", "expected operator names");
      const OpSpec* spec = findOp(name.get<std::string>());
      if (!spec) bad("exclude_ops", "unknown operator '" + name.get<std::string>() + "'");
      for (size_t i = 0; i < c.ops.size(); ++i)
        if (c.ops[i] == spec) {
          c.ops.erase(c.ops.begin() + static_cast<std::ptrdiff_t>(i));
          c.opWeights.erase(c.opWeights.begin() + static_cast<std::ptrdiff_t>(i));
          break;
        }
    }
  }
  if (j.contains("avoid")) c.avoid = parseAvoidRules(j["avoid"]);
  if (j.contains("graph")) c.graph = applyGraphJson(std::move(c.graph), j["graph"]);
  if (j.contains("limits")) c.net = parseNetLimits(j["limits"]);
  if (j.contains("neuri")) c.neuri = applyNeuriJson(std::move(c.neuri), j["neuri"]);
  return c;
}

GenConfig loadConfigFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read config file " + path);
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw Error("config file " + path + " is not valid JSON: " + e.what());
  }
  return applyConfigJson(defaultConfig(), j);
}

void validateConfig(const GenConfig& c) {
  if (c.generator != "isra" && c.generator != "declgen" && c.generator != "randoop" && c.generator != "graph" &&
      c.generator != "neuri")
    throw Error("unknown generator '" + c.generator + "' (known: isra, declgen, randoop, graph, neuri)");
  validateGraphSettings(c.graph);
  if (c.format != "onnx" && c.format != "caffe" && c.format != "both")
    throw Error("unknown format '" + c.format + "' (known: onnx, caffe, both)");
  if (c.format != "onnx" && c.generator != "isra")
    throw Error("format " + c.format + " needs the isra generator (only it draws Caffe-expressible models)");
  if (c.minOps < 1) throw Error("min_ops must be >= 1, got " + std::to_string(c.minOps));
  if (!c.ops.empty() && std::all_of(c.ops.begin(), c.ops.end(), [](const OpSpec* op) { return !op->bodies.empty(); }))
    throw Error("ops holds only control-flow operators (If, Loop, Scan): their bodies need other operators");
  if (c.minOps > c.maxOps)
    throw Error("min_ops (" + std::to_string(c.minOps) + ") is greater than max_ops (" + std::to_string(c.maxOps) + ")");
  // Generation and evaluation grow faster than linearly with size: 3,000 operators take half a
  // second a model, 100,000 took minutes and 1.5 GB.
  if (c.maxOps > kMaxOpsCap)
    throw Error("max_ops must be <= " + std::to_string(kMaxOpsCap) + " (a model that large takes seconds to make)");
  if (c.limits.maxRank < 0 || c.limits.maxRank > 8) throw Error("max_rank must be in [0, 8]");
  if (c.limits.minDim < 1 || c.limits.minDim > c.limits.maxDim)
    throw Error("need 1 <= min_dim <= max_dim, got min_dim " + std::to_string(c.limits.minDim) + ", max_dim " +
                std::to_string(c.limits.maxDim));
  if (c.limits.maxDim > 64) throw Error("max_dim must be <= 64");
  if (!(c.pickingRate >= 0 && c.pickingRate <= 1)) throw Error("picking_rate must be in [0, 1]");
  if (!(c.weightRate >= 0 && c.weightRate <= 1)) throw Error("weight_rate must be in [0, 1]");
  std::vector<int> opsets{c.opset};
  if (!c.opsetMix.empty()) {
    opsets.clear();
    double total = 0;
    for (const auto& [opset, w] : c.opsetMix) {
      opsets.push_back(opset);
      total += w;
    }
    if (!(total > 0)) throw Error("opsets: at least one opset needs a weight > 0");
  }
  for (int opset : opsets) {
    if (opset < kMinOpset || opset > kMaxOpset)
      throw Error("opset " + std::to_string(opset) + " is not supported (nnfuzz generates opsets " +
                  std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) + ")");
    if (std::none_of(c.ops.begin(), c.ops.end(), [&](const OpSpec* s) { return availableAt(s->name, opset); }))
      throw Error("no allowed operator exists at opset " + std::to_string(opset));
  }
  if (c.limits.dtypes.empty()) throw Error("dtypes: at least one dtype needs a weight > 0");
  bool anyUsable = false;
  for (const OpSpec* spec : c.ops) anyUsable = anyUsable || usableUnder(*spec, c.limits);
  if (!anyUsable) throw Error("no allowed operator can be generated with these dtypes and max_rank");
  if (c.format != "onnx" && std::none_of(c.ops.begin(), c.ops.end(), [](const OpSpec* s) { return caffe_export::hasMapping(s->name); }))
    throw Error("format " + c.format + ": no allowed operator has a Caffe layer (config/caffe.json lists those that do)");
  if (!c.caffeLayers.empty() && c.format == "onnx") throw Error("caffe_layers needs format caffe or both");
  validateNetLimits(c);
  if (c.generator == "neuri") validateNeuri(c);
}

json configToJson(const GenConfig& c) {
  json j;
  j["generator"] = c.generator;
  j["seed"] = c.seed;
  j["min_ops"] = c.minOps;
  j["max_ops"] = c.maxOps;
  j["max_rank"] = c.limits.maxRank;
  j["min_dim"] = c.limits.minDim;
  j["max_dim"] = c.limits.maxDim;
  j["picking_rate"] = c.pickingRate;
  j["weight_rate"] = c.weightRate;
  j["values"] = {{"narrow", c.values.narrow}, {"wide", c.values.wide}, {"special", c.values.special},
                 {"integral", c.values.integral}};
  j["empty_inputs"] = c.emptyInputs;
  j["default_attrs"] = {{"written", c.defaultAttrs.written}, {"omitted", c.defaultAttrs.omitted}};
  j["opset"] = c.opset;
  if (!c.opsetMix.empty()) {  // absent when unused: old hashes stay
    json mix = json::object();
    for (const auto& [opset, w] : c.opsetMix) mix[std::to_string(opset)] = w;
    j["opsets"] = mix;
  }
  json dtypes = json::object();
  for (size_t i = 0; i < c.limits.dtypes.size(); ++i)
    dtypes[std::string(dtypeName(c.limits.dtypes[i]))] = i < c.limits.dtypeWeights.size() ? c.limits.dtypeWeights[i] : 1.0;
  j["dtypes"] = dtypes;
  json ops = json::object();
  for (size_t i = 0; i < c.ops.size(); ++i) ops[std::string(c.ops[i]->name)] = c.opWeights[i];
  j["ops"] = ops;
  j["avoid"] = avoidRulesToJson(c.avoid);
  // Only graph runs name the graph settings, so other generators' config hashes stay put.
  if (c.generator == "graph") j["graph"] = graphSettingsToJson(c.graph);
  if (c.generator == "neuri") j["neuri"] = neuriSettingsToJson(c.neuri);
  if (c.format != "onnx") j["format"] = c.format;  // likewise: ONNX runs' hashes stay put
  if (!c.weightFill.empty()) j["weight_fill"] = weightFillsToJson(c.weightFill);
  if (!c.caffeLayers.empty()) j["caffe_layers"] = c.caffeLayers;  // absent when unused: old hashes stay
  if (!c.net.empty()) j["limits"] = netLimitsToJson(c.net);  // absent when unused: old hashes stay
  if (c.outputs != OutputMix{}) j["outputs"] = {{"consumed", c.outputs.consumed}, {"weights", c.outputs.weights}};  // likewise
  return j;
}

std::string configHash(const GenConfig& c) {
  json j = configToJson(c);
  j.erase("seed");  // the seed is recorded on its own; the hash names the policy
  const std::string text = j.dump();
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : text) h = (h ^ ch) * 1099511628211ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace nnfuzz
