#include "ops/registry.h"

#include <unordered_map>
#include <vector>

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
  static const auto byName = [] {
    std::unordered_map<std::string_view, const OpSpec*> index;
    for (const OpSpec* spec : allOps()) index.emplace(spec->name, spec);
    return index;
  }();
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : it->second;
}

const OpSpec* findOp(const Node& node) { return node.domain.empty() ? findOp(node.op) : nullptr; }

}  // namespace nnfuzz
