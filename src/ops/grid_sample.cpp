// grid_sample.cpp - GridSample (opset 16): samples X (N x C x H x W) at the points of grid
// (N x H_out x W_out x 2, (x, y) normalised to [-1, 1]), giving N x C x H_out x W_out.
//
// A grid point maps to pixel space by align_corners (1: -1 and 1 are the corner pixels'
// centres; 0: their outer edges). mode bilinear, nearest (rounding half to even) or
// bicubic (A = -0.75, 4 x 4 taps); padding_mode says what taps outside X read: zeros,
// border (the nearest edge pixel) or reflection (the point, then every tap, mirrored at
// the borders: the edge pixels' centres with align_corners, their outer edges without).
// This is the ONNX reference's and ONNX Runtime's reading.
//
// Every mode is continuous in the grid except nearest, whose rounding jumps at half-pixels:
// a grid point within a hair of one is unstable. Reflection about a zero-width border (H or
// W of 1 with align_corners) is degenerate; the kernel pins it to the border and the
// sampler does not draw it.
#include <algorithm>
#include <cmath>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

enum class SampleMode { Bilinear, Nearest, Bicubic };
enum class Padding { Zeros, Border, Reflection };

struct Settings {
  SampleMode mode = SampleMode::Bilinear;
  Padding padding = Padding::Zeros;
  bool alignCorners = false;
};

Settings settingsOf(const Attributes& attrs) {
  Settings s;
  const std::string mode = attrs.getString("mode", "bilinear"), pad = attrs.getString("padding_mode", "zeros");
  s.mode = mode == "nearest" ? SampleMode::Nearest : mode == "bicubic" ? SampleMode::Bicubic : SampleMode::Bilinear;
  s.padding = pad == "border" ? Padding::Border : pad == "reflection" ? Padding::Reflection : Padding::Zeros;
  s.alignCorners = attrs.getInt("align_corners", 0) == 1;
  return s;
}

// Pixel coordinate of a normalised one along an axis of `size` pixels.
double denormalize(double n, int64_t size, bool alignCorners) {
  const auto len = static_cast<double>(size);
  return alignCorners ? (n + 1) / 2 * (len - 1) : ((n + 1) * len - 1) / 2;
}

// Mirrors x into [lo, hi] (repeatedly, as a reflection about both ends).
double reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (x >= lo && x <= hi) return x;
  // Distance past the edge, folded over a period of two reflections (fmod: no integer cast,
  // so a coordinate of any size is fine).
  const double d = std::fmod(x < lo ? lo - x : x - hi, 2 * range);
  const double r = d < range ? d : d - range;
  const bool flipped = d >= range;
  if (x < lo) return flipped ? hi - r : lo + r;
  return flipped ? lo + r : hi - r;
}

struct Plane {
  const double* data;
  int64_t h, w;
  Settings s;
  // The reflection borders along an axis of `size` pixels.
  double lo() const { return s.alignCorners ? 0.0 : -0.5; }
  double hi(int64_t size) const { return s.alignCorners ? static_cast<double>(size - 1) : static_cast<double>(size) - 0.5; }

  // The value at integer pixel (y, x) under the padding mode.
  double at(int64_t y, int64_t x) const {
    switch (s.padding) {
      case Padding::Zeros:
        if (y < 0 || y >= h || x < 0 || x >= w) return 0.0;
        break;
      case Padding::Border:
        y = std::clamp<int64_t>(y, 0, h - 1);
        x = std::clamp<int64_t>(x, 0, w - 1);
        break;
      case Padding::Reflection:
        y = std::clamp<int64_t>(static_cast<int64_t>(reflect(static_cast<double>(y), lo(), hi(h))), 0, h - 1);
        x = std::clamp<int64_t>(static_cast<int64_t>(reflect(static_cast<double>(x), lo(), hi(w))), 0, w - 1);
        break;
    }
    return data[y * w + x];
  }
};

void cubicCoefficients(double t, double c[4]) {
  constexpr double A = -0.75;
  auto near = [](double d) { return ((A + 2) * d - (A + 3)) * d * d + 1; };      // |d| <= 1
  auto far = [](double d) { return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A; };  // 1 < |d| < 2
  c[0] = far(t + 1);
  c[1] = near(t);
  c[2] = near(1 - t);
  c[3] = far(2 - t);
}

double sample(const Plane& p, double x, double y) {
  if (p.s.mode == SampleMode::Nearest) {
    x = std::nearbyint(x);
    y = std::nearbyint(y);
  }
  if (p.s.padding == Padding::Reflection) {
    x = reflect(x, p.lo(), p.hi(p.w));
    y = reflect(y, p.lo(), p.hi(p.h));
  }
  // A grid from outside the generator may hold anything: a few pixels past an edge every
  // padding mode reads the same as further out, so far coordinates are clamped (not cast).
  if (std::isnan(x) || std::isnan(y)) return std::nan("");
  x = std::clamp(x, -8.0 - static_cast<double>(p.w), 8.0 + static_cast<double>(p.w));
  y = std::clamp(y, -8.0 - static_cast<double>(p.h), 8.0 + static_cast<double>(p.h));
  if (p.s.mode == SampleMode::Nearest) return p.at(static_cast<int64_t>(y), static_cast<int64_t>(x));
  const double fx = std::floor(x), fy = std::floor(y);
  const auto x0 = static_cast<int64_t>(fx), y0 = static_cast<int64_t>(fy);
  const double dx = x - fx, dy = y - fy;
  if (p.s.mode == SampleMode::Bilinear)
    return (1 - dy) * ((1 - dx) * p.at(y0, x0) + dx * p.at(y0, x0 + 1)) + dy * ((1 - dx) * p.at(y0 + 1, x0) + dx * p.at(y0 + 1, x0 + 1));
  double cx[4], cy[4];
  cubicCoefficients(dx, cx);
  cubicCoefficients(dy, cy);
  double acc = 0;
  for (int i = 0; i < 4; ++i) {
    double row = 0;
    for (int j = 0; j < 4; ++j) row += cx[j] * p.at(y0 - 1 + i, x0 - 1 + j);
    acc += cy[i] * row;
  }
  return acc;
}

