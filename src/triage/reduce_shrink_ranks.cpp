// reduce_shrink_ranks.cpp - the pass that drops length-1 axes of inputs and weights (see
// reduce_pass.h). Instance k is the k-th (parameter, axis) with dim 1; the contents stay as
// they are, only the shape loses the axis. Broadcasting operators usually accept the result;
// operators whose attributes name axes often do not, and the variant is then refused.
#include "triage/reduce_pass.h"
#include "triage/reduce_variant.h"

namespace nnfuzz {

namespace {

std::vector<std::pair<ValueId, size_t>> unitAxes(const Graph& g) {
  std::vector<std::pair<ValueId, size_t>> out;
  for (ValueId v : dataParams(g)) {
    const Shape& shape = g.value(v).type.shape;
    for (size_t a = 0; a < shape.size(); ++a)
      if (shape[a] == 1) out.push_back({v, a});
  }
  return out;
}

class ShrinkRanks final : public ReducePass {
 public:
  std::string_view name() const override { return "shrink-ranks"; }
  size_t instances(const SubCase& c) const override { return unitAxes(c.graph).size(); }
  bool transform(SubCase& c, const std::vector<Tensor>&, size_t k) const override {
    const auto axes = unitAxes(c.graph);
    if (k >= axes.size()) return false;
    const auto [v, axis] = axes[k];
    Tensor data = paramData(c, v);
    data.type.shape.erase(data.type.shape.begin() + static_cast<std::ptrdiff_t>(axis));
    setParam(c, v, std::move(data));
    return true;
  }
};

}  // namespace

std::unique_ptr<ReducePass> makeShrinkRanksPass() { return std::make_unique<ShrinkRanks>(); }

}  // namespace nnfuzz
