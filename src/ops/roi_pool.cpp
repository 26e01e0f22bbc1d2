// roi_pool.cpp - pooling over regions of interest of a feature map X (N x C x H x W):
// RoiAlign (opset 16) and MaxRoiPool (opset 1). Both give num_rois x C x out_h x out_w.
//
// RoiAlign: rois (num_rois x 4: x1, y1, x2, y2 in image coordinates, scaled by
// spatial_scale) and batch_indices (int64) pick each region; every output bin averages
// (mode avg) or takes the max of (mode max) sampling_ratio^2 bilinear samples (0: as many
// as the bin is pixels, rounded up). coordinate_transformation_mode half_pixel shifts by
// half a pixel; output_half_pixel (the old behaviour) does not and makes regions at least
// 1 x 1. A sample more than a pixel outside X reads 0. mode max is ONNX Runtime's and the
// ONNX reference's: the largest of the four weighted corner values of any sample.
//
// MaxRoiPool: rois (num_rois x 5: batch index, x1, y1, x2, y2) rounded to pixels after
// scaling; the region splits into pooled_shape bins (floor/ceil of float32 fractions, as
// Caffe and ONNX Runtime compute them); an empty bin gives 0.
//
// The rois (and batch_indices) are constants, so the stability check sees them: a sample
// within a hair of the 1-pixel limit, an adaptive sample count within a hair of an integer,
// a corner within a hair of a rounding tie, or a bin edge that float32 might put on the
// other side of an integer are unstable.
#include <algorithm>
#include <cmath>

#include "ops/nn_util.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

bool near(double v, double to) { return std::abs(v - to) < kStabilityMargin * std::max(1.0, std::abs(to)); }
bool nearInteger(double v) { return near(v, std::round(v)); }

// A float32 region corner in image coordinates: feature coordinate f at scale.
double cornerFor(Rng& rng, int64_t size, double scale, double slack) {
  return static_cast<float>(rng.uniformReal(-slack, static_cast<double>(size) + slack) / scale);
}

double sampleScale(Rng& rng) {
  const double scales[] = {1.0, 0.5, 0.25, 2.0};
  return scales[rng.uniformInt(0, 3)];
}

// ---- RoiAlign ----

struct AlignGeometry {
  double startH, startW, binH, binW;
  int64_t gridH, gridW;
};

constexpr double kMaxSamplesPerBin = 1 << 20;

AlignGeometry alignGeometry(const Attributes& attrs, const double* roi, int64_t outH, int64_t outW) {
  const double scale = attrs.getFloat("spatial_scale", 1.0);
  const bool halfPixel = attrs.getString("coordinate_transformation_mode", "half_pixel") == "half_pixel";
  const double offset = halfPixel ? 0.5 : 0.0;
  AlignGeometry g;
  g.startW = roi[0] * scale - offset;
  g.startH = roi[1] * scale - offset;
  double w = roi[2] * scale - offset - g.startW, h = roi[3] * scale - offset - g.startH;
  if (!halfPixel) {
    w = std::max(w, 1.0);
    h = std::max(h, 1.0);
  }
  g.binH = h / static_cast<double>(outH);
  g.binW = w / static_cast<double>(outW);
  const int64_t ratio = attrs.getInt("sampling_ratio", 0);
  const double gridH = ratio > 0 ? static_cast<double>(ratio) : std::ceil(h / static_cast<double>(outH));
  const double gridW = ratio > 0 ? static_cast<double>(ratio) : std::ceil(w / static_cast<double>(outW));
  // Regions from outside the generator may be huge or not finite: no grid the reference can walk.
  if (!(std::abs(gridH) <= kMaxSamplesPerBin && std::abs(gridW) <= kMaxSamplesPerBin && gridH * gridW <= kMaxSamplesPerBin))
    throw Error("RoiAlign: a region needs " + std::to_string(gridH * gridW) + " samples per bin, over the reference's " +
                std::to_string(static_cast<int64_t>(kMaxSamplesPerBin)));
  g.gridH = static_cast<int64_t>(gridH);
  g.gridW = static_cast<int64_t>(gridW);
  return g;
}

// The bilinear corner weights and offsets of a sample at (y, x) in an h x w plane; all
// weights 0 for a sample more than a pixel outside, or not a number (a NaN region).
struct Corners {
  double w[4] = {0, 0, 0, 0};
  int64_t at[4] = {0, 0, 0, 0};
};

