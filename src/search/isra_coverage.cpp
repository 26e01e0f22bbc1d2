// isra_coverage.cpp - Isra's per-operator sets, growth test and set/graph-level numbers.
#include "search/isra_coverage.h"

#include <algorithm>
#include <bit>
#include <type_traits>

namespace nnfuzz::search {

namespace {

size_t distinct(std::vector<uint64_t>& items) {
  std::sort(items.begin(), items.end());
  return static_cast<size_t>(std::unique(items.begin(), items.end()) - items.begin());
}

}  // namespace

IsraCoverage::IsraCoverage(const BlockCorpus& corpus) {
  const int nc = corpus.numOps();
  for (int i = 0; i < nc; ++i) {
    const Block& b = corpus.op(i);
    names_.push_back(b.name);
    OpState s;
    s.minIn = b.inDegrees.front();  // the script raises to bc[op]["in_degree"][0]
    s.numAllowedIn = static_cast<int>(b.inDegrees.size());
    s.successors.assign(static_cast<size_t>(nc + 63) / 64, 0);
    ops_.push_back(std::move(s));
  }
}

template <typename Self>
bool IsraCoverage::visit(Self& self, const ModelFacts& facts) {
  constexpr bool commit = !std::is_const_v<Self>;
  const uint64_t nc = self.ops_.size();
  bool grew = false;
  int64_t newAttributes = 0;
  // Records a key in a test-set-wide set; true when it is new.
  auto fresh = [&](auto& set, uint64_t key) {
    if constexpr (commit) return set.insert(key).second;
    else return set.count(key) == 0;
  };
  for (uint32_t i = 0; i < facts.nodes.size(); ++i) {
    if (!self.counts(facts, i)) continue;
    const auto& node = facts.nodes[i];
    const auto op = static_cast<uint64_t>(node.op);
    auto& s = self.ops_[op];
    if (s.nodes == 0) grew = true;
    if constexpr (commit) ++s.nodes;

    int outDegree = 0;
    for (uint32_t r = node.resultBegin; r < node.resultEnd; ++r) {
      const auto& v = facts.values[facts.results[r]];
      if (v.graphOutput) {
        ++outDegree;  // renamed by the script: counted once, consumers invisible
        continue;
      }
      outDegree += std::max<int>(1, static_cast<int>(v.useEnd - v.useBegin));
      for (uint32_t u = v.useBegin; u < v.useEnd; ++u) {
        const uint32_t j = facts.uses[u];
        if (facts.nodes[j].op < 0) --outDegree;
        if (!self.counts(facts, j)) continue;
        const auto t1 = static_cast<uint64_t>(facts.nodes[j].op);
        auto& word = s.successors[t1 / 64];
        const uint64_t bit = uint64_t{1} << (t1 % 64);
        if (!(word & bit)) {
          grew = true;
          if constexpr (commit) {
            word |= bit;
            ++s.numSuccessors;
          }
        }
        const auto& next = facts.nodes[j];
        for (uint32_t r2 = next.resultBegin; r2 < next.resultEnd; ++r2) {
          const auto& v2 = facts.values[facts.results[r2]];
          if (v2.graphOutput) continue;
          for (uint32_t u2 = v2.useBegin; u2 < v2.useEnd; ++u2) {
            const uint32_t k = facts.uses[u2];
            if (!self.counts(facts, k)) continue;
            const uint64_t key = (op * nc + t1) * nc + static_cast<uint64_t>(facts.nodes[k].op);
            if (fresh(self.pairsSeen_, key)) {
              grew = true;
              if constexpr (commit) ++s.pairs;
            }
          }
        }
      }
      if (!commit && grew) return true;
    }

    if (node.hasAttrs && fresh(self.attrsSeen_, combine(op, node.attrsInOrder))) {
      grew = true;
      ++newAttributes;
      if constexpr (commit) ++s.attributes;
    }
    for (uint32_t k = node.operandBegin; k < node.operandEnd; ++k) {
      const uint32_t v = facts.operands[k];
      if (v == kOmitted) continue;
      if (fresh(self.shapesSeen_, combine(op, facts.values[v].israShape))) {
        grew = true;
        if constexpr (commit) ++s.shapes;
      }
    }

    const int in = std::max(s.minIn, std::min(kIsraMaxInDegree, facts.nonEmptyOperands(node)));
    const int out = std::clamp(outDegree, 1, kIsraMaxOutDegree);
    const uint64_t inBit = uint64_t{1} << in, outBit = uint64_t{1} << out;
    if (!(s.seenIn & inBit) || !(s.seenOut & outBit)) grew = true;
    if constexpr (commit) {
      s.seenIn |= inBit;
      s.seenOut |= outBit;
    }
    if (!commit && grew) return true;
  }
  if constexpr (commit) self.addGraphLevel(facts, newAttributes);
  return grew;
}

void IsraCoverage::addGraphLevel(const ModelFacts& facts, int64_t newAttributes) {
  const uint64_t nc = ops_.size();
  double noo = 0;
  // NOT, NOP and NTR: distinct type tuples as one key space each.
  auto count = [&](auto&& emit) {
    scratch_.clear();
    emit();
    return static_cast<double>(distinct(scratch_));
  };
  for (uint32_t i = 0; i < facts.nodes.size(); ++i) noo += counts(facts, i);
  // Edges as the script's get_graph_metric sees them: uses through results that are not
  // graph outputs, between counted nodes.
  auto forEachEdge = [&](uint32_t i, auto&& fn) {
    const auto& node = facts.nodes[i];
    for (uint32_t r = node.resultBegin; r < node.resultEnd; ++r) {
      const auto& v = facts.values[facts.results[r]];
      if (v.graphOutput) continue;
      for (uint32_t u = v.useBegin; u < v.useEnd; ++u)
        if (counts(facts, facts.uses[u])) fn(facts.uses[u]);
    }
  };
  auto type = [&](uint32_t n) { return static_cast<uint64_t>(facts.nodes[n].op); };
  const double types = count([&] {
    for (uint32_t i = 0; i < facts.nodes.size(); ++i)
      if (counts(facts, i)) scratch_.push_back(type(i));
  });
  const double pairs = count([&] {
    for (uint32_t i = 0; i < facts.nodes.size(); ++i)
      if (counts(facts, i)) forEachEdge(i, [&](uint32_t j) { scratch_.push_back(type(i) * nc + type(j)); });
  });
  const double triples = count([&] {
    for (uint32_t i = 0; i < facts.nodes.size(); ++i)
      if (counts(facts, i))
        forEachEdge(i, [&](uint32_t j) {
          forEachEdge(j, [&](uint32_t k) { scratch_.push_back((type(i) * nc + type(j)) * nc + type(k)); });
        });
  });
  // NSA: distinct shapes of the operands of every node outside the output tail.
  const double shapes = count([&] {
    for (const auto& node : facts.nodes) {
      if (node.israSkip) continue;
      for (uint32_t k = node.operandBegin; k < node.operandEnd; ++k)
        if (facts.operands[k] != kOmitted) scratch_.push_back(facts.values[facts.operands[k]].israShape);
    }
  });
  sums_[0] += noo;
  sums_[1] += types;
  sums_[2] += pairs;
  sums_[3] += triples;
  sums_[4] += shapes + static_cast<double>(newAttributes);
  ++models_;
}

bool IsraCoverage::grows(const ModelFacts& facts) const { return visit(*this, facts); }

bool IsraCoverage::add(const ModelFacts& facts) { return visit(*this, facts); }

IsraReport IsraCoverage::report() const {
  IsraReport r;
  r.nc = static_cast<int>(ops_.size());
  r.models = models_;
  const double nc = r.nc;
  for (size_t i = 0; i < ops_.size(); ++i) {
    const OpState& s = ops_[i];
    IsraOpRow row;
    row.op = names_[i];
    row.nodes = s.nodes;
    for (int d = 0; d < 64; ++d) {
      if (s.seenIn >> d & 1) row.inDegrees.push_back(d);
      if (s.seenOut >> d & 1) row.outDegrees.push_back(d);
    }
    row.successors = s.numSuccessors;
    row.pairs = s.pairs;
    row.attributes = s.attributes;
    row.shapes = s.shapes;
    if (s.nodes > 0) {
      row.idc = static_cast<double>(std::popcount(s.seenIn)) / s.numAllowedIn;
      row.odc = std::popcount(s.seenOut);
      row.sec = s.numSuccessors / nc;
      row.dec = static_cast<double>(s.pairs) / (nc * nc);
      row.sac = s.attributes + s.shapes;
      r.otc += 1;
      r.idc += row.idc;
      r.odc += row.odc;
      r.sec += row.sec;
      r.dec += row.dec;
      r.sac += static_cast<double>(row.sac);
    }
    r.ops.push_back(std::move(row));
  }
  if (r.nc > 0) {
    r.otc /= nc;
    r.idc /= nc;
    r.odc /= nc;
    r.sec /= nc;
    r.dec /= nc;
    r.sac /= nc;
  }
  if (models_ > 0) {
    const double m = static_cast<double>(models_);
    r.noo = sums_[0] / m;
    r.notypes = sums_[1] / m;
    r.nop = sums_[2] / m;
    r.ntr = sums_[3] / m;
    r.nsa = sums_[4] / m;
  }
  return r;
}

}  // namespace nnfuzz::search
