// reduce_schedule.cpp - the priority-table pass scheduler (see reduce_schedule.h).
#include "triage/reduce_schedule.h"

#include <algorithm>
#include <unordered_set>

#include "triage/reduce_variant.h"

namespace nnfuzz {

std::vector<PassEntry> defaultPassTable() {
  return {{5, makeInlineIfPass},          {8, makeBypassInBodyPass},
          {10, makeRemoveOutputsPass},    {20, makeConstantOperandPass}, {30, makeShrinkDimsPass},
          {40, makeShrinkRanksPass},      {50, makeResetAttributesPass}, {60, makeNarrowDtypesPass},
          {70, makeSimplifyValuesPass}};
}

PassReduction reduceWithPasses(const SubCase& start, const std::function<bool(const SubCase&)>& stillFails,
                               size_t maxTries, const std::vector<PassEntry>& table) {
  PassReduction result;
  result.reduced = start;
  std::optional<SettledCase> current = settleVariant(start);
  if (!current) return result;  // the start has no trustworthy reference of its own: leave it
  std::vector<PassEntry> order = table;
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.priority < b.priority; });
  std::vector<std::unique_ptr<ReducePass>> passes;
  for (const auto& entry : order) {
    passes.push_back(entry.make());
    result.reports.push_back({std::string(passes.back()->name())});
  }
  std::unordered_set<uint64_t> tried{caseHash(current->sub)};
  bool progress = true;
  while (progress && result.tries < maxTries) {
    progress = false;
    for (size_t p = 0; p < passes.size(); ++p) {
      PassReport& report = result.reports[p];
      for (size_t k = 0; k < passes[p]->instances(current->sub) && result.tries < maxTries;) {
        SubCase variant = current->sub;
        if (!passes[p]->transform(variant, current->values, k)) {
          ++k;
          continue;
        }
        const uint64_t hash = caseHash(variant);
        if (hash == caseHash(current->sub)) {
          ++report.noChange;
          ++k;
          continue;
        }
        if (!tried.insert(hash).second) {
          ++k;
          continue;
        }
        std::optional<SettledCase> settled = settleVariant(std::move(variant));
        if (!settled) {
          ++report.invalid;
          ++k;
          continue;
        }
        const uint64_t settledHash = caseHash(settled->sub);
        if (!(caseCost(settled->sub) < caseCost(current->sub)) ||
            (settledHash != hash && !tried.insert(settledHash).second)) {
          ++k;  // not smaller, or settled into a case already tried
          continue;
        }
        ++result.tries;
        ++report.tries;
        if (!stillFails(settled->sub)) {
          ++k;
          continue;
        }
        current = std::move(settled);  // the counter stays: edit k of the new case is new
        ++report.kept;
        progress = true;
        result.changed = true;
      }
    }
  }
  result.finished = !progress;
  result.reduced = std::move(current->sub);
  return result;
}

}  // namespace nnfuzz
