// block_template.cpp - subgraph recipes: operand refs, JSON, validation, derived attributes.
#include "gen/block_template.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "ops/registry.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

using Json = nlohmann::ordered_json;

int parseIndex(std::string_view digits, std::string_view whole) {
  int v = -1;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || end != digits.data() + digits.size() || v < 0)
    throw Error("bad operand '" + std::string(whole) + "'");
  return v;
}

void readAttr(Attributes& attrs, const std::string& name, const Json& v, const std::string& where) {
  auto allOf = [&](auto pred) { return std::all_of(v.begin(), v.end(), pred); };
  if (v.is_number_integer()) {
    attrs.setInt(name, v.get<int64_t>());
  } else if (v.is_number()) {
    attrs.setFloat(name, v.get<double>());
  } else if (v.is_string()) {
    attrs.setString(name, v.get<std::string>());
  } else if (v.is_array() && !v.empty() && allOf([](const Json& x) { return x.is_number_integer(); })) {
    attrs.setInts(name, v.get<std::vector<int64_t>>());
  } else if (v.is_array() && !v.empty() && allOf([](const Json& x) { return x.is_number(); })) {
    attrs.setFloats(name, v.get<std::vector<double>>());
  } else if (v.is_array() && !v.empty() && allOf([](const Json& x) { return x.is_string(); })) {
    attrs.setStrings(name, v.get<std::vector<std::string>>());
  } else {
    throw Error(where + ": attribute '" + name + "' must be a number, a string or a non-empty list of numbers or strings");
  }
}

Json attrJson(const AttrValue& v) {
  if (std::holds_alternative<GraphAttr>(v)) throw Error("a block template cannot hold a graph attribute");
  return std::visit(
      [](const auto& x) {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, GraphAttr>)
          return Json();
        else
          return Json(x);
      },
      v);
}

const std::set<std::string, std::less<>> kDeriveRules = {"swap_last_two"};

}  // namespace

