// recipe_mutations.cpp - duplicate or drop a member, renumbering member refs.
#include "gen/recipe_mutations.h"

#include <numeric>
#include <string>

#include "support/error.h"

namespace nnfuzz {

namespace {

using Kind = OperandRef::Kind;

/// Calls `f` on every member ref of the recipe (operands and outputs).
template <typename F>
void forEachMemberRef(SubgraphTemplate& t, F f) {
  for (MemberTemplate& m : t.members)
    for (OperandRef& r : m.operands)
      if (r.kind == Kind::Member) f(r);
  for (OperandRef& r : t.outputs) f(r);
}

int firstFlow(const MemberTemplate& m) {
  for (size_t k = 0; k < m.operands.size(); ++k)
    if (m.operands[k].isFlow()) return static_cast<int>(k);
  return -1;
}

/// Renumbers "inverse_of:J" rules with `map` (returning -1 drops the rule).
template <typename F>
void renumberRules(MemberTemplate& m, F map) {
  std::vector<std::pair<std::string, std::string>> kept;
  for (auto& [name, rule] : m.derived) {
    if (!rule.starts_with("inverse_of:")) {
      kept.emplace_back(name, rule);
      continue;
    }
    const int j = map(std::stoi(rule.substr(11)));
    if (j >= 0) kept.emplace_back(name, "inverse_of:" + std::to_string(j));
  }
  m.derived = std::move(kept);
}

}  // namespace

SubgraphTemplate duplicateMember(const SubgraphTemplate& recipe, Rng& rng) {
  std::vector<int> candidates;
  for (size_t j = 0; j < recipe.members.size(); ++j)
    if (firstFlow(recipe.members[j]) >= 0) candidates.push_back(static_cast<int>(j));
  if (candidates.empty()) return recipe;
  const int j = rng.pick(candidates);
  SubgraphTemplate t = recipe;
  MemberTemplate copy = t.members[static_cast<size_t>(j)];
  copy.operands[static_cast<size_t>(firstFlow(copy))] = {Kind::Member, j};
  // Everything after J, and J's readers, move one place on; the copy keeps reading J.
  forEachMemberRef(t, [&](OperandRef& r) {
    if (r.index >= j) ++r.index;
  });
  for (MemberTemplate& m : t.members) renumberRules(m, [&](int k) { return k > j ? k + 1 : k; });
  t.members.insert(t.members.begin() + j + 1, std::move(copy));
  return t;
}

std::optional<SubgraphTemplate> dropMember(const SubgraphTemplate& recipe, Rng& rng) {
  if (recipe.members.size() < 3) return std::nullopt;  // a recipe keeps two members
  std::vector<int> order(recipe.members.size());
  std::iota(order.begin(), order.end(), 0);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[static_cast<size_t>(rng.uniformInt(0, static_cast<int64_t>(i) - 1))]);
  for (int j : order) {
    const MemberTemplate& gone = recipe.members[static_cast<size_t>(j)];
    const int flow = firstFlow(gone);
    if (flow < 0) continue;
    const OperandRef source = gone.operands[static_cast<size_t>(flow)];
    SubgraphTemplate t = recipe;
    bool read = false;
    for (size_t m = static_cast<size_t>(j) + 1; m < t.members.size(); ++m)
      for (OperandRef& r : t.members[m].operands)
        if (r.kind == Kind::Member && r.index == j) {
          r = source;
          read = true;
        }
    if (!read) continue;
    for (OperandRef& r : t.outputs)
      if (r.index == j) r = source;
    t.members.erase(t.members.begin() + j);
    forEachMemberRef(t, [&](OperandRef& r) {
      if (r.index > j) --r.index;
    });
    for (MemberTemplate& m : t.members) renumberRules(m, [&](int k) { return k == j ? -1 : k > j ? k - 1 : k; });
    bool outputsOk = true;
    for (const OperandRef& r : t.outputs) outputsOk = outputsOk && r.kind == Kind::Member;
    if (!outputsOk || t.numInputs() != recipe.numInputs()) continue;
    try {
      t.validate("mutated");
    } catch (const Error&) {
      continue;
    }
    return t;
  }
  return std::nullopt;
}

}  // namespace nnfuzz
