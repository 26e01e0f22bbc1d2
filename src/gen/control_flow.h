// control_flow.h - If, Loop and Scan nodes for the generators, bodies included.
//
// A control-flow node is built around values the model already has: its operands come
// from the generator's pool, and each body is grown by Isra's machinery itself
// (instantiateOp in Isra's order, every operation evaluated as it is appended, unusable
// ones drawn again) over a pool of the body's own: its formal inputs, holding the values
// of the first run, and outer parameters for a few of the model's values (those the body
// reads become the node's captures; the others are dropped). A body may hold control flow
// of its own, one level deep (kMaxNesting), which reads the enclosing body's values.
// Trip counts are small constants (Loop's M in 1..3, Scan's length a dim of the limits);
// a Loop without scan outputs may stop early on a condition it computes (iteration
// number < c). Bodies that run more than once (Loop and Scan, and anything nested in
// them) take only operators without stability checks, since a body runs on values the
// builder sees only for the first run; the whole node is evaluated before it is committed
// and dropped if any result is unusable.
#pragma once

#include <map>
#include <memory>
#include <vector>

#include "gen/config.h"
#include "gen/eval_builder.h"

namespace nnfuzz {

/// Control-flow nodes nest at most this deep (a model's If, Loop or Scan is level 1).
inline constexpr int kMaxNesting = 2;

/// Operators a body may hold, with their weights (parallel lists).
struct BodyOps {
  std::vector<const OpSpec*> ops;
  std::vector<double> weights;
  /// For each control-flow op in `ops`: what its own bodies may hold.
  std::map<const OpSpec*, std::shared_ptr<const BodyOps>> nested;
};

/// The ops of `all` (with `weights`) that bodies of `op` may hold: control flow only above
/// kMaxNesting, and no stability check in a body that runs more than once (Loop, Scan, or
/// anything inside them: `repeated`).
BodyOps bodyOpsFor(const OpSpec& op, const std::vector<const OpSpec*>& all, const std::vector<double>& weights,
                   bool repeated = false, int level = 1);

/// Most operators grown in one body.
inline constexpr int kMaxBodyOps = 3;

/// Builds a node of `spec` (If, Loop or Scan) on values of `builder`'s pool and commits it
/// with its results; false (nothing committed) when this draw did not work out.
bool buildControlFlow(const OpSpec& spec, EvalBuilder& builder, const GenConfig& config, const BodyOps& bodyOps,
                      Rng& rng);

}  // namespace nnfuzz
