// compress.cpp - Compress (opset 11): the slices of the input along `axis` (or, without
// axis, the elements of the flattened input) where the 1-D bool condition is true; a
// condition shorter than the axis drops the rest.
//
// The result's length is the count of trues, a value: GraphIR shapes are static, so the
// condition must be a constant (an initializer, as ONNX's shape inference needs too), and
// it holds at least one true (the generator makes no empty values).
#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

void sampleCompress(OpDraft& d) {
  const int rank = d.first().rank();
  if (rank >= 1 && d.rng->bernoulli(0.75)) d.attrs.setInt("axis", d.rng->uniformInt(-rank, rank - 1));
}

// The length the condition selects from.
int64_t selectable(const TensorType& x, const Attributes& attrs) {
  if (!attrs.has("axis")) return x.numel();
  return x.shape[static_cast<size_t>(*normalizeAxis(attrs.getInt("axis", 0), x.rank()))];
}

InputPattern conditionOperand(const OpDraft& d) {
  Rng& rng = *d.rng;
  const int64_t n = selectable(d.first(), d.attrs);
  const int64_t len = rng.bernoulli(0.8) ? n : rng.uniformInt(1, n);
  Tensor c(TensorType{DType::Bool, {len}});
  for (double& v : c.data) v = rng.bernoulli(0.6) ? 1 : 0;
  c.data[static_cast<size_t>(rng.uniformInt(0, len - 1))] = 1;
  return InputPattern::constantTensor(std::move(c));
}

InferResult inferCompress(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"axis"});
  int64_t axis = 0;
  if (!err.empty() || !readInt(a.attrs, "axis", INT64_MIN, INT64_MAX, 0, axis, err)) return InferResult::fail(err);
  const TensorType& x = *a.inputs[0];
  if (a.attrs.has("axis") && !normalizeAxis(axis, x.rank())) return InferResult::fail("axis out of range");
  if (a.inputs.size() < 2 || !a.inputs[1]) return InferResult::fail("condition is required");
  const TensorType& c = *a.inputs[1];
  if (c.dtype != DType::Bool || c.rank() != 1) return InferResult::fail("condition must be a 1-D bool tensor");
  if (!a.constants[1]) return InferResult::fail("condition must be a constant (the result's length depends on it)");
  if (c.shape[0] > selectable(x, a.attrs)) return InferResult::fail("condition is longer than the selected axis");
  int64_t kept = 0;
  for (double v : a.constants[1]->data) kept += v != 0;
  if (!a.attrs.has("axis")) return {{TensorType{x.dtype, {kept}}}, {}};
  Shape out = x.shape;
  out[static_cast<size_t>(*normalizeAxis(axis, x.rank()))] = kept;
  return {{TensorType{x.dtype, out}}, {}};
}

void compressKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const std::vector<double>& cond = a.inputs[1]->data;
  std::vector<double>& out = a.outputs[0].data;
  size_t at = 0;
  if (!a.attrs.has("axis")) {
    for (size_t i = 0; i < cond.size(); ++i)
      if (cond[i] != 0) out[at++] = x.data[i];
    return;
  }
  const auto axis = static_cast<size_t>(*normalizeAxis(a.attrs.getInt("axis", 0), x.type.rank()));
  const int64_t n = x.type.shape[axis], inner = product(x.type.shape, axis + 1), outer = product(x.type.shape, 0, axis);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < std::min<int64_t>(n, static_cast<int64_t>(cond.size())); ++k)
      if (cond[static_cast<size_t>(k)] != 0)
        for (int64_t i = 0; i < inner; ++i) out[at++] = x.data[static_cast<size_t>((o * n + k) * inner + i)];
}

}  // namespace

const OpSpec& opCompress() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "Compress";
    t.sinceVersion = 11;
    t.minInputs = t.maxInputs = 2;
    t.dtypes = kAllTypes;
    t.minRank = 1;
    t.constantInputs = 0b10;
    t.attrs = {intAttr("axis", -5, 4)};
    t.sampleAttrs = sampleCompress;
    t.nextInput = conditionOperand;
    t.infer = inferCompress;
    t.reference = compressKernel;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
