// depth_space.cpp - DepthToSpace (opset 13, modes DCR and CRD) and SpaceToDepth (opset 13)
// on NCHW tensors with a required blocksize b.
//
// DepthToSpace: [N, C, H, W] -> [N, C/b^2, H*b, W*b]; DCR reads channel (i*b + j)*C' + c,
// CRD reads c*b^2 + i*b + j for output (c, h*b + i, w*b + j). SpaceToDepth is the DCR
// inverse: [N, C, H, W] -> [N, C*b^2, H/b, W/b]. First inputs are sampled with dims that
// some blocksize > 1 divides.
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace shapeops;

namespace {

bool anyFirst(const TensorType&, const Limits&) { return true; }

int64_t uniformUpTo(Rng& rng, int64_t lo, int64_t hi) { return rng.uniformInt(lo, std::max(lo, hi)); }

TensorType sampleDepthFirst(Rng& rng, const Limits& limits, DType dtype) {
  const int64_t cap = maxResultDim(limits);
  const int64_t b = rng.uniformInt(1, 3);
  Shape s = sampleShape(rng, limits, 4);
  if (b * b <= cap) s[1] = b * b * uniformUpTo(rng, 1, limits.maxDim / (b * b));
  return {dtype, s};
}

TensorType sampleSpaceFirst(Rng& rng, const Limits& limits, DType dtype) {
  const int64_t b = rng.uniformInt(1, std::max<int64_t>(1, std::min<int64_t>(3, limits.maxDim)));
  Shape s = sampleShape(rng, limits, 4);
  s[1] = uniformUpTo(rng, 1, std::min(limits.maxDim, maxResultDim(limits) / (b * b)));
  s[2] = b * uniformUpTo(rng, 1, limits.maxDim / b);
  s[3] = b * uniformUpTo(rng, 1, limits.maxDim / b);
  return {dtype, s};
}

// A blocksize from the candidates in [1, 4] that `fits`, preferring ones above 1.
template <typename Fits>
int64_t pickBlocksize(Rng& rng, Fits fits) {
  std::vector<int64_t> big;
  for (int64_t b = 2; b <= 4; ++b)
    if (fits(b)) big.push_back(b);
  if (big.empty() || rng.bernoulli(0.1)) return 1;
  return rng.pick(big);
}

void depthAttrs(OpDraft& d) {
  const Shape& s = d.first().shape;
  const int64_t cap = maxResultDim(*d.limits);
  d.attrs.setInt("blocksize", pickBlocksize(*d.rng, [&](int64_t b) {
    return s[1] % (b * b) == 0 && s[2] * b <= cap && s[3] * b <= cap;
  }));
  const double u = d.rng->uniformReal(0, 1);
  if (u < 0.3) return;
  d.attrs.setString("mode", u < 0.6 ? "DCR" : "CRD");
}

void spaceAttrs(OpDraft& d) {
  const Shape& s = d.first().shape;
  const int64_t cap = maxResultDim(*d.limits);
  d.attrs.setInt("blocksize", pickBlocksize(*d.rng, [&](int64_t b) {
    return s[2] % b == 0 && s[3] % b == 0 && s[1] * b * b <= cap;
  }));
}

std::variant<int64_t, std::string> blocksizeOf(const Attributes& attrs) {
  if (!attrs.has("blocksize")) return std::string("blocksize is required");
  if (attrs.hasWrongKind<int64_t>("blocksize")) return std::string("blocksize must be an int");
  const int64_t b = attrs.getInt("blocksize", 0);
  if (b <= 0 || b > (int64_t{1} << 20)) return std::string("blocksize must be positive");
  return b;
}

InferResult inferDepthToSpace(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {"blocksize", "mode"}); !e.empty()) return InferResult::fail(e);
  auto b = blocksizeOf(args.attrs);
  if (auto* why = std::get_if<std::string>(&b)) return InferResult::fail(*why);
  const int64_t bs = std::get<int64_t>(b);
  if (args.attrs.hasWrongKind<std::string>("mode")) return InferResult::fail("mode must be a string");
  const std::string mode = args.attrs.getString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") return InferResult::fail("unknown mode " + mode);
  const Shape& s = args.inputs[0]->shape;
  if (s[1] % (bs * bs) != 0) return InferResult::fail("channels are not divisible by blocksize^2");
  return {{TensorType{args.inputs[0]->dtype, {s[0], s[1] / (bs * bs), s[2] * bs, s[3] * bs}}}, {}};
}