Corners corners(double y, double x, int64_t h, int64_t w) {
  Corners c;
  if (!(y >= -1.0 && y <= static_cast<double>(h) && x >= -1.0 && x <= static_cast<double>(w))) return c;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  auto low = [](double& v, int64_t size, int64_t& lo, int64_t& hi) {
    lo = static_cast<int64_t>(v);
    if (lo >= size - 1) {
      lo = hi = size - 1;
      v = static_cast<double>(lo);
    } else {
      hi = lo + 1;
    }
  };
  int64_t y0 = 0, y1 = 0, x0 = 0, x1 = 0;
  low(y, h, y0, y1);
  low(x, w, x0, x1);
  const double ly = y - static_cast<double>(y0), lx = x - static_cast<double>(x0), hy = 1 - ly, hx = 1 - lx;
  c.w[0] = hy * hx;
  c.w[1] = hy * lx;
  c.w[2] = ly * hx;
  c.w[3] = ly * lx;
  c.at[0] = y0 * w + x0;
  c.at[1] = y0 * w + x1;
  c.at[2] = y1 * w + x0;
  c.at[3] = y1 * w + x1;
  return c;
}

void sampleAlignAttrs(OpDraft& d) {
  Rng& rng = *d.rng;
  if (rng.bernoulli(0.5)) d.attrs.setString("mode", rng.bernoulli(0.6) ? "max" : "avg");
  if (rng.bernoulli(0.5)) d.attrs.setString("coordinate_transformation_mode", rng.bernoulli(0.5) ? "output_half_pixel" : "half_pixel");
  if (rng.bernoulli(0.7)) d.attrs.setInt("output_height", rng.uniformInt(1, 3));
  if (rng.bernoulli(0.7)) d.attrs.setInt("output_width", rng.uniformInt(1, 3));
  if (rng.bernoulli(0.5)) d.attrs.setInt("sampling_ratio", rng.uniformInt(0, 3));
  if (rng.bernoulli(0.6)) d.attrs.setFloat("spatial_scale", sampleScale(rng));
}

InputPattern alignOperand(const OpDraft& d) {
  Rng& rng = *d.rng;
  const Shape& x = d.first().shape;
  if (d.inputTypes.size() == 1) {
    const int64_t n = rng.uniformInt(1, 4);
    const double scale = d.attrs.getFloat("spatial_scale", 1.0);
    Tensor rois(TensorType{d.first().dtype, {n, 4}});
    for (int64_t r = 0; r < n; ++r) {
      double* p = rois.data.data() + r * 4;
      p[0] = cornerFor(rng, x[3], scale, 0.8);
      p[1] = cornerFor(rng, x[2], scale, 0.8);
      // x2 >= x1 and y2 >= y1 (an inverted region has no samples: all zeros).
      p[2] = static_cast<float>(p[0] + rng.uniformReal(0.0, static_cast<double>(x[3]) + 0.5) / scale);
      p[3] = static_cast<float>(p[1] + rng.uniformReal(0.0, static_cast<double>(x[2]) + 0.5) / scale);
    }
    return InputPattern::constantTensor(std::move(rois));
  }
  const int64_t n = d.inputTypes[1].shape[0];
  Tensor idx(TensorType{DType::Int64, {n}});
  for (double& v : idx.data) v = static_cast<double>(rng.uniformInt(0, x[0] - 1));
  return InputPattern::constantTensor(std::move(idx));
}

