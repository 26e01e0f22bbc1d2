#include "ops/registry.h"

#include <vector>

#include "support/name_table.h"

namespace nnfuzz {

#define OP(name) const OpSpec& op##name();
#include "ops/ops.def"
#undef OP

std::span<const OpSpec* const> allOps() {
  static const std::vector<const OpSpec*> all = {
#define OP(name) &op##name(),
#include "ops/ops.def"
#undef OP
  };
  return all;
}

const OpSpec* findOp(std::string_view name) {
  // Asked per node by generation, inference, export and the interpreter: a hash, not a scan.
  static const NameTable<const OpSpec*> byName = [] {
    std::vector<std::pair<std::string_view, const OpSpec*>> entries;
    for (const OpSpec* spec : allOps()) entries.emplace_back(spec->name, spec);
    return NameTable<const OpSpec*>(entries);
  }();
  const OpSpec* const* found = byName.find(name);
  return found ? *found : nullptr;
}

const OpSpec* findOp(const Node& node) { return node.domain.empty() ? findOp(node.op) : nullptr; }

}  // namespace nnfuzz
