// reshape.cpp - Reshape (opset 14: shape as a constant input, 0 copies a dim unless
// allowzero, one -1 inferred) and Flatten (opset 13: axis in [-r, r]).
//
// Both only reinterpret the row-major data, so their kernels copy it. The Reshape sampler
// factorises the element count into a random shape and then rewrites some dims as 0
// (copy the input dim) or -1 (inferred), which is where implementations differ.
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace shapeops;

namespace {

void copyKernel(KernelArgs& a) { a.outputs[0].data = a.inputs[0]->data; }

std::vector<int64_t> primeFactors(int64_t n) {
  std::vector<int64_t> f;
  for (int64_t p = 2; p * p <= n; ++p)
    while (n % p == 0) {
      f.push_back(p);
      n /= p;
    }
  if (n > 1) f.push_back(n);
  return f;
}

void reshapeAttrs(OpDraft& d) {
  // allowzero = 1 is only written when the shape will hold no 0 (the sampler checks it).
  const double u = d.rng->uniformReal(0, 1);
  if (u < 0.3) d.attrs.setInt("allowzero", 0);
  else if (u < 0.55) d.attrs.setInt("allowzero", 1);
}

InputPattern reshapeShape(const OpDraft& d) {
  Rng& rng = *d.rng;
  const Shape& in = d.first().shape;
  const int64_t n = d.first().numel();
  const int maxRank = std::max(1, d.limits->maxRank);
  // Never a scalar result: its empty shape tensor would join the generator's value pool.
  const int rank = static_cast<int>(rng.uniformInt(1, maxRank));
  Shape out(static_cast<size_t>(rank), 1);
  for (int64_t p : primeFactors(n)) out[static_cast<size_t>(rng.uniformInt(0, rank - 1))] *= p;
  std::vector<int64_t> v(out.begin(), out.end());
  if (d.attrs.getInt("allowzero", 0) == 0)
    for (size_t i = 0; i < std::min(out.size(), in.size()); ++i)
      if (out[i] == in[i] && rng.bernoulli(0.3)) v[i] = 0;
  if (rng.bernoulli(0.4)) {
    std::vector<size_t> candidates;
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] != 0) candidates.push_back(i);
    if (!candidates.empty()) v[rng.pick(candidates)] = -1;
  }
  return InputPattern::constantTensor(int64Tensor(v));
}

InferResult inferReshape(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {"allowzero"}); !e.empty()) return InferResult::fail(e);
  if (args.attrs.hasWrongKind<int64_t>("allowzero")) return InferResult::fail("allowzero must be an int");
  const int64_t allowzero = args.attrs.getInt("allowzero", 0);
  if (allowzero != 0 && allowzero != 1) return InferResult::fail("allowzero must be 0 or 1");
  if (auto e = checkIndexVector(args, 1, "shape"); !e.empty()) return InferResult::fail(e);
  const Shape& in = args.inputs[0]->shape;
  const int64_t numel = args.inputs[0]->numel();
  const auto v = intsOf(*args.constants[1]);
  Shape out(v.size());
  int inferred = -1;
  bool hasZero = false;
  int64_t known = 1;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == -1) {
      if (inferred >= 0) return InferResult::fail("shape has more than one -1");
      inferred = static_cast<int>(i);
      continue;
    }
    if (v[i] < -1) return InferResult::fail("shape holds " + std::to_string(v[i]));
    if (v[i] == 0) {
      hasZero = true;
      if (!allowzero && i >= in.size())
        return InferResult::fail("shape[" + std::to_string(i) + "] = 0 copies a dim the input does not have");
      out[i] = allowzero ? 0 : in[i];
    } else {
      out[i] = v[i];
    }
    if (out[i] > 0 && known > (int64_t{1} << 53) / out[i]) return InferResult::fail("shape is too large");
    known *= out[i];
  }
  if (allowzero && hasZero && inferred >= 0) return InferResult::fail("allowzero forbids 0 together with -1");
  if (inferred >= 0) {
    if (known == 0 || numel % known != 0)
      return InferResult::fail("cannot infer the -1 dim of " + std::to_string(numel) + " elements");
    out[static_cast<size_t>(inferred)] = numel / known;
  } else if (known != numel) {
    return InferResult::fail("shape holds " + std::to_string(known) + " elements, the input " + std::to_string(numel));
  }
  return {{TensorType{args.inputs[0]->dtype, out}}, {}};
}

void flattenAttrs(OpDraft& d) {
  const int r = d.first().rank();
  // The default axis 1 is invalid for a scalar.
  if (r >= 1 && d.rng->bernoulli(0.3)) return;
  d.attrs.setInt("axis", d.rng->uniformInt(-r, r));
}

InferResult inferFlatten(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {"axis"}); !e.empty()) return InferResult::fail(e);
  if (args.attrs.hasWrongKind<int64_t>("axis")) return InferResult::fail("axis must be an int");
  const Shape& in = args.inputs[0]->shape;
  const int r = args.inputs[0]->rank();
  int64_t axis = args.attrs.getInt("axis", 1);
  if (axis < -r || axis > r) return InferResult::fail("axis " + std::to_string(axis) + " is out of range");
  if (axis < 0) axis += r;
  const auto a = static_cast<size_t>(axis);
  return {{TensorType{args.inputs[0]->dtype, {product(in, 0, a), product(in, a, in.size())}}}, {}};
}

}  // namespace

const OpSpec& opReshape() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Reshape";
    s.sinceVersion = 14;
    s.minInputs = s.maxInputs = 2;
    s.dtypes = kAllTypes;
    s.constantInputs = 0b10;
    s.attrs = {intAttr("allowzero", 0, 1)};
    s.sampleAttrs = reshapeAttrs;
    s.nextInput = reshapeShape;
    s.infer = inferReshape;
    s.reference = copyKernel;
    return s;
  }();
  return s;
}

const OpSpec& opFlatten() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Flatten";
    s.sinceVersion = 13;
    s.dtypes = kAllTypes;
    s.attrs = {intAttr("axis", -5, 5)};
    s.sampleAttrs = flattenAttrs;
    s.infer = inferFlatten;
    s.reference = copyKernel;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
