#include "ops/registry.h"

#include <algorithm>
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
  const auto ops = allOps();
  auto it = std::find_if(ops.begin(), ops.end(), [&](const OpSpec* s) { return s->name == name; });
  return it == ops.end() ? nullptr : *it;
}

const OpSpec* findOp(const Node& node) { return node.domain.empty() ? findOp(node.op) : nullptr; }

}  // namespace nnfuzz
