// reduce_narrow_dtypes.cpp - the pass that narrows dtypes of inputs and weights (see
// reduce_pass.h): f64 becomes f32 and i64 becomes i32, the dtypes most kernels are written
// for first. Instances: each wide dtype on every parameter at once (operands that must agree
// change together), then each parameter alone. Values are rounded as a Cast would.
#include <optional>
#include <set>

#include "triage/reduce_pass.h"
#include "triage/reduce_variant.h"

namespace nnfuzz {

namespace {

std::optional<DType> narrower(DType d) {
  if (d == DType::Float64) return DType::Float32;
  if (d == DType::Int64) return DType::Int32;
  return std::nullopt;
}

struct DtypeEdit {
  ValueId param;  ///< kNoValue: every parameter of dtype `from`
  DType from;
};

std::vector<DtypeEdit> dtypeEditsOf(const Graph& g) {
  std::vector<DtypeEdit> edits;
  std::set<DType> wide;
  for (ValueId v : dataParams(g))
    if (narrower(g.value(v).type.dtype)) wide.insert(g.value(v).type.dtype);
  for (DType d : wide) edits.push_back({kNoValue, d});
  for (ValueId v : dataParams(g))
    if (narrower(g.value(v).type.dtype)) edits.push_back({v, g.value(v).type.dtype});
  return edits;
}

class NarrowDtypes final : public EditListPass<DtypeEdit> {
 public:
  std::string_view name() const override { return "narrow-dtypes"; }

 protected:
  std::vector<DtypeEdit> edits(const Graph& g) const override { return dtypeEditsOf(g); }
  bool apply(SubCase& c, const std::vector<Tensor>&, const DtypeEdit& e) const override {
    for (ValueId v : dataParams(c.graph))
      if ((e.param == kNoValue || v == e.param) && c.graph.value(v).type.dtype == e.from)
        setParam(c, v, castTensor(paramData(c, v), *narrower(e.from)));
    return true;
  }
};

}  // namespace

std::unique_ptr<ReducePass> makeNarrowDtypesPass() { return std::make_unique<NarrowDtypes>(); }

}  // namespace nnfuzz
