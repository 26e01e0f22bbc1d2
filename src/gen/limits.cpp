#include "gen/limits.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gen/config.h"
#include "ops/instantiate.h"
#include "ops/registry.h"
#include "support/error.h"

namespace nnfuzz {

using nlohmann::json;

namespace {

[[noreturn]] void bad(const std::string& field, const std::string& why) {
  throw Error("config field 'limits." + field + "': " + why);
}

std::string numberText(double v) {
  if (v == std::floor(v) && std::abs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

const AttrSpec* findAttr(const OpSpec& spec, const std::string& name) {
  for (const AttrSpec& a : spec.attrs)
    if (a.name == name) return &a;
  return nullptr;
}

bool isNumericKind(AttrKind k) { return k == AttrKind::Int || k == AttrKind::Float || k == AttrKind::Ints || k == AttrKind::Floats; }

/// "inputK.dimD" -> (K, D), or nullopt.
std::optional<std::pair<int, int>> parseDimKey(const std::string& key) {
  int k = -1, d = -1;
  char tail = 0;
  if (std::sscanf(key.c_str(), "input%d.dim%d%c", &k, &d, &tail) != 2 || k < 0 || d < 0) return std::nullopt;
  return std::pair{k, d};
}

ParamLimit parseParam(const OpSpec& spec, const std::string& key, const json& value) {
  const std::string field = "params." + std::string(spec.name) + "." + key;
  ParamLimit limit;
  limit.key = key;
  const AttrSpec* attr = nullptr;
  if (auto dim = parseDimKey(key)) {
    limit.operand = dim->first;
    limit.dim = dim->second;
    if (limit.operand >= spec.maxInputs) bad(field, std::string(spec.name) + " has no operand " + std::to_string(limit.operand));
  } else {
    attr = findAttr(spec, key);
    if (!attr) {
      std::string known;
      for (const AttrSpec& a : spec.attrs) known += (known.empty() ? "" : " ") + std::string(a.name);
      bad(field, "unknown attribute of " + std::string(spec.name) + " (known: " + (known.empty() ? "none" : known) +
                     "; or inputK.dimD for a dimension of operand K)");
    }
  }
  const bool numeric = !attr || isNumericKind(attr->kind);
  if (value.is_object()) {
    if (!numeric) bad(field, "a string attribute takes a set of values, not a range");
    for (const auto& [k, v] : value.items()) {
      if (k != "min" && k != "max") bad(field, "unknown key '" + k + "' (a range has min and max)");
      if (!v.is_number()) bad(field, k + " must be a number");
    }
    if (value.contains("min")) limit.min = value["min"].get<double>();
    if (value.contains("max")) limit.max = value["max"].get<double>();
    if (!limit.min && !limit.max) bad(field, "a range needs min or max");
    if (limit.min && limit.max && *limit.min > *limit.max)
      bad(field, "empty range: min " + numberText(*limit.min) + " > max " + numberText(*limit.max));
    // The range must meet the op's own domain, or no node could ever satisfy it.
    const double lo = attr ? attr->lo : 1, hi = attr ? attr->hi : 1e18;
    if ((limit.max && *limit.max < lo) || (limit.min && *limit.min > hi))
      bad(field, "no value of " + std::string(spec.name) + "'s domain [" + numberText(lo) + ", " + numberText(hi) +
                     "] is in the range");
  } else if (value.is_array()) {
    if (value.empty()) bad(field, "empty set");
    bool anyInDomain = false;
    for (const json& v : value) {
      if (numeric) {
        if (!v.is_number()) bad(field, "expected numbers, got " + v.dump());
        const double x = v.get<double>();
        limit.set.push_back(numberText(x));
        anyInDomain = anyInDomain || (attr ? x >= attr->lo && x <= attr->hi : x >= 1);
      } else {
        if (!v.is_string()) bad(field, "expected strings, got " + v.dump());
        const std::string s = v.get<std::string>();
        limit.set.push_back(s);
        anyInDomain = anyInDomain || attr->choices.empty() ||
                      std::find(attr->choices.begin(), attr->choices.end(), s) != attr->choices.end();
      }
    }
    if (!anyInDomain) bad(field, "no value of the set is in " + std::string(spec.name) + "'s domain");
  } else {
    bad(field, "expected a range {\"min\": a, \"max\": b} or a set [v, ...]");
  }
  return limit;
}

bool allowsValue(const ParamLimit& limit, const AttrValue& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return limit.allowsNumber(static_cast<double>(*i));
  if (const auto* d = std::get_if<double>(&value)) return limit.allowsNumber(*d);
  if (const auto* s = std::get_if<std::string>(&value)) return limit.allowsText(*s);
  if (const auto* is = std::get_if<std::vector<int64_t>>(&value))
    return std::all_of(is->begin(), is->end(), [&](int64_t x) { return limit.allowsNumber(static_cast<double>(x)); });
  if (const auto* ds = std::get_if<std::vector<double>>(&value))
    return std::all_of(ds->begin(), ds->end(), [&](double x) { return limit.allowsNumber(x); });
  if (std::holds_alternative<GraphAttr>(value)) return true;  // bodies have limits of their own
  const auto& ss = std::get<std::vector<std::string>>(value);
  return std::all_of(ss.begin(), ss.end(), [&](const std::string& x) { return limit.allowsText(x); });
}

}  // namespace

bool ParamLimit::allowsNumber(double v) const {
  if (!set.empty()) return std::find(set.begin(), set.end(), numberText(v)) != set.end();
  return (!min || v >= *min) && (!max || v <= *max);
}

bool ParamLimit::allowsText(const std::string& text) const {
  return std::find(set.begin(), set.end(), text) != set.end();
}

std::string RequiredSequence::text() const {
  std::string s;
  for (const OpSpec* op : ops) s += (s.empty() ? "" : ">") + std::string(op->name);
  return s;
}

bool NetLimits::paramsAllow(const OpSpec& spec, std::span<const TensorType* const> operands,
                            const Attributes& attrs) const {
  for (const OpParamLimits& opLimits : params) {
    if (opLimits.op != &spec) continue;
    for (const ParamLimit& limit : opLimits.params) {
      if (limit.operand >= 0) {
        const auto k = static_cast<size_t>(limit.operand);
        if (k >= operands.size() || !operands[k] || limit.dim >= operands[k]->rank()) return false;
        if (!limit.allowsNumber(static_cast<double>(operands[k]->shape[static_cast<size_t>(limit.dim)]))) return false;
        continue;
      }
      auto it = std::find_if(attrs.begin(), attrs.end(), [&](const auto& kv) { return kv.first == limit.key; });
      if (it == attrs.end() || !allowsValue(limit, it->second)) return false;
    }
  }
  return true;
}

bool NetLimits::inputShapeAllows(const TensorType& type) const {
  return inputShapes.empty() || std::find(inputShapes.begin(), inputShapes.end(), type.shape) != inputShapes.end();
}

std::vector<RequiredSequence> mergeSequences(std::vector<RequiredSequence> seqs) {
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t a = 0; a < seqs.size() && !merged; ++a)
      for (size_t b = 0; b < seqs.size() && !merged; ++b) {
        if (a == b || seqs[a].ops.back() != seqs[b].ops.front()) continue;
        RequiredSequence joined = seqs[a];
        joined.ops.insert(joined.ops.end(), seqs[b].ops.begin() + 1, seqs[b].ops.end());
        joined.p = std::max(seqs[a].p, seqs[b].p);
        seqs.erase(seqs.begin() + static_cast<std::ptrdiff_t>(std::max(a, b)));
        seqs[std::min(a, b)] = std::move(joined);
        merged = true;
      }
  }
  return seqs;
}

NetLimits parseNetLimits(const json& j) {
  if (!j.is_object()) throw Error("config field 'limits': expected an object with depth, sequences, params, input_shapes");
  NetLimits out;
  for (const auto& [key, value] : j.items()) {
    if (key == "depth") {
      if (!value.is_object()) bad("depth", "expected {\"min\": a, \"max\": b}");
      for (const auto& [k, v] : value.items()) {
        if (k != "min" && k != "max") bad("depth", "unknown key '" + k + "'");
        if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 100000)
          bad("depth." + k, "expected an integer in [1, 100000]");
      }
      out.minDepth = value.value("min", 0);
      out.maxDepth = value.value("max", 0);
      if (out.maxDepth > 0 && out.minDepth > out.maxDepth)
        bad("depth", "empty range: min " + std::to_string(out.minDepth) + " > max " + std::to_string(out.maxDepth));
    } else if (key == "sequences") {
      if (!value.is_array()) bad("sequences", "expected a list like [{\"ops\": [\"Conv\", \"Gemm\"], \"p\": 0.5}]");
      std::vector<RequiredSequence> seqs;
      for (size_t i = 0; i < value.size(); ++i) {
        const std::string field = "sequences[" + std::to_string(i) + "]";
        const json& s = value[i];
        if (!s.is_object() || !s.contains("ops") || !s["ops"].is_array() || s["ops"].size() < 2)
          bad(field, "needs \"ops\": a list of at least two operator names");
        RequiredSequence seq;
        for (const auto& [k, _] : s.items())
          if (k != "ops" && k != "p") bad(field, "unknown key '" + k + "'");
        for (const json& name : s["ops"]) {
          const OpSpec* spec = name.is_string() ? findOp(name.get<std::string>()) : nullptr;
          if (!spec) bad(field, "unknown operator " + name.dump());
          seq.ops.push_back(spec);
        }
        if (s.contains("p")) {
          if (!s["p"].is_number() || s["p"].get<double>() < 0 || s["p"].get<double>() > 1) bad(field + ".p", "must be in [0, 1]");
          seq.p = s["p"].get<double>();
        }
        seqs.push_back(std::move(seq));
      }
      out.sequences = mergeSequences(std::move(seqs));
    } else if (key == "params") {
      if (!value.is_object()) bad("params", "expected {\"Conv\": {\"kernel_shape\": {\"min\": 3, \"max\": 4}}}");
      for (const auto& [opName, limits] : value.items()) {
        const OpSpec* spec = findOp(opName);
        if (!spec) bad("params", "unknown operator '" + opName + "'");
        if (!limits.is_object()) bad("params." + opName, "expected an object of parameter limits");
        OpParamLimits opLimits{spec, {}};
        for (const auto& [param, v] : limits.items()) opLimits.params.push_back(parseParam(*spec, param, v));
        out.params.push_back(std::move(opLimits));
      }
    } else if (key == "input_shapes") {
      if (!value.is_array() || value.empty()) bad("input_shapes", "expected a list of shapes like [[1, 16, 10, 10]]");
      for (const json& shape : value) {
        if (!shape.is_array()) bad("input_shapes", "expected a list of shapes, got " + shape.dump());
        Shape s;
        for (const json& d : shape) {
          if (!d.is_number_integer() || d.get<int64_t>() < 1 || d.get<int64_t>() > 4096)
            bad("input_shapes", "dimensions must be integers in [1, 4096], got " + d.dump());
          s.push_back(d.get<int64_t>());
        }
        if (s.size() > 8) bad("input_shapes", "rank must be <= 8");
        out.inputShapes.push_back(std::move(s));
      }
    } else {
      throw Error("config field 'limits': unknown key '" + key + "' (known: depth, sequences, params, input_shapes)");
    }
  }
  return out;
}

