// luo_coverage.cpp - Luo's per-operator state, growth test and formulas 1-7.
#include "search/luo_coverage.h"

#include <algorithm>
#include <bit>
#include <type_traits>

namespace nnfuzz::search {

namespace {

enum Metric { kOtc, kIdc, kOdc, kSec, kSpc };

uint64_t maskOf(const std::vector<int>& degrees) {
  uint64_t mask = 0;
  for (int d : degrees) mask |= uint64_t{1} << d;  // the corpus keeps degrees <= kMaxDegree
  return mask;
}

double weightedMean(const std::array<double, 5>& weights, const std::array<double, 5>& values) {
  double sum = 0, total = 0;
  for (size_t i = 0; i < 5; ++i) {
    sum += weights[i] * values[i];
    total += weights[i];
  }
  return total > 0 ? sum / total : 0.0;
}

}  // namespace

template <typename Self>
bool LuoCoverage::visit(Self& self, const ModelFacts& facts) {
  constexpr bool commit = !std::is_const_v<Self>;
  bool grew = false;
  auto note = [&](int metric) {
    grew |= self.weighted(metric);
    return !commit && grew;  // true: stop early
  };
  for (const auto& node : facts.nodes) {
    if (node.op < 0) continue;
    auto& s = self.ops_[static_cast<size_t>(node.op)];
    if (s.nodes == 0 && note(kOtc)) return true;
    if constexpr (commit) ++s.nodes;

    const int in = facts.nonEmptyOperands(node);
    const int outDeg = facts.consumerEdges(node);
    auto degree = [&](int d, uint64_t allowed, auto& seen, auto& other, int metric) {
      if (d < 64 && (allowed >> d & 1)) {
        if (!(seen >> d & 1)) {
          if (note(metric)) return true;
          if constexpr (commit) seen |= uint64_t{1} << d;
        }
      } else if constexpr (commit) {
        if (std::find(other.begin(), other.end(), d) == other.end()) other.insert(std::upper_bound(other.begin(), other.end(), d), d);
      }
      return false;
    };
    if (degree(in, s.allowedIn, s.seenIn, s.otherIn, kIdc)) return true;
    if (degree(outDeg, s.allowedOut, s.seenOut, s.otherOut, kOdc)) return true;

    for (uint32_t r = node.resultBegin; r < node.resultEnd; ++r) {
      const auto& v = facts.values[facts.results[r]];
      for (uint32_t u = v.useBegin; u < v.useEnd; ++u) {
        const int32_t next = facts.nodes[facts.uses[u]].op;
        if (next < 0) continue;  // SEC counts edges to corpus operators only (its denominator is n_t)
        auto& word = s.successors[static_cast<size_t>(next) / 64];
        const uint64_t bit = uint64_t{1} << (next % 64);
        if (word & bit) continue;
        if (note(kSec)) return true;
        if constexpr (commit) {
          word |= bit;
          ++s.numSuccessors;
        }
      }
    }

    const uint64_t key = self.spcKey(facts, node);
    if constexpr (commit) {
      if (self.spcSeen_.insert(key).second) {
        if (s.spc < self.options_.nMaxSpc) grew |= self.weighted(kSpc);
        ++s.spc;
      }
    } else if (s.spc < self.options_.nMaxSpc && !self.spcSeen_.count(key) && note(kSpc)) {
      return true;
    }
  }
  return grew;
}

LuoCoverage::LuoCoverage(const BlockCorpus& corpus, LuoOptions options) : options_(options) {
  const int nt = corpus.numOps();
  for (int i = 0; i < nt; ++i) {
    const Block& b = corpus.op(i);
    names_.push_back(b.name);
    OpState s;
    s.allowedIn = maskOf(b.inDegrees);
    s.allowedOut = maskOf(b.outDegrees);
    s.numAllowedIn = static_cast<int>(b.inDegrees.size());
    s.numAllowedOut = static_cast<int>(b.outDegrees.size());
    s.successors.assign(static_cast<size_t>(nt + 63) / 64, 0);
    ops_.push_back(std::move(s));
  }
}

uint64_t LuoCoverage::spcKey(const ModelFacts& facts, const ModelFacts::Node& node) const {
  Hasher h(static_cast<uint64_t>(node.op));
  h.add(node.operandEnd - node.operandBegin);
  for (uint32_t k = node.operandBegin; k < node.operandEnd; ++k) {
    const uint32_t v = facts.operands[k];
    h.add(v == kOmitted ? kOmittedOperand : facts.values[v].shape);
  }
  return h.add(node.attrsByName).digest();
}

bool LuoCoverage::grows(const ModelFacts& facts) const { return visit(*this, facts); }

bool LuoCoverage::add(const ModelFacts& facts) { return visit(*this, facts); }

LuoReport LuoCoverage::report() const {
  LuoReport r;
  r.nt = static_cast<int>(ops_.size());
  r.nMaxSpc = options_.nMaxSpc;
  std::array<double, 5> sums{};
  for (size_t i = 0; i < ops_.size(); ++i) {
    const OpState& s = ops_[i];
    LuoOpRow row;
    row.op = names_[i];
    row.nodes = s.nodes;
    for (int d = 0; d < 64; ++d) {
      if (s.seenIn >> d & 1) row.inDegrees.push_back(d);
      if (s.seenOut >> d & 1) row.outDegrees.push_back(d);
    }
    row.otherInDegrees = s.otherIn;
    row.otherOutDegrees = s.otherOut;
    row.successors = s.numSuccessors;
    row.spcVectors = s.spc;
    row.otc = s.nodes > 0 ? 1.0 : 0.0;
    row.idc = static_cast<double>(std::popcount(s.seenIn)) / s.numAllowedIn;
    row.odc = static_cast<double>(std::popcount(s.seenOut)) / s.numAllowedOut;
    row.sec = r.nt ? static_cast<double>(s.numSuccessors) / r.nt : 0.0;
    row.spc = options_.nMaxSpc > 0 ? std::min(1.0, static_cast<double>(s.spc) / options_.nMaxSpc) : 0.0;
    const std::array<double, 5> m{row.otc, row.idc, row.odc, row.sec, row.spc};
    row.olc = weightedMean(options_.opWeights, m);
    for (size_t k = 0; k < 5; ++k) sums[k] += m[k];
    r.ops.push_back(std::move(row));
  }
  if (r.nt > 0)
    for (double& s : sums) s /= r.nt;
  r.otc = sums[kOtc];
  r.idc = sums[kIdc];
  r.odc = sums[kOdc];
  r.sec = sums[kSec];
  r.spc = sums[kSpc];
  r.olc = weightedMean(options_.setWeights, sums);
  return r;
}

}  // namespace nnfuzz::search
