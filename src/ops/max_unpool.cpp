// max_unpool.cpp - MaxUnpool (opset 11): scatters X into zeros of the unpooled shape at
// the flat positions (over the whole output tensor) given by the int64 indices I, which
// have X's shape; the optional output_shape (a constant) may enlarge the default size
// (in - 1) * stride + kernel - pads per spatial dim (the extra room, zeros, goes at the
// end; indices still count positions in the default shape).
//
// I is a constant that sends every element of an (n, c) plane to a distinct position of
// the same output plane, as MaxPool's Indices would: two elements at one position leave
// the result undefined (which one lands last).
#include <algorithm>

#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

// The default output shape, or an error.
std::optional<Shape> unpooledShape(const Attributes& attrs, const Shape& x, std::string& err) {
  err = unknownAttr(attrs, {"kernel_shape", "pads", "strides"});
  if (!err.empty()) return std::nullopt;
  const size_t n = x.size() - 2;
  std::vector<int64_t> kernel, strides, pads;
  if (!attrs.has("kernel_shape")) {
    err = "kernel_shape is required";
    return std::nullopt;
  }
  if (!readInts(attrs, "kernel_shape", n, 1, 1, kernel, err) || !readInts(attrs, "strides", n, 1, 1, strides, err) ||
      !readInts(attrs, "pads", 2 * n, 0, 0, pads, err))
    return std::nullopt;
  // ONNX allows any pads, but ONNX Runtime refuses pads that reach the kernel ("Pad should
  // be smaller than kernel", unpool.h), as it does for MaxPool and AveragePool (pool.cpp).
  for (size_t i = 0; i < n; ++i)
    if (pads[i] >= kernel[i] || pads[i + n] >= kernel[i]) {
      err = "pads must be smaller than the kernel";
      return std::nullopt;
    }
  Shape out{x[0], x[1]};
  for (size_t i = 0; i < n; ++i) {
    const int64_t d = (x[i + 2] - 1) * strides[i] + kernel[i] - pads[i] - pads[i + n];
    if (d < 1) {
      err = "the unpooled size is below 1";
      return std::nullopt;
    }
    out.push_back(d);
  }
  return out;
}

void sampleUnpool(OpDraft& d) {
  Rng& rng = *d.rng;
  const Shape& x = d.first().shape;
  const size_t n = x.size() - 2;
  std::vector<int64_t> kernel(n), strides(n), pads(2 * n, 0);
  for (size_t i = 0; i < n; ++i) {
    kernel[i] = rng.uniformInt(1, 3);
    strides[i] = rng.bernoulli(0.5) ? kernel[i] : rng.uniformInt(1, 3);
    // Pads only where the output plane stays at least as large as the input's.
    const int64_t slack = (x[i + 2] - 1) * (strides[i] - 1) + kernel[i] - 1;
    if (slack > 0 && rng.bernoulli(0.3)) pads[i] = rng.uniformInt(0, std::min<int64_t>(slack, kernel[i] - 1));
    if (slack - pads[i] > 0 && rng.bernoulli(0.3)) pads[i + n] = rng.uniformInt(0, std::min<int64_t>(slack - pads[i], kernel[i] - 1));
  }
  d.attrs.setInts("kernel_shape", kernel);
  writeInts(d.attrs, "strides", strides, 1, rng);
  writeInts(d.attrs, "pads", pads, 0, rng);
}

