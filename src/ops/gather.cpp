// gather.cpp - Gather and GatherElements (opset 13): int32/int64 indices in [-n, n-1]
// along `axis` (default 0, negative allowed); negative indices count from the end.
//
// Indices are an ordinary operand: a runtime input whose values the generator keeps in
// range (InputPattern::range), or sometimes a constant. The kernels read an out-of-range
// index (possible only for runtime data that breaks the range) as 0 instead of crashing.
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace shapeops;

namespace {

void axisAttr(OpDraft& d) {
  if (d.rng->bernoulli(0.3)) return;
  const int r = d.first().rank();
  d.attrs.setInt("axis", d.rng->uniformInt(-r, r - 1));
}

size_t axisOf(const Attributes& attrs, int rank) { return static_cast<size_t>(*normalizeAxis(attrs.getInt("axis", 0), rank)); }

// Indices of `shape`: a constant now and then, otherwise a runtime input kept in [-n, n-1].
InputPattern indicesPattern(Rng& rng, const std::function<bool(const TensorType&)>& shapeOk,
                            std::function<Shape(Rng&)> drawShape, int64_t n) {
  const ValueRange range{static_cast<double>(-n), static_cast<double>(n - 1), 0.0};
  if (rng.bernoulli(0.3)) {
    const DType tind = rng.bernoulli(0.5) ? DType::Int32 : DType::Int64;
    Tensor t(TensorType{tind, drawShape(rng)});
    for (double& x : t.data) x = static_cast<double>(rng.uniformInt(-n, n - 1));
    return InputPattern::constantTensor(std::move(t));
  }
  InputPattern p;
  p.accepts = [shapeOk](const TensorType& t) { return isIndexType(t.dtype) && shapeOk(t); };
  p.sample = [drawShape](Rng& rng) {
    return TensorType{rng.bernoulli(0.5) ? DType::Int32 : DType::Int64, drawShape(rng)};
  };
  p.range = range;
  return p;
}

InputPattern gatherIndices(const OpDraft& d) {
  const TensorType& x = d.first();
  const int64_t n = x.shape[axisOf(d.attrs, x.rank())];
  // The result has rank r - 1 + q.
  const int maxQ = std::max(0, d.limits->maxRank - x.rank() + 1);
  const Limits limits = *d.limits;
  return indicesPattern(
      *d.rng, [maxQ](const TensorType& t) { return t.rank() <= maxQ; },
      [maxQ, limits](Rng& rng) { return opsupport::sampleShape(rng, limits, static_cast<int>(rng.uniformInt(0, maxQ))); }, n);
}

// Checks the indices operand and, when it is a constant, its values.
std::string checkIndices(const InferArgs& args, int64_t n) {
  const TensorType* t = args.inputs[1];
  if (!t) return "indices are missing";
  if (!isIndexType(t->dtype)) return "indices must be int32 or int64";
  if (const Tensor* c = args.constants[1])
    for (double v : c->data)
      if (v < static_cast<double>(-n) || v > static_cast<double>(n - 1)) return "an index is out of range";
  return "";
}

InferResult inferGather(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {"axis"}); !e.empty()) return InferResult::fail(e);
  if (args.attrs.hasWrongKind<int64_t>("axis")) return InferResult::fail("axis must be an int");
  const TensorType& x = *args.inputs[0];
  auto axis = normalizeAxis(args.attrs.getInt("axis", 0), x.rank());
  if (!axis) return InferResult::fail("axis is out of range");
  const auto a = static_cast<size_t>(*axis);
  if (auto e = checkIndices(args, x.shape[a]); !e.empty()) return InferResult::fail(e);
  Shape out(x.shape.begin(), x.shape.begin() + static_cast<ptrdiff_t>(a));
  out.insert(out.end(), args.inputs[1]->shape.begin(), args.inputs[1]->shape.end());
  out.insert(out.end(), x.shape.begin() + static_cast<ptrdiff_t>(a) + 1, x.shape.end());
  return {{TensorType{x.dtype, out}}, {}};
}

