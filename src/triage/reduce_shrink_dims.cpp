// reduce_shrink_dims.cpp - the pass that shrinks dims of inputs and weights (see reduce_pass.h).
// Instances come in two groups: first one dim value changed on every axis of every parameter
// that has it (operands that must agree, like MatMul's inner dims, shrink together), then one
// axis of one parameter. Each edit tries 1, then half the dim. Contents keep their leading corner.
#include <set>

#include "triage/reduce_pass.h"
#include "triage/reduce_variant.h"

namespace nnfuzz {

namespace {

struct DimEdit {
  ValueId param = kNoValue;  ///< kNoValue: every parameter
  size_t axis = 0;           ///< for one parameter
  int64_t from = 0, to = 0;  ///< for every parameter: dims equal to `from` become `to`
};

std::vector<int64_t> targets(int64_t d) {
  std::vector<int64_t> t{1};
  if (d / 2 > 1) t.push_back(d / 2);
  return t;
}

std::vector<DimEdit> dimEditsOf(const Graph& g) {
  std::vector<DimEdit> edits;
  std::set<int64_t> dims;
  for (ValueId v : dataParams(g))
    for (int64_t d : g.value(v).type.shape)
      if (d > 1) dims.insert(d);
  for (int64_t d : dims)
    for (int64_t to : targets(d)) edits.push_back({kNoValue, 0, d, to});
  for (ValueId v : dataParams(g)) {
    const Shape& shape = g.value(v).type.shape;
    for (size_t a = 0; a < shape.size(); ++a)
      if (shape[a] > 1)
        for (int64_t to : targets(shape[a])) edits.push_back({v, a, shape[a], to});
  }
  return edits;
}

class ShrinkDims final : public EditListPass<DimEdit> {
 public:
  std::string_view name() const override { return "shrink-dims"; }

 protected:
  std::vector<DimEdit> edits(const Graph& g) const override { return dimEditsOf(g); }
  bool apply(SubCase& c, const std::vector<Tensor>&, const DimEdit& e) const override {
    for (ValueId v : dataParams(c.graph)) {
      if (e.param != kNoValue && v != e.param) continue;
      Shape shape = c.graph.value(v).type.shape;
      bool touched = false;
      for (size_t a = 0; a < shape.size(); ++a) {
        if ((e.param == kNoValue || a == e.axis) && shape[a] == e.from) {
          shape[a] = e.to;
          touched = true;
        }
      }
      if (touched) setParam(c, v, cornerOf(paramData(c, v), shape));
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<ReducePass> makeShrinkDimsPass() { return std::make_unique<ShrinkDims>(); }

}  // namespace nnfuzz
