// affine_grid.cpp - AffineGrid (opset 20): the sampling grid GridSample reads, from affine
// matrices theta (N x 2 x 3 for 2-D, N x 3 x 4 for 3-D) and a constant int64 size (N, C,
// H, W) or (N, C, D, H, W). grid[n, (d,) h, w] = theta[n] . (x_w, y_h, (z_d,) 1), giving
// N x H x W x 2 or N x D x H x W x 3 with (x, y(, z)) last, as GridSample reads them.
//
// Base coordinates follow GridSample's conventions (grid_sample.cpp): with align_corners
// -1 and 1 are the centres of the first and last pixels (x_w = -1 + 2w / (W - 1); a dim of
// 1 gives -1, the ONNX reference's reading), without them the outer edges (x_w = (2w + 1)
// / W - 1). Linear in theta; but a spatial dim of 1 with align_corners has no spacing,
// and engines disagree on its coordinate (ONNX Runtime 1.31 gives 1, PyTorch 0): the
// sampler never draws it and the stability check flags it.
#include <algorithm>

#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

// theta's matrix shape for `spatial` dims: spatial x (spatial + 1).
bool thetaShape(const TensorType& t) {
  return t.rank() == 3 && ((t.shape[1] == 2 && t.shape[2] == 3) || (t.shape[1] == 3 && t.shape[2] == 4));
}

bool acceptsTheta(const TensorType& t, const Limits&) { return thetaShape(t); }

TensorType sampleTheta(Rng& rng, const Limits& limits, DType dtype) {
  const int64_t spatial = rng.bernoulli(0.7) ? 2 : 3;
  return TensorType{dtype, {rng.uniformInt(limits.minDim, limits.maxDim), spatial, spatial + 1}};
}

void sampleAlign(OpDraft& d) {
  const double u = d.rng->uniformReal(0, 1);
  if (u < 0.3) return;
  // align_corners needs spatial dims of 2 or more (see above).
  d.attrs.setInt("align_corners", u < 0.55 || d.limits->maxDim < 2 ? 0 : 1);
}

bool alignsCorners(const Attributes& attrs) { return attrs.getInt("align_corners", 0) == 1; }

InputPattern sizeOperand(const OpDraft& d) {
  Rng& rng = *d.rng;
  const TensorType& theta = d.first();
  const int64_t smallest = alignsCorners(d.attrs) ? std::max<int64_t>(2, d.limits->minDim) : d.limits->minDim;
  std::vector<int64_t> size{theta.shape[0], rng.uniformInt(d.limits->minDim, d.limits->maxDim)};
  for (int64_t i = 0; i < theta.shape[1]; ++i) size.push_back(rng.uniformInt(smallest, d.limits->maxDim));
  return InputPattern::constantTensor(int64Tensor(size));
}

InferResult inferAffineGrid(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"align_corners"});
  int64_t align = 0;
  if (!err.empty() || !readInt(a.attrs, "align_corners", 0, 1, 0, align, err)) return InferResult::fail(err);
  const TensorType& theta = *a.inputs[0];
  if (!thetaShape(theta)) return InferResult::fail("theta must be N x 2 x 3 or N x 3 x 4");
  if (a.inputs.size() < 2 || !a.inputs[1]) return InferResult::fail("size is required");
  if (auto e = shapeops::checkIndexVector(a, 1, "size"); !e.empty()) return InferResult::fail(e);
  const std::vector<int64_t> size = shapeops::intsOf(*a.constants[1]);
  const int64_t spatial = theta.shape[1];
  if (static_cast<int64_t>(size.size()) != spatial + 2)
    return InferResult::fail("size must hold N, C and " + std::to_string(spatial) + " spatial dims");
  if (size[0] != theta.shape[0]) return InferResult::fail("size[0] must be theta's N");
  Shape out{size[0]};
  for (size_t i = 2; i < size.size(); ++i) {
    if (size[i] < 0 || size[i] > (int64_t{1} << 20)) return InferResult::fail("size dims must be >= 0 and not huge");
    out.push_back(size[i]);
  }
  out.push_back(spatial);
  return {{TensorType{theta.dtype, out}}, {}};
}

double baseCoordinate(int64_t i, int64_t n, bool alignCorners) {
  if (alignCorners) return n == 1 ? -1.0 : -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1);
  return (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(n) - 1.0;
}

void affineGridKernel(KernelArgs& a) {
  const Tensor& theta = *a.inputs[0];
  const bool align = alignsCorners(a.attrs);
  const auto spatial = static_cast<size_t>(theta.type.shape[1]);
  const Shape& out = a.outputs[0].type.shape;
  const Shape dims(out.begin() + 1, out.end() - 1);  // (D,) H, W
  const int64_t points = product(dims);
  std::vector<int64_t> index(spatial, 0);
  std::vector<double> base(spatial + 1, 1.0);  // (x, y(, z), 1)
  for (int64_t p = 0; p < points; ++p) {
    // index runs over (D,) H, W; base lists x (from W) first.
    for (size_t k = 0; k < spatial; ++k) base[k] = baseCoordinate(index[spatial - 1 - k], dims[spatial - 1 - k], align);
    for (int64_t n = 0; n < out[0]; ++n) {
      const double* m = theta.data.data() + n * static_cast<int64_t>(spatial * (spatial + 1));
      for (size_t r = 0; r < spatial; ++r) {
        double acc = 0;
        for (size_t c = 0; c <= spatial; ++c) acc += m[r * (spatial + 1) + c] * base[c];
        a.outputs[0].data[static_cast<size_t>((n * points + p) * static_cast<int64_t>(spatial)) + r] = acc;
      }
    }
    nextIndex(index, dims);
  }
}

bool affineGridUnstable(const KernelArgs& a) {
  const Shape& out = a.outputs[0].type.shape;
  return alignsCorners(a.attrs) && std::find(out.begin() + 1, out.end() - 1, 1) != out.end() - 1;
}

}  // namespace

const OpSpec& opAffineGrid() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "AffineGrid";
    t.sinceVersion = 20;
    t.minInputs = t.maxInputs = 2;
    t.dtypes = kFloatTypes;
    t.minRank = t.maxRank = 3;
    t.constantInputs = 0b10;
    t.attrs = {intAttr("align_corners", 0, 1)};
    t.acceptsFirst = acceptsTheta;
    t.sampleFirst = sampleTheta;
    t.sampleAttrs = sampleAlign;
    t.nextInput = sizeOperand;
    t.infer = inferAffineGrid;
    t.reference = affineGridKernel;
    t.unstable = affineGridUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
