// reduce_simplify_values.cpp - the pass that makes input and weight contents plain (see
// reduce_pass.h): all zeros, all ones, or each value rounded to an integer in [-4, 4]. A bug
// report reads better with [1, 1, 1] than with [0.73105860, ...]. Instance k is
// (parameter k / 3, fill k % 3); a fill that changes nothing does not apply. Weights that are
// shape arguments (axes, pads, shapes) are left alone: their contents are the node's meaning.
#include <algorithm>
#include <cmath>

#include "triage/reduce_pass.h"
#include "triage/reduce_variant.h"

namespace nnfuzz {

namespace {

double fill(int kind, double x) {
  if (kind == 0) return 0;
  if (kind == 1) return 1;
  return std::clamp(std::round(x), -4.0, 4.0);
}

class SimplifyValues final : public ReducePass {
 public:
  std::string_view name() const override { return "simplify-values"; }
  size_t instances(const SubCase& c) const override { return dataParams(c.graph).size() * 3; }
  bool transform(SubCase& c, const std::vector<Tensor>&, size_t k) const override {
    const auto params = dataParams(c.graph);
    if (k / 3 >= params.size()) return false;
    Tensor data = paramData(c, params[k / 3]);
    bool changed = false;
    for (double& x : data.data) {
      const double y = roundTo(data.type.dtype, fill(static_cast<int>(k % 3), x));
      changed = changed || y != x;
      x = y;
    }
    if (!changed) return false;
    setParam(c, params[k / 3], std::move(data));
    return true;
  }
};

}  // namespace

std::unique_ptr<ReducePass> makeSimplifyValuesPass() { return std::make_unique<SimplifyValues>(); }

}  // namespace nnfuzz
