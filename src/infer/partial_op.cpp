// partial_op.cpp - partial operator keys, symbols and grouping.
#include "infer/partial_op.h"

#include <map>

namespace nnfuzz::infer {

std::string inputSignature(const Record& r) {
  std::string s = (r.domain.empty() ? "" : r.domain + ".") + r.op + " in=";
  for (size_t i = 0; i < r.inputs.size(); ++i) {
    if (i) s += ",";
    s += r.inputs[i].present() ? std::to_string(r.inputs[i].shape.size()) : "_";
  }
  for (const auto& [name, v] : r.attrs) {
    switch (v.kind) {
      case AttrValue::Int: s += " " + name; break;
      case AttrValue::Ints: s += " " + name + "[" + std::to_string(v.ints.size()) + "]"; break;
      case AttrValue::Float:
      case AttrValue::Floats: break;  // rule-orthogonal
      case AttrValue::String: s += " " + name + "=\"" + v.strings[0] + "\""; break;
      case AttrValue::Strings: {
        s += " " + name + "=[";
        for (size_t i = 0; i < v.strings.size(); ++i) s += (i ? ",\"" : "\"") + v.strings[i] + "\"";
        s += "]";
        break;
      }
    }
  }
  return s;
}

std::string partialSignature(const Record& r) {
  std::string s = inputSignature(r) + " out=";
  for (size_t i = 0; i < r.outputs.size(); ++i) s += (i ? "," : "") + std::to_string(r.outputs[i].shape.size());
  return s;
}

std::vector<std::string> symbolNames(const Record& r) {
  std::vector<std::string> names;
  for (size_t i = 0; i < r.inputs.size(); ++i)
    for (size_t d = 0; d < r.inputs[i].shape.size(); ++d) names.push_back("i" + std::to_string(i) + "_" + std::to_string(d));
  for (const auto& [name, v] : r.attrs) {
    if (v.kind == AttrValue::Int) names.push_back("a." + name);
    if (v.kind == AttrValue::Ints)
      for (size_t j = 0; j < v.ints.size(); ++j) names.push_back("a." + name + "_" + std::to_string(j));
  }
  return names;
}

std::vector<int64_t> symbolValues(const Record& r) {
  std::vector<int64_t> values;
  for (const auto& in : r.inputs) values.insert(values.end(), in.shape.begin(), in.shape.end());
  for (const auto& [name, v] : r.attrs)
    if (v.kind == AttrValue::Int || v.kind == AttrValue::Ints) values.insert(values.end(), v.ints.begin(), v.ints.end());
  return values;
}

std::vector<std::string> outputNames(const Record& r) {
  std::vector<std::string> names;
  for (size_t i = 0; i < r.outputs.size(); ++i)
    for (size_t d = 0; d < r.outputs[i].shape.size(); ++d) names.push_back("o" + std::to_string(i) + "_" + std::to_string(d));
  return names;
}

std::vector<int64_t> outputValues(const Record& r) {
  std::vector<int64_t> values;
  for (const auto& out : r.outputs) values.insert(values.end(), out.shape.begin(), out.shape.end());
  return values;
}

std::vector<PartialOp> groupPartialOps(const std::vector<Record>& records) {
  std::map<std::tuple<std::string, std::string, std::string>, PartialOp> groups;
  for (const Record& r : records) {
    if (!r.passing) continue;
    auto& p = groups[{r.domain, r.op, partialSignature(r)}];
    if (p.passing.empty()) {
      p.op = r.op;
      p.domain = r.domain;
      p.signature = partialSignature(r);
      p.symbols = symbolNames(r);
      p.outputs = outputNames(r);
      for (const auto& o : r.outputs) p.outputRanks.push_back(static_cast<int>(o.shape.size()));
    }
    p.passing.push_back(&r);
  }
  std::multimap<std::string, PartialOp*> byInput;
  for (auto& [key, p] : groups) byInput.emplace(inputSignature(*p.passing.front()), &p);
  for (const Record& r : records) {
    if (r.passing) continue;
    auto [lo, hi] = byInput.equal_range(inputSignature(r));
    for (auto it = lo; it != hi; ++it) it->second->counterExamples.push_back(&r);
  }
  std::vector<PartialOp> out;
  for (auto& [key, p] : groups) out.push_back(std::move(p));
  return out;
}

}  // namespace nnfuzz::infer
