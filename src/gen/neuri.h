// neuri.h - the neuri generator (NeuRI, seed 002 §3.3): concolic insertion of operators.
//
// Every operator is inserted concrete: its operands are values the model already has (with
// the picking rate) or fresh ones, its types and attributes fixed, its results computed by
// our reference kernels as for isra. An insertion is, with the config's shares,
//  - symbolic: an operator drawn with the `ops` weights, made by its spec in Isra's order,
//    or (with odds `rule_rate`, where rules/ has a solvable rule for it) by the rule: the
//    operand values chosen first fix their dims, and Z3 solves the rule's constraints for
//    the attributes and fresh operands' dims (infer/rule_solver.h);
//  - concrete: an invocation record taken as it is, found through the tensor type of a
//    value the model holds (infer/rule_bank.h).
// A node made from a rule or record must also pass our spec's shape inference with the same
// result types, so the rule files and the specs check each other (the meta counts where
// they disagree).
//
// Operators of the domains `neuri.domains` names (com.microsoft: ONNX Runtime's contrib
// operators) have rules and records but no spec: *opaque* nodes (ops/registry.h). One is
// drawn as a symbolic operator (each such operator as likely as a spec'd one of weight 1,
// made by its rule) or found as a record, and appended with the result types the rule or
// record gives; it has no kernel. Its results, and everything computed from them, have no
// reference value, so only opaque nodes read them: every spec'd node is evaluated on real
// data, its stability check included, and the reference covers every output that does
// not depend on an opaque node. The others are GeneratedCase::unreferenced (zeros stand
// in), and such a case is judged SUT against SUT and mode against mode.
#pragma once

#include <memory>

#include "gen/config.h"
#include "infer/rule_bank.h"

namespace nnfuzz {

/// The rule folder `config` names, loaded once per process and folder (one-line Error on a
/// missing folder or a bad rule file).
std::shared_ptr<const infer::RuleBank> neuriRuleBank(const GenConfig& config);

}  // namespace nnfuzz