json netLimitsToJson(const NetLimits& l) {
  json j = json::object();
  if (l.minDepth > 0 || l.maxDepth > 0) {
    j["depth"] = json::object();
    if (l.minDepth > 0) j["depth"]["min"] = l.minDepth;
    if (l.maxDepth > 0) j["depth"]["max"] = l.maxDepth;
  }
  if (!l.sequences.empty()) {
    j["sequences"] = json::array();
    for (const RequiredSequence& s : l.sequences) {
      json ops = json::array();
      for (const OpSpec* op : s.ops) ops.push_back(std::string(op->name));
      j["sequences"].push_back({{"ops", ops}, {"p", s.p}});
    }
  }
  if (!l.params.empty()) {
    j["params"] = json::object();
    for (const OpParamLimits& o : l.params) {
      json& op = j["params"][std::string(o.op->name)];
      op = json::object();
      for (const ParamLimit& p : o.params) {
        if (!p.set.empty()) {
          op[p.key] = p.set;
        } else {
          json range = json::object();
          if (p.min) range["min"] = *p.min;
          if (p.max) range["max"] = *p.max;
          op[p.key] = range;
        }
      }
    }
  }
  if (!l.inputShapes.empty()) j["input_shapes"] = l.inputShapes;
  return j;
}

void validateNetLimits(const GenConfig& c) {
  const NetLimits& l = c.net;
  const bool structural = l.minDepth > 0 || l.maxDepth > 0 || !l.sequences.empty() || !l.inputShapes.empty();
  if (structural && c.generator != "isra" && c.generator != "graph")
    throw Error("config field 'limits': depth, sequences and input_shapes are honoured by the isra and graph generators, not " +
                c.generator);
  for (const RequiredSequence& s : l.sequences) {
    for (const OpSpec* op : s.ops)
      if (!usableUnder(*op, c.limits))
        throw Error("config field 'limits.sequences': " + std::string(op->name) + " of " + s.text() +
                    " cannot be generated with these dtypes and max_rank");
    if (l.maxDepth > 0 && static_cast<int>(s.ops.size()) > l.maxDepth)
      throw Error("config field 'limits.sequences': " + s.text() + " is longer than the maximum depth " +
                  std::to_string(l.maxDepth));
  }
  for (const Shape& s : l.inputShapes)
    if (static_cast<int>(s.size()) > c.limits.maxRank)
      throw Error("config field 'limits.input_shapes': rank " + std::to_string(s.size()) + " exceeds max_rank " +
                  std::to_string(c.limits.maxRank));
}

