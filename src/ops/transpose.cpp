// transpose.cpp - Transpose (opset 13): perm is optional and defaults to reversing the dims.
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace shapeops;

namespace {

std::vector<int64_t> permOf(const Attributes& attrs, int rank) {
  if (attrs.has("perm")) return attrs.getInts("perm");
  std::vector<int64_t> p;
  for (int i = rank - 1; i >= 0; --i) p.push_back(i);
  return p;
}

void transposeAttrs(OpDraft& d) {
  if (d.rng->bernoulli(0.25)) return;
  d.attrs.setInts("perm", randomPermutation(*d.rng, d.first().rank()));
}

InferResult inferTranspose(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {"perm"}); !e.empty()) return InferResult::fail(e);
  if (args.attrs.hasWrongKind<std::vector<int64_t>>("perm")) return InferResult::fail("perm must be a list of ints");
  const Shape& in = args.inputs[0]->shape;
  const int r = args.inputs[0]->rank();
  const auto perm = permOf(args.attrs, r);
  if (static_cast<int>(perm.size()) != r) return InferResult::fail("perm has the wrong length");
  std::vector<bool> seen(static_cast<size_t>(r), false);
  Shape out;
  for (int64_t p : perm) {
    if (p < 0 || p >= r || seen[static_cast<size_t>(p)]) return InferResult::fail("perm is not a permutation");
    seen[static_cast<size_t>(p)] = true;
    out.push_back(in[static_cast<size_t>(p)]);
  }
  return {{TensorType{args.inputs[0]->dtype, out}}, {}};
}

void transposeKernel(KernelArgs& a) {
  const Tensor& in = *a.inputs[0];
  Tensor& out = a.outputs[0];
  const int r = in.type.rank();
  const auto perm = permOf(a.attrs, r);
  const auto inStrides = stridesOf(in.type.shape);
  // Output dim i walks input dim perm[i].
  std::vector<int64_t> strides(static_cast<size_t>(r));
  for (int i = 0; i < r; ++i) strides[static_cast<size_t>(i)] = inStrides[static_cast<size_t>(perm[static_cast<size_t>(i)])];
  if (out.numel() == 0) return;
  std::vector<int64_t> index(static_cast<size_t>(r), 0);
  int64_t flat = 0;
  do {
    int64_t off = 0;
    for (int i = 0; i < r; ++i) off += index[static_cast<size_t>(i)] * strides[static_cast<size_t>(i)];
    out.data[static_cast<size_t>(flat++)] = in.data[static_cast<size_t>(off)];
  } while (nextIndex(index, out.type.shape));
}

}  // namespace

const OpSpec& opTranspose() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Transpose";
    s.sinceVersion = 13;
    s.dtypes = kAllTypes;
    // Scalars are left out: an empty perm cannot be written in ONNX (an INTS attribute
    // with no values fails the checker) and ONNX shape inference loses the rank.
    s.minRank = 1;
    s.attrs = {intsAttr("perm", 0, 4, 1, 5)};
    s.sampleAttrs = transposeAttrs;
    s.infer = inferTranspose;
    s.reference = transposeKernel;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
