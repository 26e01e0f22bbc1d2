// reduce_pass.h - reduction passes beyond dropping nodes, written the C-Reduce way.
//
// A pass is a small enumerable state machine over a case: instances(c) says how many
// candidate edits it sees, and transform(c, values, k) applies the k-th (the counter is the
// state: the scheduler starts it at 0, advances it when a variant is refused, and keeps it
// when a variant is kept, since the k-th edit of the new case is a new edit). A pass edits
// parameters, attributes, operands or outputs and leaves result types stale; the scheduler
// (reduce_schedule.h) settles each variant, checks it got smaller, caches it by hash and asks
// the caller's predicate. A pass never runs anything and never checks validity itself.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "triage/reduce.h"

namespace nnfuzz {

/// One reduction pass (see the file comment).
class ReducePass {
 public:
  virtual ~ReducePass() = default;
  /// The pass's name in the priority table and in reports, e.g. "shrink-dims".
  virtual std::string_view name() const = 0;
  /// How many edits the pass sees in `c` (instances are numbered 0..n-1).
  virtual size_t instances(const SubCase& c) const = 0;
  /// Applies edit `k` to `c`; `values` holds the reference contents of every value id of c's
  /// graph. false when edit k does not apply (nothing was changed).
  virtual bool transform(SubCase& c, const std::vector<Tensor>& values, size_t k) const = 0;
};

/// A pass whose instances are a list of edits read off the case: instance k applies edit k.
template <typename Edit>
class EditListPass : public ReducePass {
 public:
  size_t instances(const SubCase& c) const final { return edits(c.graph).size(); }
  bool transform(SubCase& c, const std::vector<Tensor>& values, size_t k) const final {
    const std::vector<Edit> all = edits(c.graph);
    return k < all.size() && apply(c, values, all[k]);
  }

 protected:
  /// The edits this pass sees in `graph`, in instance order.
  virtual std::vector<Edit> edits(const Graph& graph) const = 0;
  /// Applies one edit; false when it changes nothing.
  virtual bool apply(SubCase& c, const std::vector<Tensor>& values, const Edit& edit) const = 0;
};

/// Drops one graph output (while another remains); what only it needed goes with it.
std::unique_ptr<ReducePass> makeRemoveOutputsPass();
/// Replaces an operand by a constant holding its reference contents: a runtime input becomes
/// a weight (and stops being a graph input), a computed operand cuts its producer off.
std::unique_ptr<ReducePass> makeConstantOperandPass();
/// Shrinks dims of inputs and weights (to 1, or halved): one dim value everywhere, then one axis.
std::unique_ptr<ReducePass> makeShrinkDimsPass();
/// Drops a length-1 axis of an input or weight.
std::unique_ptr<ReducePass> makeShrinkRanksPass();
/// Removes one attribute of one node, so it takes its ONNX default.
std::unique_ptr<ReducePass> makeResetAttributesPass();
/// Narrows f64 to f32 and i64 to i32: all parameters of a dtype at once, then one at a time.
std::unique_ptr<ReducePass> makeNarrowDtypesPass();
/// Fills an input or weight with zeros, ones, or its values rounded to small integers.
std::unique_ptr<ReducePass> makeSimplifyValuesPass();
/// Replaces an If by the branch its cond takes (reduce_bodies.cpp).
std::unique_ptr<ReducePass> makeInlineIfPass();
/// Drops a body node whose result has an operand's type; its readers read that operand.
std::unique_ptr<ReducePass> makeBypassInBodyPass();

}  // namespace nnfuzz
