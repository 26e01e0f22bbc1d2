// schema_probe.cpp - random calls of an operator from its OpSchema (see schema_probe.h).
#include "infer/schema_probe.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include <onnx/defs/schema.h>

#include "infer/partial_op.h"
#include "support/error.h"
#include "support/rng.h"

namespace nnfuzz::infer {

namespace {

using Schema = onnx::OpSchema;

// Tensor types tools/ort_label.py can feed random values to, most useful first.
constexpr std::pair<const char*, int> kTensorTypes[] = {
    {"tensor(float)", onnx::TensorProto::FLOAT}, {"tensor(int64)", onnx::TensorProto::INT64},
    {"tensor(int32)", onnx::TensorProto::INT32}, {"tensor(bool)", onnx::TensorProto::BOOL},
    {"tensor(double)", onnx::TensorProto::DOUBLE}, {"tensor(float16)", onnx::TensorProto::FLOAT16},
    {"tensor(uint8)", onnx::TensorProto::UINT8},  {"tensor(int8)", onnx::TensorProto::INT8}};

std::vector<std::string> allowedTypes(const Schema& s, const Schema::FormalParameter& f) {
  for (const auto& c : s.typeConstraintParams())
    if (c.type_param_str == f.GetTypeStr()) return c.allowed_type_strs;
  return {f.GetTypeStr()};
}

// The usable element types of a formal parameter, in kTensorTypes order.
std::vector<int> usableTypes(const Schema& s, const Schema::FormalParameter& f) {
  const std::vector<std::string> allowed = allowedTypes(s, f);
  std::vector<int> out;
  for (const auto& [text, type] : kTensorTypes)
    if (std::find(allowed.begin(), allowed.end(), text) != allowed.end()) out.push_back(type);
  return out;
}

// A type per type-constraint name (inputs sharing "T" share the type): mostly the first
// usable one, sometimes another.
int chooseType(const Schema& s, const Schema::FormalParameter& f, std::map<std::string, int>& chosen, Rng& rng) {
  auto it = chosen.find(f.GetTypeStr());
  if (it != chosen.end()) return it->second;
  std::vector<int> usable = usableTypes(s, f);
  if (usable.empty()) return 0;
  int type = rng.bernoulli(0.7) ? usable.front() : rng.pick(usable);
  chosen[f.GetTypeStr()] = type;
  return type;
}

std::vector<int64_t> randomShape(int rank, Rng& rng) {
  std::vector<int64_t> shape(static_cast<size_t>(rank));
  for (auto& d : shape) d = rng.uniformInt(1, 5);
  return shape;
}

// An input's shape: the call's base shape (elementwise operators need equal shapes), the
// base with some dims 1 (broadcasting), or an unrelated one.
std::vector<int64_t> inputShape(const std::vector<int64_t>& base, Rng& rng) {
  double u = rng.uniformReal(0, 1);
  if (u < 0.6) return base;
  if (u < 0.8) {
    auto shape = base;
    for (auto& d : shape)
      if (rng.bernoulli(0.5)) d = 1;
    return shape;
  }
  return randomShape(static_cast<int>(rng.uniformInt(0, 4)), rng);
}

// Integer list attributes whose length follows the spatial rank.
int64_t listLength(const std::string& name, int rank) {
  const int spatial = std::max(rank - 2, 1);
  if (name == "pads") return 2 * spatial;
  if (name == "kernel_shape" || name == "strides" || name == "dilations" || name == "output_padding" ||
      name == "output_shape")
    return spatial;
  return std::max(rank, 1);
}

// False when the attribute is required and a record cannot hold a value for it.
bool fillAttribute(const Schema::Attribute& a, int rank, Rng& rng, Record& r) {
  AttrValue v;
  switch (a.type) {
    case onnx::AttributeProto::INT:
      if (!a.required && !rng.bernoulli(0.5)) return true;
      v.kind = AttrValue::Int;
      v.ints = {a.required ? rng.uniformInt(1, 3) : rng.uniformInt(-1, 2)};
      break;
    case onnx::AttributeProto::INTS:
      if (!a.required && !rng.bernoulli(0.25)) return true;
      v.kind = AttrValue::Ints;
      for (int64_t j = 0; j < listLength(a.name, rank); ++j) v.ints.push_back(rng.uniformInt(a.name == "pads" ? 0 : 1, 2));
      break;
    case onnx::AttributeProto::FLOAT:
      if (!a.required) return true;  // rule-orthogonal: the default serves
      v.kind = AttrValue::Float;
      v.floats = {1.0};
      break;
    case onnx::AttributeProto::FLOATS:
      if (!a.required) return true;
      v.kind = AttrValue::Floats;
      v.floats = {1.0};
      break;
    default:
      return !a.required;  // strings have no default a probe could guess; tensors and graphs no record form
  }
  r.attrs[a.name] = std::move(v);
  return true;
}

// One candidate call, or nullopt with `why`.
std::optional<Record> probeOnce(const Schema& s, Rng& rng, std::string* why) {
  Record r;
  r.op = s.Name();
  r.domain = s.domain();
  r.opset = s.since_version();
  r.source = "probe:" + s.Name();
  const std::vector<int64_t> base = randomShape(static_cast<int>(rng.uniformInt(1, 4)), rng);
  std::map<std::string, int> chosen;
  for (const auto& f : s.inputs()) {
    int copies = 1;
    if (f.GetOption() == Schema::Optional) copies = rng.bernoulli(0.5) ? 1 : 0;
    if (f.GetOption() == Schema::Variadic) copies = std::max(f.GetMinArity(), 1) + static_cast<int>(rng.uniformInt(0, 1));
    for (int c = 0; c < copies; ++c) {
      int type = chooseType(s, f, chosen, rng);
      if (type == 0) {
        *why = "input " + f.GetName() + " has no tensor type a probe can feed";
        return std::nullopt;
      }
      r.inputs.push_back({type, inputShape(base, rng)});
    }
    if (copies == 0) r.inputs.push_back({});
  }
  while (!r.inputs.empty() && !r.inputs.back().present()) r.inputs.pop_back();
  size_t needed = 0;  // outputs up to the last required one
  for (size_t k = 0; k < s.outputs().size(); ++k)
    if (s.outputs()[k].GetOption() != Schema::Optional) needed = k + 1;
  for (size_t k = 0; k < needed; ++k) {
    const auto& f = s.outputs()[k];
    if (usableTypes(s, f).empty()) {
      *why = "output " + f.GetName() + " is not a tensor a record can hold";
      return std::nullopt;
    }
    int copies = f.GetOption() == Schema::Variadic ? std::max(f.GetMinArity(), 2) : 1;
    for (int c = 0; c < copies; ++c) r.outputs.push_back({});  // typed by the acceptor
  }
  for (const auto& [name, a] : s.attributes())
    if (!fillAttribute(a, static_cast<int>(base.size()), rng, r)) {
      *why = "required attribute " + name + " a probe cannot fill";
      return std::nullopt;
    }
  return r;
}

Schema::FormalParameterOption optionNamed(const std::string& name) {
  if (name == "optional") return Schema::Optional;
  if (name == "variadic") return Schema::Variadic;
  return Schema::Single;
}

bool feedable(const std::string& type) {
  return std::any_of(std::begin(kTensorTypes), std::end(kTensorTypes), [&](const auto& t) { return type == t.first; });
}

// An OpSchema holding what a probe reads (formal parameters, type constraints, attributes).
// Types are kept to those a probe feeds (libonnx 1.12 cannot even parse newer ones such as
// tensor(int4)); a formal parameter of another fixed type gets a constraint allowing none.
Schema schemaFromJson(const nlohmann::json& j, const std::string& domain) {
  Schema s;
  s.SetName(j.at("name").get<std::string>()).SetDomain(domain).SinceVersion(j.at("since_version").get<int>());
  std::set<std::string> constraints;
  for (const auto& c : j.at("type_constraints")) {
    std::vector<std::string> allowed;
    for (const auto& t : c.at("allowed"))
      if (feedable(t.get<std::string>())) allowed.push_back(t.get<std::string>());
    constraints.insert(c.at("name").get<std::string>());
    s.TypeConstraint(c.at("name").get<std::string>(), allowed, "");
  }
  auto typeOf = [&](const nlohmann::json& f) {
    const std::string type = f.at("type").get<std::string>();
    if (constraints.count(type) || feedable(type)) return type;
    if (!constraints.count("Unfeedable")) s.TypeConstraint("Unfeedable", {}, "");
    constraints.insert("Unfeedable");
    return std::string("Unfeedable");
  };
  int n = 0;
  for (const auto& f : j.at("inputs"))
    s.Input(n++, f.at("name").get<std::string>(), "", typeOf(f), optionNamed(f.at("option")), true, f.value("min_arity", 1));
  n = 0;
  for (const auto& f : j.at("outputs"))
    s.Output(n++, f.at("name").get<std::string>(), "", typeOf(f), optionNamed(f.at("option")), true, f.value("min_arity", 1));
  for (const auto& a : j.at("attributes")) {
    onnx::AttributeProto::AttributeType type = onnx::AttributeProto::UNDEFINED;
    if (!onnx::AttributeProto::AttributeType_Parse(a.at("type").get<std::string>(), &type))
      throw Error("attribute " + a.at("name").get<std::string>() + " has an unknown type");
    s.Attr(a.at("name").get<std::string>(), "", type, a.at("required").get<bool>());
  }
  return s;
}

std::vector<Record> probeSchema(const Schema& schema, int count, uint64_t seed, std::string* why);

}  // namespace

std::vector<std::string> defaultDomainOperators(int opset) {
  std::set<std::string> names;
  for (const Schema& s : onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
    if (!s.domain().empty() || s.since_version() > opset) continue;
    const Schema* current = onnx::OpSchemaRegistry::Schema(s.Name(), opset, "");
    if (current && !current->Deprecated()) names.insert(s.Name());
  }
  return {names.begin(), names.end()};
}

std::vector<Record> probeRecords(const std::string& op, int opset, int count, uint64_t seed, std::string* why) {
  const Schema* s = onnx::OpSchemaRegistry::Schema(op, opset, "");
  if (!s || s->Deprecated()) {
    *why = "no schema at opset " + std::to_string(opset);
    return {};
  }
  return probeSchema(*s, count, seed, why);
}

SchemaDump loadSchemaDump(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read schema dump " + path);
  SchemaDump d;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    d.domain = j.at("domain").get<std::string>();
    d.onnxruntime = j.at("onnxruntime").get<std::string>();
    d.schemas = j.at("schemas");
    if (!d.schemas.is_array() || d.domain.empty()) throw Error("no schemas");
  } catch (const std::exception& e) {
    throw Error("schema dump " + path + " is malformed (want tools/ort_contrib_schemas.py's output): " +
                std::string(e.what()).substr(0, 200));
  }
  return d;
}

