// enumerator.cpp - the hole bank: bottom-up enumeration with rarity and fingerprint pruning.
#include "infer/enumerator.h"

#include <optional>
#include <unordered_set>

#include "support/rng.h"

namespace nnfuzz::infer {

namespace {

constexpr int kSamples = 24;

// Fixed assignments of the holes; small values as real shapes and attributes have, so
// floor division and mod behave as on real records.
struct Samples {
  std::vector<std::vector<int64_t>> rows;
  explicit Samples(int holes) {
    Rng rng(0x6e657572);  // fixed: the bank must be the same on every machine
    for (int s = 0; s < kSamples; ++s) {
      std::vector<int64_t> row(holes);
      for (auto& v : row) v = rng.uniformInt(s < 4 ? 1 : -3, s < 12 ? 9 : 64);
      rows.push_back(row);
    }
  }
};

uint64_t fingerprint(const Expr& e, int holes, const Samples& samples) {
  uint64_t h = 0xcbf29ce484222325ull ^ static_cast<uint64_t>(holes);
  for (const auto& row : samples.rows) {
    auto v = evaluate(e, row);
    uint64_t word = v ? static_cast<uint64_t>(*v) : 0x9e3779b97f4a7c15ull;
    h = (h ^ word) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  return h;
}

// Calls f(map) for every way to give a's holes and b's holes distinct labels in
// 0..ha+hb-1, each side keeping its relative order (the interleavings).
template <typename F>
void forEachInterleaving(int ha, int hb, F&& f) {
  std::vector<uint16_t> map(ha + hb);
  // mask bit i set: label i goes to a.
  const int n = ha + hb;
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    if (__builtin_popcount(mask) != ha) continue;
    int ia = 0, ib = ha;
    for (int label = 0; label < n; ++label) map[(mask >> label & 1) ? ia++ : ib++] = static_cast<uint16_t>(label);
    f(map);
  }
}

// The operator at the root of e, if any.
std::optional<BinOp> rootOp(const Expr& e) {
  const Token& last = e.postfix().back();
  return last.kind == Token::Op ? std::optional<BinOp>(static_cast<BinOp>(last.value)) : std::nullopt;
}

// Associativity: x + (y ± z), x - (y ± z), x * (y * z), min(x, min(y, z)), max(x, max(y, z))
// all equal a left-nested form built elsewhere, so right operands never nest them.
bool rightNestingIsRedundant(BinOp op, const Expr& rhs) {
  auto inner = rootOp(rhs);
  if (!inner) return false;
  if (op == BinOp::Add || op == BinOp::Sub) return *inner == BinOp::Add || *inner == BinOp::Sub;
  if (op == BinOp::Mul || op == BinOp::Min || op == BinOp::Max) return *inner == op;
  return false;
}

}  // namespace

HoleBank::HoleBank(const BankLimits& limits) {
  Samples samples(limits.maxHoles);
  std::unordered_set<uint64_t> seen;
  levels_.resize(limits.maxOps + 1);
  auto keep = [&](Expr e, int holes, int ops) {
    if (!seen.insert(fingerprint(e, holes, samples)).second) return;
    levels_[ops].push_back({std::move(e), holes, ops});
  };
  if (limits.maxHoles > 0) keep(Expr::slot(0), 1, 0);
  for (int c : limits.constants) keep(Expr::constant(c), 0, 0);

  for (int ops = 1; ops <= limits.maxOps; ++ops) {
    for (int left = 0; left < ops; ++left) {
      const int right = ops - 1 - left;
      for (BinOp op : kAllOps) {
        if (isCommutative(op) && left < right) continue;  // bigger operand on the left, as left nesting wants
        const auto& as = levels_[left];
        const auto& bs = levels_[right];
        for (size_t i = 0; i < as.size(); ++i) {
          for (size_t j = (isCommutative(op) && left == right) ? i : 0; j < bs.size(); ++j) {
            const HoleExpr& a = as[i];
            const HoleExpr& b = bs[j];
            if (a.holes == 0 && b.holes == 0) continue;  // constant subterm
            if (a.holes + b.holes > limits.maxHoles) continue;
            if (rightNestingIsRedundant(op, b.expr)) continue;
            forEachInterleaving(a.holes, b.holes, [&](const std::vector<uint16_t>& map) {
              std::span<const uint16_t> all(map);
              Expr la = substitute(a.expr, all.first(a.holes));
              // b's slots are numbered from 0; shift them past a's part of the map.
              Expr lb = substitute(b.expr, all.subspan(a.holes));
              keep(Expr::apply(op, la, lb), a.holes + b.holes, ops);
            });
          }
        }
      }
    }
  }
}

size_t HoleBank::size() const {
  size_t n = 0;
  for (const auto& level : levels_) n += level.size();
  return n;
}

}  // namespace nnfuzz::infer