void gatherKernel(KernelArgs& args) {
  const Tensor& x = *args.inputs[0];
  const Tensor& idx = *args.inputs[1];
  Tensor& out = args.outputs[0];
  const Shape& shape = x.type.shape;
  const size_t a = axisOf(args.attrs, x.type.rank());
  const int64_t outer = product(shape, 0, a), n = shape[a], inner = product(shape, a + 1, shape.size());
  const auto m = static_cast<int64_t>(idx.data.size());
  size_t pos = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < m; ++j) {
      const int64_t base = (o * n + indexWithin(idx.data[static_cast<size_t>(j)], n)) * inner;
      for (int64_t i = 0; i < inner; ++i) out.data[pos++] = x.data[static_cast<size_t>(base + i)];
    }
}

InputPattern gatherElementsIndices(const OpDraft& d) {
  const TensorType x = d.first();
  const size_t a = axisOf(d.attrs, x.rank());
  const Limits limits = *d.limits;
  // Same rank; no larger than the data off the axis (the kernel reads data there).
  auto shapeOk = [x, a](const TensorType& t) {
    if (t.rank() != x.rank()) return false;
    for (size_t i = 0; i < t.shape.size(); ++i)
      if (i != a && t.shape[i] > x.shape[i]) return false;
    return true;
  };
  auto sample = [x, a, limits](Rng& rng) {
    Shape s = x.shape;
    for (size_t i = 0; i < s.size(); ++i)
      // Mostly equal off the axis: the ONNX reference and PyTorch-style kernels want that.
      if (i == a) s[i] = rng.uniformInt(limits.minDim, limits.maxDim);
      else if (rng.bernoulli(0.1)) s[i] = rng.uniformInt(1, x.shape[i]);
    return s;
  };
  return indicesPattern(*d.rng, shapeOk, sample, x.shape[a]);
}

InferResult inferGatherElements(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {"axis"}); !e.empty()) return InferResult::fail(e);
  if (args.attrs.hasWrongKind<int64_t>("axis")) return InferResult::fail("axis must be an int");
  const TensorType& x = *args.inputs[0];
  auto axis = normalizeAxis(args.attrs.getInt("axis", 0), x.rank());
  if (!axis) return InferResult::fail("axis is out of range");
  const auto a = static_cast<size_t>(*axis);
  if (auto e = checkIndices(args, x.shape[a]); !e.empty()) return InferResult::fail(e);
  const TensorType& idx = *args.inputs[1];
  if (idx.rank() != x.rank()) return InferResult::fail("indices must have the data's rank");
  for (size_t i = 0; i < idx.shape.size(); ++i)
    if (i != a && idx.shape[i] > x.shape[i]) return InferResult::fail("indices are larger than the data off the axis");
  return {{TensorType{x.dtype, idx.shape}}, {}};
}

void gatherElementsKernel(KernelArgs& args) {
  const Tensor& x = *args.inputs[0];
  const Tensor& idx = *args.inputs[1];
  Tensor& out = args.outputs[0];
  const size_t a = axisOf(args.attrs, x.type.rank());
  if (out.numel() == 0) return;
  const auto strides = stridesOf(x.type.shape);
  std::vector<int64_t> index(idx.type.shape.size(), 0);
  int64_t flat = 0;
  do {
    int64_t off = 0;
    for (size_t i = 0; i < index.size(); ++i)
      off += (i == a ? indexWithin(idx.data[static_cast<size_t>(flat)], x.type.shape[a]) : index[i]) * strides[i];
    out.data[static_cast<size_t>(flat++)] = x.data[static_cast<size_t>(off)];
  } while (nextIndex(index, idx.type.shape));
}

OpSpec gatherSpec(std::string_view name, InputPattern (*next)(const OpDraft&), InferResult (*infer)(const InferArgs&),
                  void (*kernel)(KernelArgs&)) {
  OpSpec s;
  s.name = name;
  s.sinceVersion = 13;
  s.minInputs = s.maxInputs = 2;
  s.dtypes = kAllTypes;
  s.minRank = 1;
  s.attrs = {intAttr("axis", -5, 4)};
  s.sampleAttrs = axisAttr;
  s.nextInput = next;
  s.infer = infer;
  s.reference = kernel;
  return s;
}

}  // namespace

const OpSpec& opGather() {
  static const OpSpec s = gatherSpec("Gather", gatherIndices, inferGather, gatherKernel);
  return s;
}

const OpSpec& opGatherElements() {
  static const OpSpec s = gatherSpec("GatherElements", gatherElementsIndices, inferGatherElements, gatherElementsKernel);
  return s;
}

}  // namespace nnfuzz