std::vector<std::string> SchemaDump::cpuOperators() const {
  std::vector<std::string> out;
  for (const auto& s : schemas)
    if (s.value("cpu_kernel", false) && !s.value("deprecated", false)) out.push_back(s.at("name").get<std::string>());
  return out;
}

std::vector<Record> probeDumpRecords(const SchemaDump& dump, const std::string& op, int count, uint64_t seed,
                                     std::string* why) {
  const nlohmann::json* found = nullptr;
  for (const auto& s : dump.schemas)
    if (s.at("name") == op) found = &s;
  if (!found) {
    *why = "no schema for " + op + " in the " + dump.domain + " dump";
    return {};
  }
  Schema schema;
  try {
    schema = schemaFromJson(*found, dump.domain);
  } catch (const nlohmann::json::exception& e) {
    throw Error("schema of " + dump.domain + "." + op + " in the dump is malformed: " + e.what());
  } catch (const std::exception& e) {  // libonnx refusing what it cannot represent
    *why = "schema libonnx cannot hold: " + std::string(e.what()).substr(0, 120);
    return {};
  }
  return probeSchema(schema, count, seed, why);
}

namespace {

std::vector<Record> probeSchema(const Schema& schema, int count, uint64_t seed, std::string* why) {
  const Schema* s = &schema;
  Rng rng(seed);
  std::vector<Record> out;
  std::set<std::string> seen;
  // Attempts are bounded: a schema whose calls collide (few symbols) yields fewer.
  for (int attempt = 0; attempt < 4 * count && static_cast<int>(out.size()) < count; ++attempt) {
    auto r = probeOnce(*s, rng, why);
    if (!r) return {};  // the schema, not the draw, is the obstacle
    std::string key = inputSignature(*r);
    for (int64_t v : symbolValues(*r)) key += " " + std::to_string(v);
    for (const TensorSig& in : r->inputs) key += " t" + std::to_string(in.elemType);
    if (!seen.insert(key).second) continue;
    r->source += "#" + std::to_string(out.size());
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace

}  // namespace nnfuzz::infer
