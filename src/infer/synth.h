// synth.h - inductive synthesis of one partial operator's rule (seed 002, §3.2).
//
// Shape propagation: for each output dim, the first expression of the instantiated bank
// (fewest operators first) that equals the dim on every passing record (Formula 3).
// Input constraints: Algorithm 1 over predicates 0 = e and 0 < e with e of at most
// `predicateOps` operators: keep those every passing record satisfies; the conjunction
// must reject every counter-example, else the constraints are not inferred. Without
// counter-examples the kept predicates stand as a conservative (narrow) rule: they only
// describe where the operator was seen to work; unless the records were augmented, in
// which case no counter-example means no constraint. Algorithm 2 then drops redundant
// predicates (implication.h).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "infer/enumerator.h"
#include "infer/partial_op.h"

namespace nnfuzz::infer {

struct Predicate {
  bool equality = false;  // 0 = e, else 0 < e
  Expr expr;
  bool operator==(const Predicate&) const = default;
};

bool holds(const Predicate& p, std::span<const int64_t> values);
std::string toText(const Predicate& p, std::span<const std::string> names);
Predicate parsePredicate(const std::string& text, std::span<const std::string> names);

enum class ConstraintStatus { Inferred, PassingOnly, Failed };
const char* statusName(ConstraintStatus s);

struct Rule {
  std::vector<std::optional<Expr>> outputs;  // one per output dim; nullopt: not inferred
  std::vector<Predicate> constraints;
  ConstraintStatus constraintStatus = ConstraintStatus::PassingOnly;
  /// The wall-clock budget stopped a search or Algorithm 2: this rule depends on the
  /// machine's speed (rule files say so).
  bool cutByClock = false;
  bool shapeInferred() const;
};

struct SynthLimits {
  int predicateOps = 1;
  /// Deterministic work budget: candidate evaluations per partial operator (0 = none).
  uint64_t maxCandidates = 20'000'000;
  /// Wall-clock budget per partial operator in seconds, over enumeration, Algorithm 1 and
  /// Algorithm 2's Z3 queries together (0 = none). The deterministic limits above decide
  /// every rule that finishes within it; one it cuts is marked `cutByClock`.
  double seconds = 10;
  /// The records were augmented by an acceptor: a partial operator none of whose mutants
  /// was rejected has no constraints (the paper's counter-example-free case).
  bool augmented = false;
};

/// Previously found output expressions, tried first on partial operators of the same
/// form (same symbol names): the paper's rule reuse.
struct ReuseCache {
  std::vector<std::pair<std::vector<std::string>, Expr>> found;
};

Rule synthesize(const PartialOp& p, const HoleBank& bank, const SynthLimits& limits, ReuseCache* reuse = nullptr);

}  // namespace nnfuzz::infer