namespace {

int64_t narrowInt(const ParamLimit& l, int64_t v, Rng& rng) {
  if (!l.set.empty()) {
    if (l.allowsNumber(static_cast<double>(v))) return v;
    return static_cast<int64_t>(std::stod(l.set[static_cast<size_t>(rng.uniformInt(0, static_cast<int64_t>(l.set.size()) - 1))]));
  }
  if (l.min && static_cast<double>(v) < *l.min) return static_cast<int64_t>(std::ceil(*l.min));
  if (l.max && static_cast<double>(v) > *l.max) return static_cast<int64_t>(std::floor(*l.max));
  return v;
}

double narrowFloat(const ParamLimit& l, double v, Rng& rng) {
  if (!l.set.empty()) {
    if (l.allowsNumber(v)) return v;
    return std::stod(l.set[static_cast<size_t>(rng.uniformInt(0, static_cast<int64_t>(l.set.size()) - 1))]);
  }
  if (l.min && v < *l.min) return *l.min;
  if (l.max && v > *l.max) return *l.max;
  return v;
}

}  // namespace

bool narrowAttributes(const NetLimits& limits, const OpSpec& spec, Attributes& attrs, Rng& rng) {
  bool changed = false;
  for (const OpParamLimits& opLimits : limits.params) {
    if (opLimits.op != &spec) continue;
    for (const ParamLimit& l : opLimits.params) {
      if (l.operand >= 0) continue;
      auto it = std::find_if(attrs.begin(), attrs.end(), [&](const auto& kv) { return kv.first == l.key; });
      if (it == attrs.end()) continue;
      AttrValue v = it->second;
      if (auto* i = std::get_if<int64_t>(&v)) *i = narrowInt(l, *i, rng);
      else if (auto* d = std::get_if<double>(&v)) *d = static_cast<double>(static_cast<float>(narrowFloat(l, *d, rng)));
      else if (auto* is = std::get_if<std::vector<int64_t>>(&v)) for (int64_t& x : *is) x = narrowInt(l, x, rng);
      else if (auto* ds = std::get_if<std::vector<double>>(&v))
        for (double& x : *ds) x = static_cast<double>(static_cast<float>(narrowFloat(l, x, rng)));
      else if (auto* str = std::get_if<std::string>(&v)) {
        if (!l.allowsText(*str)) *str = l.set[static_cast<size_t>(rng.uniformInt(0, static_cast<int64_t>(l.set.size()) - 1))];
      }
      if (!(v == it->second)) {
        attrs.set(l.key, std::move(v));
        changed = true;
      }
    }
  }
  return changed;
}