void sampleGridAttrs(OpDraft& d) {
  Rng& rng = *d.rng;
  const double m = rng.uniformReal(0, 1);
  if (m < 0.4) {
    if (rng.bernoulli(0.3)) d.attrs.setString("mode", "bilinear");
  } else {
    d.attrs.setString("mode", m < 0.7 ? "nearest" : "bicubic");
  }
  const double p = rng.uniformReal(0, 1);
  const bool degenerate = d.first().shape[2] == 1 || d.first().shape[3] == 1;
  const bool align = rng.bernoulli(0.5);
  if (p < 0.4) {
    if (rng.bernoulli(0.3)) d.attrs.setString("padding_mode", "zeros");
  } else {
    d.attrs.setString("padding_mode", p < 0.7 || (align && degenerate) ? "border" : "reflection");
  }
  if (align || rng.bernoulli(0.3)) d.attrs.setInt("align_corners", align ? 1 : 0);
}

InputPattern gridOperand(const OpDraft& d) {
  const TensorType& x = d.first();
  InputPattern p;
  p.accepts = [x](const TensorType& t) { return t.dtype == x.dtype && t.rank() == 4 && t.shape[0] == x.shape[0] && t.shape[3] == 2; };
  p.sample = [x, limits = *d.limits](Rng& rng) {
    return TensorType{x.dtype, {x.shape[0], rng.uniformInt(limits.minDim, limits.maxDim), rng.uniformInt(limits.minDim, limits.maxDim), 2}};
  };
  p.range = ValueRange{-1.2, 1.2, 0.0};  // a little outside, so the padding modes matter
  return p;
}

InferResult inferGridSample(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"align_corners", "mode", "padding_mode"});
  int64_t align = 0;
  if (!err.empty() || !readInt(a.attrs, "align_corners", 0, 1, 0, align, err)) return InferResult::fail(err);
  const std::string mode = a.attrs.getString("mode", "bilinear"), pad = a.attrs.getString("padding_mode", "zeros");
  if (a.attrs.hasWrongKind<std::string>("mode") || (mode != "bilinear" && mode != "nearest" && mode != "bicubic"))
    return InferResult::fail("mode must be bilinear, nearest or bicubic");
  if (a.attrs.hasWrongKind<std::string>("padding_mode") || (pad != "zeros" && pad != "border" && pad != "reflection"))
    return InferResult::fail("padding_mode must be zeros, border or reflection");
  const TensorType& x = *a.inputs[0];
  if (a.inputs.size() < 2 || !a.inputs[1]) return InferResult::fail("grid is required");
  const TensorType& g = *a.inputs[1];
  if (g.dtype != x.dtype) return InferResult::fail("grid must have X's dtype");
  if (g.rank() != 4 || g.shape[0] != x.shape[0] || g.shape[3] != 2)
    return InferResult::fail("grid must be N x H_out x W_out x 2");
  return {{TensorType{x.dtype, {x.shape[0], x.shape[1], g.shape[1], g.shape[2]}}}, {}};
}

void gridSampleKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const Tensor& g = *a.inputs[1];
  const Settings s = settingsOf(a.attrs);
  const int64_t n = x.type.shape[0], c = x.type.shape[1], h = x.type.shape[2], w = x.type.shape[3];
  const int64_t points = g.type.shape[1] * g.type.shape[2];
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch) {
      const Plane plane{x.data.data() + (b * c + ch) * h * w, h, w, s};
      for (int64_t k = 0; k < points; ++k) {
        const double* p = g.data.data() + (b * points + k) * 2;
        a.outputs[0].data[static_cast<size_t>((b * c + ch) * points + k)] =
            sample(plane, denormalize(p[0], w, s.alignCorners), denormalize(p[1], h, s.alignCorners));
      }
    }
}

bool gridSampleUnstable(const KernelArgs& a) {
  const Settings s = settingsOf(a.attrs);
  if (s.mode != SampleMode::Nearest) return false;
  const Tensor& x = *a.inputs[0];
  const Tensor& g = *a.inputs[1];
  const int64_t h = x.type.shape[2], w = x.type.shape[3];
  for (size_t i = 0; i < g.data.size(); ++i) {
    const double v = denormalize(g.data[i], i % 2 == 0 ? w : h, s.alignCorners);
    if (std::abs(v - std::floor(v) - 0.5) < kStabilityMargin * std::max(1.0, std::abs(v))) return true;
  }
  return false;
}

}  // namespace

const OpSpec& opGridSample() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "GridSample";
    t.sinceVersion = 16;
    t.minInputs = t.maxInputs = 2;
    t.dtypes = kFloatTypes;
    t.minRank = t.maxRank = 4;
    t.attrs = {intAttr("align_corners", 0, 1),
               {"mode", AttrKind::String, 0, 0, 0, 0, {"bilinear", "nearest", "bicubic"}},
               {"padding_mode", AttrKind::String, 0, 0, 0, 0, {"zeros", "border", "reflection"}}};
    t.sampleAttrs = sampleGridAttrs;
    t.nextInput = gridOperand;
    t.infer = inferGridSample;
    t.reference = gridSampleKernel;
    t.unstable = gridSampleUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