InferResult inferSpaceToDepth(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {"blocksize"}); !e.empty()) return InferResult::fail(e);
  auto b = blocksizeOf(args.attrs);
  if (auto* why = std::get_if<std::string>(&b)) return InferResult::fail(*why);
  const int64_t bs = std::get<int64_t>(b);
  const Shape& s = args.inputs[0]->shape;
  if (s[2] % bs != 0 || s[3] % bs != 0) return InferResult::fail("height and width must be divisible by blocksize");
  return {{TensorType{args.inputs[0]->dtype, {s[0], s[1] * bs * bs, s[2] / bs, s[3] / bs}}}, {}};
}

// Offset in the NCHW tensor of `shape`.
int64_t at(const Shape& shape, int64_t n, int64_t c, int64_t h, int64_t w) {
  return ((n * shape[1] + c) * shape[2] + h) * shape[3] + w;
}

void depthToSpaceKernel(KernelArgs& args) {
  const Tensor& in = *args.inputs[0];
  Tensor& out = args.outputs[0];
  const int64_t b = args.attrs.getInt("blocksize", 1);
  const bool crd = args.attrs.getString("mode", "DCR") == "CRD";
  const Shape& is = in.type.shape;
  const Shape& os = out.type.shape;
  for (int64_t n = 0; n < os[0]; ++n)
    for (int64_t c = 0; c < os[1]; ++c)
      for (int64_t y = 0; y < os[2]; ++y)
        for (int64_t x = 0; x < os[3]; ++x) {
          const int64_t i = y % b, j = x % b;
          const int64_t src = crd ? c * b * b + i * b + j : (i * b + j) * os[1] + c;
          out.data[static_cast<size_t>(at(os, n, c, y, x))] = in.data[static_cast<size_t>(at(is, n, src, y / b, x / b))];
        }
}

void spaceToDepthKernel(KernelArgs& args) {
  const Tensor& in = *args.inputs[0];
  Tensor& out = args.outputs[0];
  const int64_t b = args.attrs.getInt("blocksize", 1);
  const Shape& is = in.type.shape;
  const Shape& os = out.type.shape;
  for (int64_t n = 0; n < is[0]; ++n)
    for (int64_t c = 0; c < is[1]; ++c)
      for (int64_t y = 0; y < is[2]; ++y)
        for (int64_t x = 0; x < is[3]; ++x) {
          const int64_t dst = ((y % b) * b + x % b) * is[1] + c;
          out.data[static_cast<size_t>(at(os, n, dst, y / b, x / b))] = in.data[static_cast<size_t>(at(is, n, c, y, x))];
        }
}

OpSpec blockSpec(std::string_view name) {
  OpSpec s;
  s.name = name;
  s.sinceVersion = 13;
  s.dtypes = kAllTypes;
  s.minRank = s.maxRank = 4;
  s.acceptsFirst = anyFirst;
  return s;
}

}  // namespace

const OpSpec& opDepthToSpace() {
  static const OpSpec s = [] {
    OpSpec s = blockSpec("DepthToSpace");
    s.attrs = {intAttr("blocksize", 1, 4), stringAttr("mode", {"DCR", "CRD"})};
    s.sampleFirst = sampleDepthFirst;
    s.sampleAttrs = depthAttrs;
    s.infer = inferDepthToSpace;
    s.reference = depthToSpaceKernel;
    return s;
  }();
  return s;
}

const OpSpec& opSpaceToDepth() {
  static const OpSpec s = [] {
    OpSpec s = blockSpec("SpaceToDepth");
    s.attrs = {intAttr("blocksize", 1, 4)};
    s.sampleFirst = sampleSpaceFirst;
    s.sampleAttrs = spaceAttrs;
    s.infer = inferSpaceToDepth;
    s.reference = spaceToDepthKernel;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
