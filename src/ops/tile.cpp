// tile.cpp - Tile (opset 13): repeats is a constant int64 input, one non-negative count
// per dim; the result dim i is dim_i * repeats_i.
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
  const Shape& shape = in.type.shape;
  const auto strides = stridesOf(shape);
  std::vector<int64_t> index(shape.size(), 0);
  int64_t flat = 0;
  do {
    int64_t off = 0;
    for (size_t i = 0; i < shape.size(); ++i) off += (index[i] % shape[i]) * strides[i];
    out.data[static_cast<size_t>(flat++)] = in.data[static_cast<size_t>(off)];
  } while (nextIndex(index, out.type.shape));
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