InferResult inferRoiAlign(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"coordinate_transformation_mode", "mode", "output_height", "output_width",
                                          "sampling_ratio", "spatial_scale"});
  int64_t oh = 1, ow = 1, ratio = 0;
  double scale = 1;
  if (!err.empty() || !readInt(a.attrs, "output_height", 1, INT64_MAX, 1, oh, err) ||
      !readInt(a.attrs, "output_width", 1, INT64_MAX, 1, ow, err) ||
      !readInt(a.attrs, "sampling_ratio", 0, INT64_MAX, 0, ratio, err) || !readFloat(a.attrs, "spatial_scale", 1, scale, err))
    return InferResult::fail(err);
  const std::string mode = a.attrs.getString("mode", "avg"), ctm = a.attrs.getString("coordinate_transformation_mode", "half_pixel");
  if (a.attrs.hasWrongKind<std::string>("mode") || (mode != "avg" && mode != "max")) return InferResult::fail("mode must be avg or max");
  if (a.attrs.hasWrongKind<std::string>("coordinate_transformation_mode") || (ctm != "half_pixel" && ctm != "output_half_pixel"))
    return InferResult::fail("coordinate_transformation_mode must be half_pixel or output_half_pixel");
  if (!(scale > 0)) return InferResult::fail("spatial_scale must be positive");
  const TensorType& x = *a.inputs[0];
  if (a.inputs.size() < 3 || !a.inputs[1] || !a.inputs[2]) return InferResult::fail("rois and batch_indices are required");
  const TensorType &rois = *a.inputs[1], &idx = *a.inputs[2];
  if (rois.dtype != x.dtype || rois.rank() != 2 || rois.shape[1] != 4) return InferResult::fail("rois must be num_rois x 4 of X's dtype");
  if (idx.dtype != DType::Int64 || idx.shape != Shape{rois.shape[0]}) return InferResult::fail("batch_indices must be int64, one per roi");
  if (const Tensor* c = a.constants[2])
    for (double v : c->data)
      if (v < 0 || v >= static_cast<double>(x.shape[0])) return InferResult::fail("a batch index is out of range");
  if (!a.constants[1] || !a.constants[2]) return InferResult::fail("rois and batch_indices must be constants");
  return {{TensorType{x.dtype, {rois.shape[0], x.shape[1], oh, ow}}}, {}};
}

// Runs RoiAlign; with `unstable` set, only checks the sample positions and grid sizes.
void runRoiAlign(const KernelArgs& a, Tensor* out, bool* unstable) {
  const Tensor& x = *a.inputs[0];
  const Tensor& rois = *a.inputs[1];
  const Tensor& idx = *a.inputs[2];
  const int64_t c = x.type.shape[1], h = x.type.shape[2], w = x.type.shape[3];
  const int64_t oh = a.attrs.getInt("output_height", 1), ow = a.attrs.getInt("output_width", 1);
  const bool max = a.attrs.getString("mode", "avg") == "max";
  const bool adaptive = a.attrs.getInt("sampling_ratio", 0) == 0;
  for (int64_t r = 0; r < rois.type.shape[0]; ++r) {
    const AlignGeometry g = alignGeometry(a.attrs, rois.data.data() + r * 4, oh, ow);
    if (unstable && adaptive && (nearInteger(g.binH) || nearInteger(g.binW))) *unstable = true;
    const auto b = static_cast<int64_t>(idx.data[static_cast<size_t>(r)]);
    if (b < 0 || b >= x.type.shape[0])
      throw Error("RoiAlign: batch index " + std::to_string(b) + " of region " + std::to_string(r) + " is outside the input");
    for (int64_t ph = 0; ph < oh; ++ph)
      for (int64_t pw = 0; pw < ow; ++pw) {
        std::vector<Corners> samples;
        for (int64_t iy = 0; iy < g.gridH; ++iy)
          for (int64_t ix = 0; ix < g.gridW; ++ix) {
            const double y = g.startH + static_cast<double>(ph) * g.binH + (static_cast<double>(iy) + 0.5) * g.binH / static_cast<double>(g.gridH);
            const double xx = g.startW + static_cast<double>(pw) * g.binW + (static_cast<double>(ix) + 0.5) * g.binW / static_cast<double>(g.gridW);
            if (unstable && (near(y, -1.0) || near(y, static_cast<double>(h)) || near(xx, -1.0) || near(xx, static_cast<double>(w))))
              *unstable = true;  // at the 1-pixel limit past which a sample reads 0
            samples.push_back(corners(y, xx, h, w));
          }
        if (!out) continue;
        const double count = static_cast<double>(std::max<int64_t>(g.gridH * g.gridW, 1));
        for (int64_t ch = 0; ch < c; ++ch) {
          const double* plane = x.data.data() + (b * c + ch) * h * w;
          double acc = 0;
          bool first = true;
          for (const Corners& s : samples) {
            if (max) {
              double v = s.w[0] * plane[s.at[0]];
              for (int k = 1; k < 4; ++k) v = std::max(v, s.w[k] * plane[s.at[k]]);
              acc = first ? v : std::max(acc, v);
              first = false;
            } else {
              for (int k = 0; k < 4; ++k) acc += s.w[k] * plane[s.at[k]];
            }
          }
          out->data[static_cast<size_t>(((r * c + ch) * oh + ph) * ow + pw)] = max ? acc : acc / count;
        }
      }
  }
}

