// rule_file.cpp - rule files in JSON, and their readable explanation.
#include "infer/rule_file.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "support/error.h"

namespace nnfuzz::infer {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json sigToJson(const TensorSig& s) {
  if (!s.present()) return nullptr;
  return {{"dtype", s.elemType}, {"shape", s.shape}};
}

TensorSig sigFromJson(const json& j) {
  if (j.is_null()) return {};
  return {j.at("dtype").get<int>(), j.at("shape").get<std::vector<int64_t>>()};
}

json attrToJson(const AttrValue& v) {
  switch (v.kind) {
    case AttrValue::Int: return {{"int", v.ints.at(0)}};
    case AttrValue::Ints: return {{"ints", v.ints}};
    case AttrValue::Float: return {{"float", v.floats.at(0)}};
    case AttrValue::Floats: return {{"floats", v.floats}};
    case AttrValue::String: return {{"string", v.strings.at(0)}};
    case AttrValue::Strings: return {{"strings", v.strings}};
  }
  return nullptr;
}

AttrValue attrFromJson(const json& j) {
  AttrValue v;
  if (j.contains("int")) v = {AttrValue::Int, {j["int"].get<int64_t>()}, {}, {}};
  else if (j.contains("ints")) v = {AttrValue::Ints, j["ints"].get<std::vector<int64_t>>(), {}, {}};
  else if (j.contains("float")) v = {AttrValue::Float, {}, {j["float"].get<double>()}, {}};
  else if (j.contains("floats")) v = {AttrValue::Floats, {}, j["floats"].get<std::vector<double>>(), {}};
  else if (j.contains("string")) v = {AttrValue::String, {}, {}, {j["string"].get<std::string>()}};
  else if (j.contains("strings")) v = {AttrValue::Strings, {}, {}, j["strings"].get<std::vector<std::string>>()};
  else throw Error("attribute " + j.dump() + " has no int/ints/float/floats/string/strings value");
  return v;
}

}  // namespace

json recordToJson(const Record& r) {
  json j = {{"source", r.source}, {"opset", r.opset}, {"passing", r.passing}};
  json ins = json::array(), outs = json::array(), attrs = json::object();
  for (const auto& s : r.inputs) ins.push_back(sigToJson(s));
  for (const auto& s : r.outputs) outs.push_back(sigToJson(s));
  for (const auto& [name, v] : r.attrs) attrs[name] = attrToJson(v);
  j["inputs"] = ins;
  j["attributes"] = attrs;
  j["outputs"] = outs;
  return j;
}

Record recordFromJson(const json& j, const std::string& op, const std::string& domain) {
  Record r;
  r.op = op;
  r.domain = domain;
  r.source = j.at("source").get<std::string>();
  r.opset = j.at("opset").get<int>();
  r.passing = j.at("passing").get<bool>();
  for (const auto& s : j.at("inputs")) r.inputs.push_back(sigFromJson(s));
  for (const auto& s : j.at("outputs")) r.outputs.push_back(sigFromJson(s));
  for (const auto& [name, v] : j.at("attributes").items()) r.attrs[name] = attrFromJson(v);
  return r;
}

json toJson(const OperatorRules& rules) {
  json partials = json::array();
  for (const PartialRule& p : rules.partials) {
    json shape = json::array(), constraints = json::array(), records = json::array();
    for (const auto& o : p.rule.outputs) shape.push_back(o ? json(toText(*o, p.symbols)) : json(nullptr));
    for (const auto& c : p.rule.constraints) constraints.push_back(toText(c, p.symbols));
    for (const auto& r : p.records) records.push_back(recordToJson(r));
    json partial = {{"signature", p.signature},
                    {"symbols", p.symbols},
                    {"outputs", p.outputs},
                    {"output_ranks", p.outputRanks},
                    {"shape", shape},
                    {"constraints", constraints},
                    {"constraint_status", statusName(p.rule.constraintStatus)},
                    {"records", records}};
    // Only when set: a rule the wall clock cut is what this machine found in time.
    if (p.rule.cutByClock) partial["cut_by_clock"] = true;
    partials.push_back(std::move(partial));
  }
  return {{"op", rules.op}, {"domain", rules.domain}, {"labelled_by", rules.labelledBy}, {"partial_operators", partials}};
}

