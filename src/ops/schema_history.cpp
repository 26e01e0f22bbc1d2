// schema_history.cpp - the table of schema_history.inc and lookups over it.
#include "ops/schema_history.h"

#include <algorithm>
#include <map>

#include "support/name_table.h"

namespace nnfuzz {

namespace {

const std::vector<SchemaVersion>& history() {
  static const std::vector<SchemaVersion> rows = {
#include "ops/schema_history.inc"
  };
  return rows;
}

using Versions = std::vector<const SchemaVersion*>;

// Versions per operator, oldest first.
const NameTable<Versions>& byOp() {
  static const NameTable<Versions> index = [] {
    std::map<std::string_view, Versions> m;
    for (const SchemaVersion& v : history()) m[v.op].push_back(&v);
    std::vector<std::pair<std::string_view, Versions>> entries;
    for (auto& [op, versions] : m) {
      std::sort(versions.begin(), versions.end(), [](auto* a, auto* b) { return a->since < b->since; });
      entries.emplace_back(op, std::move(versions));
    }
    return NameTable<Versions>(entries);
  }();
  return index;
}

const SchemaFormal* formalAt(const std::vector<SchemaFormal>& formals, size_t index) {
  if (formals.empty()) return nullptr;
  if (index < formals.size()) return &formals[index];
  return formals.back().variadic ? &formals.back() : nullptr;
}

}  // namespace

const SchemaAttr* SchemaVersion::attr(std::string_view name) const {
  for (const SchemaAttr& a : attrs)
    if (a.name == name) return &a;
  return nullptr;
}

const SchemaFormal* SchemaVersion::input(size_t index) const { return formalAt(inputs, index); }
const SchemaFormal* SchemaVersion::output(size_t index) const { return formalAt(outputs, index); }

const SchemaVersion* schemaAt(std::string_view op, int opset) {
  const SchemaVersion* best = nullptr;
  for (const SchemaVersion* v : schemaVersions(op))
    if (v->since <= opset) best = v;
  return best && !best->deprecated ? best : nullptr;
}

bool hasSchemaHistory(std::string_view op) { return byOp().find(op) != nullptr; }

std::span<const SchemaVersion* const> schemaVersions(std::string_view op) {
  const Versions* versions = byOp().find(op);
  if (!versions) return {};
  return *versions;
}

}  // namespace nnfuzz