void roiAlignKernel(KernelArgs& a) { runRoiAlign(a, &a.outputs[0], nullptr); }

bool roiAlignUnstable(const KernelArgs& a) {
  bool unstable = false;
  runRoiAlign(a, nullptr, &unstable);
  return unstable;
}

// ---- MaxRoiPool ----

struct PoolRegion {
  int64_t batch, startW, startH, endW, endH;
};

PoolRegion poolRegion(const double* roi, double scale) {
  return {static_cast<int64_t>(roi[0]), static_cast<int64_t>(std::round(roi[1] * scale)), static_cast<int64_t>(std::round(roi[2] * scale)),
          static_cast<int64_t>(std::round(roi[3] * scale)), static_cast<int64_t>(std::round(roi[4] * scale))};
}

// Bin k's edge along an axis: k * size / pooled in float32 (as Caffe and ONNX Runtime).
float binEdge(int64_t k, int64_t size, int64_t pooled) {
  return static_cast<float>(k) * (static_cast<float>(size) / static_cast<float>(pooled));
}

void samplePoolAttrs(OpDraft& d) {
  Rng& rng = *d.rng;
  d.attrs.setInts("pooled_shape", {rng.uniformInt(1, 3), rng.uniformInt(1, 3)});
  if (rng.bernoulli(0.6)) d.attrs.setFloat("spatial_scale", sampleScale(rng));
}

InputPattern poolRois(const OpDraft& d) {
  Rng& rng = *d.rng;
  const Shape& x = d.first().shape;
  const int64_t n = rng.uniformInt(1, 4);
  const double scale = d.attrs.getFloat("spatial_scale", 1.0);
  Tensor rois(TensorType{d.first().dtype, {n, 5}});
  for (int64_t r = 0; r < n; ++r) {
    double* p = rois.data.data() + r * 5;
    p[0] = static_cast<double>(rng.uniformInt(0, x[0] - 1));
    p[1] = cornerFor(rng, x[3], scale, 1.0);
    p[2] = cornerFor(rng, x[2], scale, 1.0);
    p[3] = static_cast<float>(p[1] + rng.uniformReal(0.0, static_cast<double>(x[3])) / scale);
    p[4] = static_cast<float>(p[2] + rng.uniformReal(0.0, static_cast<double>(x[2])) / scale);
  }
  return InputPattern::constantTensor(std::move(rois));
}

InferResult inferMaxRoiPool(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"pooled_shape", "spatial_scale"});
  std::vector<int64_t> pooled;
  double scale = 1;
  if (!a.attrs.has("pooled_shape")) return InferResult::fail("pooled_shape is required");
  if (!err.empty() || !readInts(a.attrs, "pooled_shape", 2, 1, 1, pooled, err) || !readFloat(a.attrs, "spatial_scale", 1, scale, err))
    return InferResult::fail(err);
  if (!(scale > 0)) return InferResult::fail("spatial_scale must be positive");
  const TensorType& x = *a.inputs[0];
  if (a.inputs.size() < 2 || !a.inputs[1]) return InferResult::fail("rois is required");
  const TensorType& rois = *a.inputs[1];
  if (rois.dtype != x.dtype || rois.rank() != 2 || rois.shape[1] != 5) return InferResult::fail("rois must be num_rois x 5 of X's dtype");
  if (!a.constants[1]) return InferResult::fail("rois must be a constant");
  for (int64_t r = 0; r < rois.shape[0]; ++r) {
    const double b = a.constants[1]->data[static_cast<size_t>(r * 5)];
    if (b != std::floor(b) || b < 0 || b >= static_cast<double>(x.shape[0])) return InferResult::fail("a batch index is out of range");
    for (int k = 1; k < 5; ++k)  // corners become pixel indices: they must be numbers an image can have
      if (!(std::abs(a.constants[1]->data[static_cast<size_t>(r * 5 + k)] * scale) < 1e9))
        return InferResult::fail("a region corner is not finite or beyond any image");
  }
  return {{TensorType{x.dtype, {rois.shape[0], x.shape[1], pooled[0], pooled[1]}}}, {}};
}

