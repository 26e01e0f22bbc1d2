// rule_solver.cpp - solving a rule's constraints for the symbols a model leaves free.
#include "infer/rule_solver.h"

#include <algorithm>
#include <limits>

#include <z3++.h>

#include "infer/z3_encode.h"

namespace nnfuzz::infer {

namespace {

/// Where symbol i of a record lives: input k's dim d, or attribute `name`'s element j.
struct SymbolSlot {
  int input = -1, dim = 0;
  std::string attr;
  int element = 0;
};

// The same walk as symbolNames(): input dims first, then integer attributes in name order.
std::vector<SymbolSlot> symbolSlots(const Record& r) {
  std::vector<SymbolSlot> slots;
  for (size_t k = 0; k < r.inputs.size(); ++k)
    for (size_t d = 0; d < r.inputs[k].shape.size(); ++d) slots.push_back({static_cast<int>(k), static_cast<int>(d), {}, 0});
  for (const auto& [name, v] : r.attrs)
    if (v.kind == AttrValue::Int || v.kind == AttrValue::Ints)
      for (size_t j = 0; j < v.ints.size(); ++j) slots.push_back({-1, 0, name, static_cast<int>(j)});
  return slots;
}

}  // namespace

std::optional<Record> solveRule(const PartialRule& partial, const Record& pattern,
                                std::span<const std::optional<std::vector<int64_t>>> fixed, const SolveBounds& bounds,
                                Rng& rng) {
  if (!partial.rule.shapeInferred()) return std::nullopt;
  const std::vector<SymbolSlot> slots = symbolSlots(pattern);
  if (slots.size() != partial.symbols.size()) return std::nullopt;  // not a record of this partial operator

  // Each symbol's range: fixed dims exactly, fresh dims within the bounds, attributes
  // around what their records used.
  std::vector<int64_t> lo(slots.size()), hi(slots.size());
  for (size_t i = 0; i < slots.size(); ++i) {
    const SymbolSlot& s = slots[i];
    if (s.input >= 0) {
      const auto k = static_cast<size_t>(s.input);
      if (k < fixed.size() && fixed[k]) {
        if (fixed[k]->size() != pattern.inputs[k].shape.size()) return std::nullopt;
        lo[i] = hi[i] = (*fixed[k])[static_cast<size_t>(s.dim)];
      } else {
        lo[i] = bounds.minDim;
        hi[i] = bounds.maxDim;
      }
      continue;
    }
    lo[i] = 0;
    hi[i] = 1;
    for (const Record& r : partial.records) {
      if (!r.passing) continue;
      const std::vector<int64_t> values = symbolValues(r);
      if (values.size() != slots.size()) continue;
      lo[i] = std::min(lo[i], values[i]);
      hi[i] = std::max(hi[i], values[i]);
    }
    hi[i] += 2;
  }

  // A context per call, though making one costs about as much as a small solve: Z3's
  // answers may depend on what a context saw before, and case i must depend on i alone.
  z3::context ctx;
  z3::solver solver(ctx);
  z3::params params(ctx);
  params.set("rlimit", 200000u);  // deterministic, unlike a timeout
  solver.set(params);
  Z3Encoder enc{ctx, {}};
  for (size_t i = 0; i < slots.size(); ++i) {
    enc.symbols.push_back(ctx.int_const(partial.symbols[i].c_str()));
    solver.add(enc.symbols.back() >= ctx.int_val(lo[i]) && enc.symbols.back() <= ctx.int_val(hi[i]));
  }
  for (const Predicate& p : partial.rule.constraints) solver.add(enc.predicate(p));
  for (const auto& e : partial.rule.outputs) {
    z3::expr defined = ctx.bool_val(true);
    const z3::expr v = enc.encode(*e, defined);
    solver.add(defined && v >= 1 && v <= ctx.int_val(bounds.maxOutputDim));
  }
  if (solver.check() != z3::sat) return std::nullopt;

  // Random hints, kept while they stay satisfiable.
  std::vector<size_t> order;
  for (size_t i = 0; i < slots.size(); ++i)
    if (lo[i] < hi[i]) order.push_back(i);
  for (size_t i = order.size(); i > 1; --i)
    std::swap(order[i - 1], order[static_cast<size_t>(rng.uniformInt(0, static_cast<int64_t>(i) - 1))]);
  for (size_t i : order) {
    solver.push();
    solver.add(enc.symbols[i] == ctx.int_val(rng.uniformInt(lo[i], hi[i])));
    if (solver.check() != z3::sat) solver.pop();
  }
  if (solver.check() != z3::sat) return std::nullopt;
  const z3::model model = solver.get_model();
  std::vector<int64_t> values(slots.size());
  for (size_t i = 0; i < slots.size(); ++i) {
    int64_t v = 0;
    if (!model.eval(enc.symbols[i], true).is_numeral_i64(v)) return std::nullopt;
    values[i] = v;
  }

  // The solution as a record; checked again with evaluate(), the semantics rules are fit in.
  Record call = pattern;
  call.source = "solved:" + pattern.source;
  for (size_t i = 0; i < slots.size(); ++i) {
    const SymbolSlot& s = slots[i];
    if (s.input >= 0) call.inputs[static_cast<size_t>(s.input)].shape[static_cast<size_t>(s.dim)] = values[i];
    else call.attrs[s.attr].ints[static_cast<size_t>(s.element)] = values[i];
  }
  for (const Predicate& p : partial.rule.constraints)
    if (!holds(p, values)) return std::nullopt;
  size_t d = 0;
  for (size_t k = 0; k < call.outputs.size(); ++k)
    for (int64_t& dim : call.outputs[k].shape) {
      const auto v = evaluate(*partial.rule.outputs[d++], values);
      if (!v || *v < 1 || *v > bounds.maxOutputDim) return std::nullopt;
      dim = *v;
    }
  return call;
}

}  // namespace nnfuzz::infer
