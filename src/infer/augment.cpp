// augment.cpp - offset, swap and special-value mutants of records, labelled in one batch.
#include "infer/augment.h"

#include <map>
#include <set>

#include "infer/partial_op.h"

namespace nnfuzz::infer {

void setSymbolValues(Record& r, std::span<const int64_t> values) {
  size_t k = 0;
  for (auto& in : r.inputs)
    for (auto& d : in.shape) d = values[k++];
  for (auto& [name, v] : r.attrs)
    if (v.kind == AttrValue::Int || v.kind == AttrValue::Ints)
      for (auto& x : v.ints) x = values[k++];
}

namespace {

// Mutant symbol vectors of one seed, in the paper's order, deduplicated by `seen`.
void mutantsOf(const Record& seed, size_t limit, std::set<std::vector<int64_t>>& seen, std::vector<Record>& out) {
  const std::vector<int64_t> base = symbolValues(seed);
  const std::vector<std::string> names = symbolNames(seed);
  const size_t n = base.size();
  size_t made = 0;
  auto emit = [&](std::vector<int64_t> values, const char* how) {
    if (made >= limit || !seen.insert(values).second) return;
    Record m = seed;
    setSymbolValues(m, values);
    for (auto& o : m.outputs) o.shape.clear();  // the model declares output dtypes only
    m.source = seed.source + " " + how;
    out.push_back(std::move(m));
    ++made;
  };
  for (size_t i = 0; i < n; ++i) {  // offset: singletons
    auto v = base;
    ++v[i];
    emit(v, "+1");
  }
  for (size_t i = 0; i < n; ++i)  // offset: pairs
    for (size_t j = i + 1; j < n; ++j) {
      auto v = base;
      ++v[i];
      ++v[j];
      emit(v, "+1+1");
    }
  for (size_t i = 0; i < n; ++i)  // swap
    for (size_t j = i + 1; j < n; ++j) {
      if (base[i] == base[j]) continue;
      auto v = base;
      std::swap(v[i], v[j]);
      emit(v, "swap");
    }
  for (size_t i = 0; i < n; ++i) {  // special values on attributes
    if (names[i][0] != 'a') continue;
    for (int64_t special : {0, -1}) {
      auto v = base;
      v[i] = special;
      emit(v, special == 0 ? "=0" : "=-1");
    }
  }
}

}  // namespace

std::vector<Record> augment(const std::vector<Record>& seeds, Acceptor& acceptor, int perPartial, AugmentStats* stats,
                            const std::vector<Record>& probes) {
  AugmentStats local;
  AugmentStats& s = stats ? *stats : local;
  s.seeds += static_cast<int>(seeds.size());
  s.probes += static_cast<int>(probes.size());
  std::vector<Record> calls = seeds;
  calls.insert(calls.end(), probes.begin(), probes.end());
  std::vector<Label> seedLabels = acceptor.label(calls);
  std::vector<Record> kept, rejectedProbes;
  for (size_t i = 0; i < calls.size(); ++i) {
    const bool probe = i >= seeds.size();
    if (probe && seedLabels[i].kind == Label::Reject) {
      Record r = calls[i];
      r.passing = false;
      r.outputs.clear();
      rejectedProbes.push_back(std::move(r));
      ++s.probesRejected;
    }
    if (seedLabels[i].kind != Label::Pass) continue;
    Record r = calls[i];
    r.outputs = seedLabels[i].outputs;
    kept.push_back(std::move(r));
    ++(probe ? s.probesPassing : s.seedsKept);
  }

  // Mutants per partial operator, spread over its seeds.
  std::map<std::string, std::vector<const Record*>> groups;
  for (const Record& r : kept) groups[partialSignature(r)].push_back(&r);
  std::vector<Record> mutants;
  for (const auto& [signature, group] : groups) {
    std::set<std::vector<int64_t>> seen;
    for (const Record* r : group) seen.insert(symbolValues(*r));
    const size_t before = mutants.size();
    for (const Record* r : group) {
      size_t room = static_cast<size_t>(perPartial) - (mutants.size() - before);
      if (room == 0) break;
      mutantsOf(*r, (room + group.size() - 1) / group.size() + room / 2, seen, mutants);
      if (mutants.size() - before > static_cast<size_t>(perPartial)) mutants.resize(before + perPartial);
    }
  }
  s.mutants += static_cast<int>(mutants.size());
  std::vector<Label> labels = acceptor.label(mutants);
  std::vector<Record> out = kept;
  out.insert(out.end(), rejectedProbes.begin(), rejectedProbes.end());
  for (size_t i = 0; i < mutants.size(); ++i) {
    if (labels[i].kind == Label::Drop) {
      ++s.dropped;
      continue;
    }
    Record m = std::move(mutants[i]);
    m.passing = labels[i].kind == Label::Pass;
    m.outputs = labels[i].outputs;
    ++(m.passing ? s.passing : s.rejected);
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace nnfuzz::infer