void runMaxRoiPool(const KernelArgs& a, Tensor* out, bool* unstable) {
  const Tensor& x = *a.inputs[0];
  const Tensor& rois = *a.inputs[1];
  const int64_t c = x.type.shape[1], h = x.type.shape[2], w = x.type.shape[3];
  const auto pooled = a.attrs.getInts("pooled_shape");
  const int64_t ph = pooled[0], pw = pooled[1];
  const double scale = a.attrs.getFloat("spatial_scale", 1.0);
  for (int64_t r = 0; r < rois.type.shape[0]; ++r) {
    const double* roi = rois.data.data() + r * 5;
    if (unstable)
      for (int k = 1; k < 5; ++k) {
        const double v = roi[k] * scale;
        if (std::abs(std::abs(v - std::floor(v)) - 0.5) < kStabilityMargin * std::max(1.0, std::abs(v))) *unstable = true;
      }
    const PoolRegion g = poolRegion(roi, scale);
    const int64_t rh = std::max<int64_t>(g.endH - g.startH + 1, 1), rw = std::max<int64_t>(g.endW - g.startW + 1, 1);
    if (unstable)  // a bin edge float32 might round across an integer
      for (auto [size, n] : {std::pair{rh, ph}, std::pair{rw, pw}})
        for (int64_t k = 1; k <= n; ++k) {
          const double exact = static_cast<double>(k * size) / static_cast<double>(n);
          if (nearInteger(exact) && static_cast<double>(binEdge(k, size, n)) != exact) *unstable = true;
        }
    if (!out) continue;
    for (int64_t i = 0; i < ph; ++i)
      for (int64_t j = 0; j < pw; ++j) {
        const int64_t hs = std::clamp<int64_t>(static_cast<int64_t>(std::floor(binEdge(i, rh, ph))) + g.startH, 0, h);
        const int64_t he = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(binEdge(i + 1, rh, ph))) + g.startH, 0, h);
        const int64_t ws = std::clamp<int64_t>(static_cast<int64_t>(std::floor(binEdge(j, rw, pw))) + g.startW, 0, w);
        const int64_t we = std::clamp<int64_t>(static_cast<int64_t>(std::ceil(binEdge(j + 1, rw, pw))) + g.startW, 0, w);
        for (int64_t ch = 0; ch < c; ++ch) {
          const double* plane = x.data.data() + (g.batch * c + ch) * h * w;
          double best = 0;
          for (int64_t y = hs; y < he; ++y)
            for (int64_t xx = ws; xx < we; ++xx) best = (y == hs && xx == ws) ? plane[y * w + xx] : std::max(best, plane[y * w + xx]);
          out->data[static_cast<size_t>(((r * c + ch) * ph + i) * pw + j)] = best;  // 0 when the bin is empty
        }
      }
  }
}

void maxRoiPoolKernel(KernelArgs& a) { runMaxRoiPool(a, &a.outputs[0], nullptr); }

bool maxRoiPoolUnstable(const KernelArgs& a) {
  bool unstable = false;
  runMaxRoiPool(a, nullptr, &unstable);
  return unstable;
}

}  // namespace

const OpSpec& opRoiAlign() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "RoiAlign";
    t.sinceVersion = 16;
    t.minInputs = t.maxInputs = 3;
    t.dtypes = kFloatTypes;
    t.minRank = t.maxRank = 4;
    t.constantInputs = 0b110;
    t.attrs = {{"coordinate_transformation_mode", AttrKind::String, 0, 0, 0, 0, {"half_pixel", "output_half_pixel"}},
               {"mode", AttrKind::String, 0, 0, 0, 0, {"avg", "max"}},
               intAttr("output_height", 1, 3),
               intAttr("output_width", 1, 3),
               intAttr("sampling_ratio", 0, 3),
               floatAttr("spatial_scale", 0.25, 2.0)};
    t.sampleAttrs = sampleAlignAttrs;
    t.nextInput = alignOperand;
    t.infer = inferRoiAlign;
    t.reference = roiAlignKernel;
    t.unstable = roiAlignUnstable;
    return t;
  }();
  return s;
}

const OpSpec& opMaxRoiPool() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "MaxRoiPool";
    t.sinceVersion = 1;
    t.minInputs = t.maxInputs = 2;
    t.dtypes = kFloatTypes;
    t.minRank = t.maxRank = 4;
    t.constantInputs = 0b10;
    t.attrs = {intsAttr("pooled_shape", 1, 3, 2, 2), floatAttr("spatial_scale", 0.25, 2.0)};
    t.sampleAttrs = samplePoolAttrs;
    t.nextInput = poolRois;
    t.infer = inferMaxRoiPool;
    t.reference = maxRoiPoolKernel;
    t.unstable = maxRoiPoolUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