InputPattern unpoolOperand(const OpDraft& d) {
  if (d.inputTypes.size() == 2) return InputPattern::omitted();
  const Shape& x = d.first().shape;
  std::string err;
  const std::optional<Shape> out = unpooledShape(d.attrs, x, err);
  const int64_t inPlane = product(x, 2), outPlane = out ? product(*out, 2) : 0;
  Tensor idx(TensorType{DType::Int64, x});
  // Attributes a parameter mutation made unfit for X (invalid, or fewer output positions
  // than X has elements per plane): any I (zeros), which inference then turns down.
  if (outPlane < inPlane) return InputPattern::constantTensor(std::move(idx));
  for (int64_t p = 0; p < x[0] * x[1]; ++p) {
    const auto perm = shapeops::randomPermutation(*d.rng, static_cast<int>(outPlane));
    for (int64_t i = 0; i < inPlane; ++i)
      idx.data[static_cast<size_t>(p * inPlane + i)] = static_cast<double>(p * outPlane + perm[static_cast<size_t>(i)]);
  }
  return InputPattern::constantTensor(std::move(idx));
}

InferResult inferUnpool(const InferArgs& a) {
  const TensorType& x = *a.inputs[0];
  std::string err;
  auto out = unpooledShape(a.attrs, x.shape, err);
  if (!out) return InferResult::fail(err);
  if (a.inputs.size() < 2 || !a.inputs[1]) return InferResult::fail("I is missing");
  if (a.inputs[1]->dtype != DType::Int64 || a.inputs[1]->shape != x.shape) return InferResult::fail("I must be int64 of X's shape");
  if (a.inputs.size() > 2 && a.inputs[2]) {
    if (auto e = shapeops::checkIndexVector(a, 2, "output_shape"); !e.empty()) return InferResult::fail(e);
    const auto given = shapeops::intsOf(*a.constants[2]);
    if (given.size() != x.shape.size()) return InferResult::fail("output_shape has the wrong length");
    for (size_t i = 0; i < given.size(); ++i)
      if (given[i] < (*out)[i] || (i < 2 && given[i] != x.shape[i])) return InferResult::fail("output_shape is too small");
    out = Shape(given.begin(), given.end());
  }
  const int64_t total = product(*unpooledShape(a.attrs, x.shape, err));  // indices count in the default shape
  if (const Tensor* c = a.constants[1]) {
    std::vector<double> seen = c->data;
    std::sort(seen.begin(), seen.end());
    if (!seen.empty() && (seen.front() < 0 || seen.back() >= static_cast<double>(total))) return InferResult::fail("an index is out of range");
    if (std::adjacent_find(seen.begin(), seen.end()) != seen.end()) return InferResult::fail("repeated indices");
  }
  return {{TensorType{x.dtype, *out}}, {}};
}

// Indices count positions in the default unpooled shape; a larger output_shape pads that
// result at the end of each dim (as the ONNX reference does).
void unpoolKernel(KernelArgs& a) {
  std::string err;
  const Shape defaults = unpooledShape(a.attrs, a.inputs[0]->type.shape, err).value_or(a.outputs[0].type.shape);
  const int64_t total = product(defaults);
  std::vector<int64_t> index(defaults.size());
  for (size_t i = 0; i < a.inputs[0]->data.size(); ++i) {
    auto at = static_cast<int64_t>(a.inputs[1]->data[i]);
    if (at < 0 || at >= total) continue;
    for (size_t d = defaults.size(); d-- > 0;) {
      index[d] = at % defaults[d];
      at /= defaults[d];
    }
    a.outputs[0].data[static_cast<size_t>(shapeops::offsetOf(index, a.outputs[0].type.shape))] = a.inputs[0]->data[i];
  }
}

}  // namespace

const OpSpec& opMaxUnpool() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "MaxUnpool";
    t.sinceVersion = 11;
    t.minInputs = 2;
    t.maxInputs = 3;
    t.dtypes = kFloatTypes;
    t.minRank = 3;
    t.maxRank = 5;
    t.constantInputs = 0b110;
    t.attrs = {intsAttr("kernel_shape", 1, 3, 1, 3), intsAttr("pads", 0, 2, 2, 6), intsAttr("strides", 1, 3, 1, 3)};
    t.sampleAttrs = sampleUnpool;
    t.nextInput = unpoolOperand;
    t.infer = inferUnpool;
    t.reference = unpoolKernel;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