OperatorRules rulesFromJson(const json& j, const std::string& what) {
  try {
    OperatorRules rules;
    rules.op = j.at("op").get<std::string>();
    rules.domain = j.at("domain").get<std::string>();
    rules.labelledBy = j.at("labelled_by").get<std::string>();
    for (const auto& pj : j.at("partial_operators")) {
      PartialRule p;
      p.signature = pj.at("signature").get<std::string>();
      p.symbols = pj.at("symbols").get<std::vector<std::string>>();
      p.outputs = pj.at("outputs").get<std::vector<std::string>>();
      p.outputRanks = pj.at("output_ranks").get<std::vector<int>>();
      for (const auto& e : pj.at("shape"))
        p.rule.outputs.push_back(e.is_null() ? std::nullopt : std::optional<Expr>(parseExpr(e.get<std::string>(), p.symbols)));
      if (p.rule.outputs.size() != p.outputs.size()) throw Error("\"shape\" and \"outputs\" differ in length");
      for (const auto& c : pj.at("constraints")) p.rule.constraints.push_back(parsePredicate(c.get<std::string>(), p.symbols));
      std::string status = pj.at("constraint_status").get<std::string>();
      if (status == "inferred") p.rule.constraintStatus = ConstraintStatus::Inferred;
      else if (status == "passing-only") p.rule.constraintStatus = ConstraintStatus::PassingOnly;
      else if (status == "failed") p.rule.constraintStatus = ConstraintStatus::Failed;
      else throw Error("unknown constraint_status \"" + status + "\"");
      p.rule.cutByClock = pj.value("cut_by_clock", false);
      for (const auto& r : pj.at("records")) p.records.push_back(recordFromJson(r, rules.op, rules.domain));
      rules.partials.push_back(std::move(p));
    }
    return rules;
  } catch (const json::exception& e) {
    throw Error(what + ": malformed rule file: " + e.what());
  } catch (const Error& e) {
    throw Error(what + ": " + e.what());
  }
}

std::string ruleFileName(const std::string& op, const std::string& domain) {
  return (domain.empty() ? "" : domain + ".") + op + ".json";
}

void writeRuleFile(const fs::path& dir, const OperatorRules& rules) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  fs::path path = dir / ruleFileName(rules.op, rules.domain);
  std::ofstream out(path);
  if (!out) throw Error("cannot write " + path.string());
  out << toJson(rules).dump(1) << "\n";
  if (!out) throw Error("cannot write " + path.string());
}

std::vector<OperatorRules> readRuleFiles(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error("rule folder " + dir.string() + " does not exist");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<OperatorRules> out;
  for (const auto& path : files) {
    std::ifstream in(path);
    json j = json::parse(in, nullptr, false);
    if (j.is_discarded()) throw Error(path.string() + ": not valid JSON");
    out.push_back(rulesFromJson(j, path.string()));
  }
  return out;
}

std::string explain(const OperatorRules& rules) {
  std::ostringstream s;
  s << (rules.domain.empty() ? "" : rules.domain + ".") << rules.op << ": " << rules.partials.size()
    << " partial operator(s), labelled by " << rules.labelledBy << "\n";
  for (const PartialRule& p : rules.partials) {
    int passing = static_cast<int>(std::count_if(p.records.begin(), p.records.end(), [](const Record& r) { return r.passing; }));
    s << "\n" << p.signature << "  (" << passing << " passing, " << p.records.size() - passing << " counter-examples)\n";
    if (p.rule.cutByClock) s << "  (cut by the wall-clock budget: the search stopped early)\n";
    s << "  requires (" << statusName(p.rule.constraintStatus) << "):\n";
    if (p.rule.constraints.empty()) s << "    nothing\n";
    for (const auto& c : p.rule.constraints) {
      std::string text = toText(c.expr, p.symbols);
      s << "    " << (c.equality ? text + " == 0" : text + " > 0") << "\n";
    }
    s << "  output shapes:\n";
    size_t d = 0;
    for (size_t k = 0; k < p.outputRanks.size(); ++k) {
      s << "    output " << k << " = [";
      for (int i = 0; i < p.outputRanks[k]; ++i, ++d) {
        const auto& e = p.rule.outputs[d];
        s << (i ? ", " : "") << (e ? toText(*e, p.symbols) : "?");
      }
      s << "]\n";
    }
  }
  return s.str();
}

}  // namespace nnfuzz::infer