std::optional<TensorType> sampleWithinDims(const NetLimits& limits, const OpSpec& spec, int index,
                                           const std::function<TensorType(Rng&)>& sample, Rng& rng) {
  std::vector<const ParamLimit*> dims;
  for (const OpParamLimits& opLimits : limits.params)
    if (opLimits.op == &spec)
      for (const ParamLimit& l : opLimits.params)
        if (l.operand == index) dims.push_back(&l);
  if (dims.empty()) return std::nullopt;
  constexpr int kTries = 64;
  for (int t = 0; t < kTries; ++t) {
    TensorType type = sample(rng);
    const bool ok = std::all_of(dims.begin(), dims.end(), [&](const ParamLimit* l) {
      return l->dim < type.rank() && l->allowsNumber(static_cast<double>(type.shape[static_cast<size_t>(l->dim)]));
    });
    if (ok) return type;
  }
  return std::nullopt;
}

std::vector<int> valueDepths(const Graph& g) {
  std::vector<int> depth(g.valueCapacity(), 0);
  for (NodeId id : g.order()) {
    const Node& n = g.node(id);
    if (!n.alive) continue;
    int d = 0;
    for (ValueId v : n.inputs)
      if (v != kNoValue) d = std::max(d, depth[v]);
    for (ValueId v : n.outputs) depth[v] = d + 1;
  }
  return depth;
}

int graphDepth(const Graph& g) {
  const std::vector<int> depth = valueDepths(g);
  int d = 0;
  for (ValueId v : g.outputs()) d = std::max(d, depth[v]);
  return d;
}

}  // namespace nnfuzz
