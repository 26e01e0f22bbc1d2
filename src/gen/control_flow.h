// control_flow.h - If, Loop and Scan nodes for the generators, bodies included.
//
// A control-flow node is built around values the model already has: its operands come
// from the generator's pool, and each body is grown by Isra's machinery itself
// (instantiateOp in Isra's order, every operation evaluated as it is appended, unusable
// ones drawn again) over a pool of the body's own: its formal inputs, holding the values
// of the first run, and outer parameters for a few of the model's values (those the body
// reads become the node's captures; the others are dropped). Bodies hold no control flow
// of their own. Trip counts are small constants (Loop's M in 1..3, Scan's length a dim
// of the limits); a Loop without scan outputs may stop early on a condition it computes
// (iteration number < c). Loop and Scan bodies take only operators without stability
// checks, since a body runs on values the builder sees only for the first run; the whole
// node is evaluated before it is committed and dropped if any result is unusable.
#pragma once

#include <vector>

#include "gen/config.h"
#include "gen/eval_builder.h"

namespace nnfuzz {

/// Operators a body may hold, with their weights (parallel lists).
struct BodyOps {
  std::vector<const OpSpec*> ops;
  std::vector<double> weights;
};

/// The ops of `all` (with `weights`) that bodies of `op` may hold: no bodies of their own,
/// and for Loop and Scan no stability check.
BodyOps bodyOpsFor(const OpSpec& op, const std::vector<const OpSpec*>& all, const std::vector<double>& weights);

/// Most operators grown in one body.
inline constexpr int kMaxBodyOps = 3;

/// Builds a node of `spec` (If, Loop or Scan) on values of `builder`'s pool and commits it
/// with its results; false (nothing committed) when this draw did not work out.
bool buildControlFlow(const OpSpec& spec, EvalBuilder& builder, const GenConfig& config, const BodyOps& bodyOps,
                      Rng& rng);

}  // namespace nnfuzz
