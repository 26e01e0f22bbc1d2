// tile.cpp - Tile (opset 13): repeats is a constant int64 input, one non-negative count
// per dim; the result dim i is dim_i * repeats_i.
#include <functional>
#include <numeric>

#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace shapeops;

namespace {

InputPattern tileRepeats(const OpDraft& d) {
  Rng& rng = *d.rng;
  std::vector<int64_t> repeats;
  for (int64_t n : d.first().shape) {
    const int64_t most = std::max<int64_t>(1, maxResultDim(*d.limits) / n);
    repeats.push_back(rng.bernoulli(0.35) ? 1 : rng.uniformInt(1, std::min<int64_t>(most, 4)));
  }
  return InputPattern::constantTensor(int64Tensor(repeats));
}

InferResult inferTile(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {}); !e.empty()) return InferResult::fail(e);
  if (auto e = checkIndexVector(args, 1, "repeats"); !e.empty()) return InferResult::fail(e);
  const auto repeats = intsOf(*args.constants[1]);
  const TensorType& x = *args.inputs[0];
  if (repeats.size() != x.shape.size()) return InferResult::fail("repeats must hold one value per dim");
  Shape out = x.shape;
  for (size_t i = 0; i < out.size(); ++i) {
    if (repeats[i] < 0 || repeats[i] > (int64_t{1} << 30)) return InferResult::fail("a repeat is out of range");
    out[i] *= repeats[i];
  }
  return {{TensorType{x.dtype, out}}, {}};
}

void tileKernel(KernelArgs& args) {
  const Tensor& in = *args.inputs[0];
  Tensor& out = args.outputs[0];
  if (out.numel() == 0) return;
  // Repeat along one dim at a time, innermost first: each block of the dims from there on
  // is copied once per repeat (out[i] = in[i mod shape], in runs of whole rows).
  std::vector<double> tiled = in.data, next;
  Shape shape = in.type.shape;
  for (size_t d = shape.size(); d-- > 0;) {
    const auto repeats = static_cast<size_t>(out.type.shape[d] / shape[d]);
    if (repeats == 1) continue;
    const auto first = shape.begin() + static_cast<ptrdiff_t>(d);
    const auto block = static_cast<ptrdiff_t>(std::reduce(first, shape.end(), int64_t{1}, std::multiplies<>()));
    next.clear();
    next.reserve(tiled.size() * repeats);
    for (auto from = tiled.begin(); from != tiled.end(); from += block)
      for (size_t r = 0; r < repeats; ++r) next.insert(next.end(), from, from + block);
    tiled.swap(next);
    shape[d] = out.type.shape[d];
  }
  out.data = std::move(tiled);
}

}  // namespace

const OpSpec& opTile() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Tile";
    s.sinceVersion = 13;
    s.minInputs = s.maxInputs = 2;
    s.dtypes = kAllTypes;
    s.minRank = 1;
    s.constantInputs = 0b10;
    s.nextInput = tileRepeats;
    s.infer = inferTile;
    s.reference = tileKernel;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