OperandRef parseOperandRef(std::string_view text) {
  OperandRef r;
  if (text == "w") {
    r.kind = OperandRef::Kind::Weight;
  } else if (text == "x") {
    r.kind = OperandRef::Kind::Input;
  } else if (text == "none") {
    r.kind = OperandRef::Kind::Omitted;
  } else if (text == "default") {
    r.kind = OperandRef::Kind::Default;
  } else if (text.starts_with("in:")) {
    r.kind = OperandRef::Kind::BlockInput;
    r.index = parseIndex(text.substr(3), text);
  } else if (text.starts_with("m:")) {
    r.kind = OperandRef::Kind::Member;
    const std::string_view rest = text.substr(2);
    const size_t dot = rest.find('.');
    r.index = parseIndex(rest.substr(0, dot), text);
    if (dot != std::string_view::npos) r.output = parseIndex(rest.substr(dot + 1), text);
  } else if (text.starts_with("c:")) {
    r.kind = OperandRef::Kind::Constant;
    const std::string number(text.substr(2));
    size_t used = 0;
    try {
      r.value = std::stod(number, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != number.size()) throw Error("bad operand '" + std::string(text) + "'");
  } else {
    throw Error("bad operand '" + std::string(text) + "' (use in:K, m:J, m:J.O, w, x, c:V, none or default)");
  }
  return r;
}

std::string operandRefText(const OperandRef& r) {
  switch (r.kind) {
    case OperandRef::Kind::BlockInput: return "in:" + std::to_string(r.index);
    case OperandRef::Kind::Member:
      return "m:" + std::to_string(r.index) + (r.output ? "." + std::to_string(r.output) : "");
    case OperandRef::Kind::Weight: return "w";
    case OperandRef::Kind::Input: return "x";
    case OperandRef::Kind::Constant: return "c:" + formatValue(r.value);
    case OperandRef::Kind::Omitted: return "none";
    case OperandRef::Kind::Default: break;
  }
  return "default";
}

int SubgraphTemplate::numInputs() const {
  int n = 0;
  for (const MemberTemplate& m : members)
    for (const OperandRef& r : m.operands)
      if (r.kind == OperandRef::Kind::BlockInput) n = std::max(n, r.index + 1);
  return n;
}

std::vector<std::pair<int, int>> SubgraphTemplate::innerEdges() const {
  std::vector<std::pair<int, int>> edges;
  for (size_t j = 0; j < members.size(); ++j)
    for (const OperandRef& r : members[j].operands)
      if (r.kind == OperandRef::Kind::Member) edges.emplace_back(r.index, static_cast<int>(j));
  return edges;
}

void SubgraphTemplate::validate(const std::string& block) const {
  const std::string where = "corpus subgraph '" + block + "'";
  if (members.size() < 2) throw Error(where + " needs at least two members");
  std::vector<bool> inputUsed;
  for (size_t j = 0; j < members.size(); ++j) {
    const MemberTemplate& m = members[j];
    const OpSpec* spec = findOp(m.op);
    if (!spec) throw Error(where + ": member " + std::to_string(j) + " is unknown operator '" + m.op + "'");
    const int n = static_cast<int>(m.operands.size());
    if (n < spec->minInputs || n > spec->maxInputs)
      throw Error(where + ": member " + std::to_string(j) + " (" + m.op + ") takes " + std::to_string(spec->minInputs) +
                  ".." + std::to_string(spec->maxInputs) + " operands, not " + std::to_string(n));
    for (int k = 0; k < n; ++k) {
      const OperandRef& r = m.operands[static_cast<size_t>(k)];
      if (r.kind == OperandRef::Kind::Member && r.index >= static_cast<int>(j))
        throw Error(where + ": member " + std::to_string(j) + " reads m:" + std::to_string(r.index) +
                    ", which is not an earlier member");
      if (r.kind == OperandRef::Kind::BlockInput) {
        if (inputUsed.size() <= static_cast<size_t>(r.index)) inputUsed.resize(static_cast<size_t>(r.index) + 1);
        inputUsed[static_cast<size_t>(r.index)] = true;
      }
      if (r.isFlow() && spec->isConstantInput(k))
        throw Error(where + ": operand " + std::to_string(k) + " of " + m.op + " must be a constant, not " +
                    operandRefText(r));
      if (k == 0 && r.kind == OperandRef::Kind::Omitted) throw Error(where + ": a first operand cannot be none");
    }
    for (const auto& [attr, rule] : m.derived) {
      const bool inverse = rule.starts_with("inverse_of:");
      if (!inverse && !kDeriveRules.count(rule))
        throw Error(where + ": unknown derive rule '" + rule + "' (known: inverse_of:J, swap_last_two)");
      if (inverse && parseIndex(std::string_view(rule).substr(11), rule) >= static_cast<int>(j))
        throw Error(where + ": " + rule + " must name an earlier member");
    }
  }
  if (std::find(inputUsed.begin(), inputUsed.end(), false) != inputUsed.end())
    throw Error(where + ": block inputs must be in:0..in:K-1 with none skipped");
  if (inputUsed.empty()) throw Error(where + " reads no block input");
  if (outputs.empty()) throw Error(where + " has no outputs");
  for (const OperandRef& r : outputs)
    if (r.kind != OperandRef::Kind::Member || r.index >= static_cast<int>(members.size()))
      throw Error(where + ": output '" + operandRefText(r) + "' is not a member result");
}

SubgraphTemplate readTemplate(const Json& block, const std::string& name) {
  const std::string where = "corpus subgraph '" + name + "'";
  SubgraphTemplate t;
  const Json& list = block.at("members");
  if (!list.is_array()) throw Error(where + ": members must be a list");
  for (const Json& jm : list) {
    if (!jm.is_object() || !jm.contains("op") || !jm.at("op").is_string() || !jm.contains("inputs") ||
        !jm.at("inputs").is_array())
      throw Error(where + ": each member needs \"op\" and an \"inputs\" list");
    MemberTemplate m;
    m.op = jm.at("op").get<std::string>();
    for (const Json& in : jm.at("inputs")) {
      if (!in.is_string()) throw Error(where + ": operands are strings such as \"in:0\"");
      try {
        m.operands.push_back(parseOperandRef(in.get<std::string>()));
      } catch (const Error& e) {
        throw Error(where + ": " + e.what());
      }
    }
    if (jm.contains("attrs")) {
      if (!jm.at("attrs").is_object()) throw Error(where + ": attrs must be an object");
      for (const auto& [attr, v] : jm.at("attrs").items()) readAttr(m.attrs, attr, v, where);
    }
    if (jm.contains("derive")) {
      if (!jm.at("derive").is_object()) throw Error(where + ": derive must be an object");
      for (const auto& [attr, v] : jm.at("derive").items()) {
        if (!v.is_string()) throw Error(where + ": derive rules are strings");
        m.derived.emplace_back(attr, v.get<std::string>());
      }
    }
    t.members.push_back(std::move(m));
  }
  if (block.contains("outputs")) {
    if (!block.at("outputs").is_array()) throw Error(where + ": outputs must be a list");
    for (const Json& o : block.at("outputs")) {
      if (!o.is_string()) throw Error(where + ": outputs are strings such as \"m:2\"");
      try {
        t.outputs.push_back(parseOperandRef(o.get<std::string>()));
      } catch (const Error& e) {
        throw Error(where + ": " + e.what());
      }
    }
  } else if (!t.members.empty()) {
    t.outputs.push_back({OperandRef::Kind::Member, static_cast<int>(t.members.size()) - 1});
  }
  t.validate(name);
  return t;
}

void writeTemplate(const SubgraphTemplate& t, Json& block) {
  Json members = Json::array();
  for (const MemberTemplate& m : t.members) {
    Json jm;
    jm["op"] = m.op;
    Json inputs = Json::array();
    for (const OperandRef& r : m.operands) inputs.push_back(operandRefText(r));
    jm["inputs"] = inputs;
    if (!m.attrs.empty()) {
      Json attrs = Json::object();
      for (const auto& [name, v] : m.attrs) attrs[name] = attrJson(v);
      jm["attrs"] = attrs;
    }
    if (!m.derived.empty()) {
      Json derived = Json::object();
      for (const auto& [name, rule] : m.derived) derived[name] = rule;
      jm["derive"] = derived;
    }
    members.push_back(jm);
  }
  block["members"] = members;
  Json outputs = Json::array();
  for (const OperandRef& r : t.outputs) outputs.push_back(operandRefText(r));
  block["outputs"] = outputs;
}

std::optional<SubgraphTemplate> templateFromEdges(const std::vector<std::string>& members,
                                                  const std::vector<std::pair<int, int>>& edges) {
  SubgraphTemplate t;
  std::vector<bool> read(members.size(), false);
  int nextInput = 0;
  for (size_t j = 0; j < members.size(); ++j) {
    const OpSpec* spec = findOp(members[j]);
    if (!spec) return std::nullopt;
    MemberTemplate m;
    m.op = members[j];
    for (auto [src, dst] : edges)
      if (dst == static_cast<int>(j)) {
        if (src >= dst) return std::nullopt;  // a recipe builds members in order
        m.operands.push_back({OperandRef::Kind::Member, src});
        read[static_cast<size_t>(src)] = true;
      }
    if (m.operands.empty()) m.operands.push_back({OperandRef::Kind::BlockInput, nextInput++});
    while (static_cast<int>(m.operands.size()) < spec->minInputs) m.operands.push_back({});
    for (size_t k = 0; k < m.operands.size(); ++k)
      if (m.operands[k].isFlow() && spec->isConstantInput(static_cast<int>(k))) return std::nullopt;
    if (static_cast<int>(m.operands.size()) > spec->maxInputs) return std::nullopt;
    t.members.push_back(std::move(m));
  }
  for (size_t j = 0; j < members.size(); ++j)
    if (!read[j]) t.outputs.push_back({OperandRef::Kind::Member, static_cast<int>(j)});
  return t;
}

bool applyDerivedAttr(const std::string& name, const std::string& rule, const std::vector<Attributes>& earlier,
                      int firstInputRank, Attributes& attrs) {
  if (rule == "swap_last_two") {
    if (firstInputRank < 2) return false;
    std::vector<int64_t> perm(static_cast<size_t>(firstInputRank));
    for (int i = 0; i < firstInputRank; ++i) perm[static_cast<size_t>(i)] = i;
    std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    attrs.setInts(name, perm);
    return true;
  }
  if (rule.starts_with("inverse_of:")) {
    const size_t j = static_cast<size_t>(std::stoi(rule.substr(11)));
    if (j >= earlier.size() || !earlier[j].has(name)) return false;
    const std::vector<int64_t> perm = earlier[j].getInts(name);
    if (static_cast<int>(perm.size()) != firstInputRank) return false;
    std::vector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
    attrs.setInts(name, inverse);
    return true;
  }
  return false;
}

}  // namespace nnfuzz
