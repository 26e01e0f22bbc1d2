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

class ShrinkRanks final : public EditListPass<std::pair<ValueId, size_t>> {
 public:
  std::string_view name() const override { return "shrink-ranks"; }

 protected:
  std::vector<std::pair<ValueId, size_t>> edits(const Graph& g) const override { return unitAxes(g); }
  bool apply(SubCase& c, const std::vector<Tensor>&, const std::pair<ValueId, size_t>& e) const override {
    Tensor data = paramData(c, e.first);
    data.type.shape.erase(data.type.shape.begin() + static_cast<std::ptrdiff_t>(e.second));
    setParam(c, e.first, std::move(data));
    return true;
  }
};

}  // namespace

std::unique_ptr<ReducePass> makeShrinkRanksPass() { return std::make_unique<ShrinkRanks>(); }

}  // namespace nnfuzz
