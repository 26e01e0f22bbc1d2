// enumerator.h - bottom-up enumeration of the rule grammar over holes, pruned once.
//
// The bank holds every expression of the grammar with at most `maxOps` operators over
// holes □0..□(maxHoles-1) and the constants {1, 2}, pruned as the paper prescribes:
//  - rarity: a hole occurs at most once, and no operator has two constant operands;
//  - an expression's holes are exactly □0..□(h-1); instantiation fills them with h
//    symbols in ascending symbol order, so the bank keeps every labelling that matters
//    (□0 - □1 and □1 - □0 both);
//  - commutativity: op(b, a) is not built when op(a, b) was;
//  - equivalence: expressions with the same hole count and the same fingerprint (values
//    on fixed pseudo-random assignments) keep only the first, i.e. the smallest.
// The bank is built once and instantiated per partial operator (instantiate.h).
#pragma once

#include <cstddef>
#include <vector>

#include "infer/expr.h"

namespace nnfuzz::infer {

struct HoleExpr {
  Expr expr;
  int holes = 0;
  int ops = 0;
};

struct BankLimits {
  int maxOps = 3;
  int maxHoles = 6;
  std::vector<int> constants = {1, 2};
};

class HoleBank {
 public:
  explicit HoleBank(const BankLimits& limits);
  /// Expressions with exactly `ops` operators, smallest first.
  const std::vector<HoleExpr>& withOps(int ops) const { return levels_[ops]; }
  int maxOps() const { return static_cast<int>(levels_.size()) - 1; }
  size_t size() const;

 private:
  std::vector<std::vector<HoleExpr>> levels_;
};

}  // namespace nnfuzz::infer
