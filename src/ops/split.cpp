// split.cpp - Split (opset 13): `split` is an optional constant int64 input giving the
// part sizes along `axis` (default 0, negative allowed).
//
// Without `split`, ONNX splits into as many equal parts as the node has outputs, which
// shape inference here cannot see (InferArgs carries no output count): we model that
// case as one output, the whole input. Generated nodes therefore express every split of
// more than one part through the `split` input, equal parts included.
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace shapeops;

namespace {

void splitAttrs(OpDraft& d) {
  if (d.rng->bernoulli(0.3)) return;
  const int r = d.first().rank();
  d.attrs.setInt("axis", d.rng->uniformInt(-r, r - 1));
}

InputPattern splitSizes(const OpDraft& d) {
  Rng& rng = *d.rng;
  const int r = d.first().rank();
  const int64_t dim = d.first().shape[static_cast<size_t>(*normalizeAxis(d.attrs.getInt("axis", 0), r))];
  const int64_t parts = rng.uniformInt(1, std::min<int64_t>(dim, 5));
  std::vector<int64_t> sizes;
  if (dim % parts == 0 && rng.bernoulli(0.4)) {
    sizes.assign(static_cast<size_t>(parts), dim / parts);
  } else {
    // parts - 1 distinct cut points in [1, dim - 1].
    std::vector<int64_t> cuts(static_cast<size_t>(dim - 1));
    for (size_t i = 0; i < cuts.size(); ++i) cuts[i] = static_cast<int64_t>(i) + 1;
    for (size_t i = 0; i + 1 < static_cast<size_t>(parts); ++i)
      std::swap(cuts[i], cuts[static_cast<size_t>(rng.uniformInt(static_cast<int64_t>(i), static_cast<int64_t>(cuts.size()) - 1))]);
    cuts.resize(static_cast<size_t>(parts - 1));
    std::sort(cuts.begin(), cuts.end());
    int64_t prev = 0;
    for (int64_t c : cuts) {
      sizes.push_back(c - prev);
      prev = c;
    }
    sizes.push_back(dim - prev);
  }
  return InputPattern::constantTensor(int64Tensor(sizes));
}

InferResult inferSplit(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {"axis"}); !e.empty()) return InferResult::fail(e);
  if (args.attrs.hasWrongKind<int64_t>("axis")) return InferResult::fail("axis must be an int");
  const TensorType& in = *args.inputs[0];
  auto axis = normalizeAxis(args.attrs.getInt("axis", 0), in.rank());
  if (!axis) return InferResult::fail("axis is out of range");
  if (args.inputs.size() < 2 || !args.inputs[1]) return {{in}, {}};
  if (auto e = checkIndexVector(args, 1, "split"); !e.empty()) return InferResult::fail(e);
  const auto sizes = intsOf(*args.constants[1]);
  if (sizes.empty()) return InferResult::fail("split is empty");
  int64_t total = 0;
  InferResult r;
  for (int64_t s : sizes) {
    if (s < 0) return InferResult::fail("split holds a negative size");
    if (s > in.shape[static_cast<size_t>(*axis)] - total)  // before adding: sizes may be near 2^63
      return InferResult::fail("split sums to more than the dim " + std::to_string(in.shape[static_cast<size_t>(*axis)]));
    total += s;
    TensorType t = in;
    t.shape[static_cast<size_t>(*axis)] = s;
    r.types.push_back(t);
  }
  if (total != in.shape[static_cast<size_t>(*axis)])
    return InferResult::fail("split sums to " + std::to_string(total) + ", the dim is " +
                             std::to_string(in.shape[static_cast<size_t>(*axis)]));
  return r;
}

void splitKernel(KernelArgs& args) {
  const Tensor& in = *args.inputs[0];
  const Shape& shape = in.type.shape;
  const auto a = static_cast<size_t>(*normalizeAxis(args.attrs.getInt("axis", 0), in.type.rank()));
  const int64_t outer = product(shape, 0, a), inner = product(shape, a + 1, shape.size());
  size_t pos = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (Tensor& out : args.outputs) {
      const int64_t block = out.type.shape[a] * inner;
      for (int64_t i = 0; i < block; ++i) out.data[static_cast<size_t>(o * block + i)] = in.data[pos++];
    }
}

}  // namespace

const OpSpec& opSplit() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Split";
    s.sinceVersion = 13;
    s.minInputs = 1;
    s.maxInputs = 2;
    s.dtypes = kAllTypes;
    s.minRank = 1;
    s.constantInputs = 0b10;
    s.attrs = {intAttr("axis", -5, 4)};
    s.sampleAttrs = splitAttrs;
    s.nextInput = splitSizes;
    s.infer = inferSplit;
    s.reference = splitKernel;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
