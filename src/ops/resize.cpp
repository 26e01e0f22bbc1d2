// resize.cpp - Resize (opset 13, with opset 18's axes and keep_aspect_ratio_policy and
// antialias, and opset 19's half_pixel_symmetric, which version_forms.cpp refuses before
// those opsets):
// X, roi, scales, sizes; exactly one of scales (float32) and sizes (int64) is given; roi
// only matters for tf_crop_and_resize. Modes nearest, linear, cubic; every
// coordinate_transformation_mode and nearest_mode; cubic_coeff_a, exclude_outside,
// extrapolation_value. `axes` names the dims roi, scales and sizes hold values for (the
// others keep their size). keep_aspect_ratio_policy not_larger / not_smaller (with sizes)
// takes the least / greatest size ratio over those axes as every one's scale, and sizes
// round(scale * length) half up; a product within a hair of a half is refused, as engines
// round it differently. antialias (linear and cubic; onnx.reference refuses it for nearest)
// widens the filter by 1/scale when downscaling and renormalises its weights.
//
// The kernel follows onnx.reference (op_resize.py): it resizes one axis after another in
// double, the source coordinate x_ori of output index x picks taps at base-1..base+2
// (cubic), base..base+1 (linear, nearest) with base = ceil(x_ori) - 1 and ratio
// x_ori - base in (0, 1]; indices clamp to the edge; exclude_outside zeroes the weights of
// taps outside and renormalises. With `scales` the "resized length" in the formulas is
// scale * length (not the integer size), as in the reference; with `sizes` it is the size.
// pytorch_half_pixel on a length-1 result gives x_ori = 0 as the opset-13 text and ONNX
// Runtime say (the reference uses -0.5; only cubic tells them apart and the generator
// avoids that case).
//
// Generation scales only spatial dims (dims >= 2 of a rank >= 3 input; all dims of rank
// 1 and 2), picks scales whose products with the dims are far from integers (or exact),
// and uses exact scales where a mode reads scale * length. Nearest-mode source
// coordinates near a rounding boundary, and tf_crop_and_resize coordinates near the crop
// border, are unstable unless every implementation computes them exactly.
#include <algorithm>
#include <cmath>

#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace shapeops;

namespace {

enum class ResizeMode { Nearest, Linear, Cubic };
enum class Ctm { HalfPixel, PytorchHalfPixel, AlignCorners, Asymmetric, TfHalfPixelForNearest, TfCropAndResize,
                 HalfPixelSymmetric };
enum class Keep { Stretch, NotLarger, NotSmaller };
enum class Rounding { PreferFloor, PreferCeil, Floor, Ceil };

const char* const kModes[] = {"nearest", "linear", "cubic"};
const char* const kCtms[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                              "tf_half_pixel_for_nearest", "tf_crop_and_resize", "half_pixel_symmetric"};
const char* const kKeeps[] = {"stretch", "not_larger", "not_smaller"};
const char* const kRoundings[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};

template <typename E, size_t N>
std::optional<E> parse(const Attributes& attrs, std::string_view name, const char* const (&names)[N]) {
  const std::string v = attrs.getString(name, names[0]);
  for (size_t i = 0; i < N; ++i)
    if (v == names[i]) return static_cast<E>(i);
  return std::nullopt;
}

struct Axis {
  int64_t in = 1, out = 1;
  double scale = 1;     // output / input as the formulas use it
  double length = 1;    // "length_resized": scale * in with scales, the size with sizes
  double roi0 = 0, roi1 = 1;
  bool skip = false;    // identity, left untouched as the reference does
};

struct Config {
  ResizeMode mode = ResizeMode::Nearest;
  Ctm ctm = Ctm::HalfPixel;
  Rounding rounding = Rounding::PreferFloor;
  double cubicA = -0.75, extrapolation = 0;
  bool excludeOutside = false;
  bool antialias = false;
  std::vector<Axis> axes;
};

const Tensor* operand(std::span<const Tensor* const> ops, size_t i) { return i < ops.size() ? ops[i] : nullptr; }

// Validates the attributes and the roi/scales/sizes contents against X's shape.
std::variant<Config, std::string> configOf(const Attributes& attrs, const Shape& x,
                                           std::span<const Tensor* const> ops) {
  for (const char* s : {"mode", "coordinate_transformation_mode", "nearest_mode", "keep_aspect_ratio_policy"})
    if (attrs.hasWrongKind<std::string>(s)) return std::string(s) + " must be a string";
  for (const char* f : {"cubic_coeff_a", "extrapolation_value"})
    if (attrs.hasWrongKind<double>(f)) return std::string(f) + " must be a float";
  if (attrs.hasWrongKind<int64_t>("exclude_outside")) return std::string("exclude_outside must be an int");
  if (attrs.hasWrongKind<int64_t>("antialias")) return std::string("antialias must be an int");
  Config c;
  auto mode = parse<ResizeMode>(attrs, "mode", kModes);
  auto ctm = parse<Ctm>(attrs, "coordinate_transformation_mode", kCtms);
  auto rounding = parse<Rounding>(attrs, "nearest_mode", kRoundings);
  const auto keep = parse<Keep>(attrs, "keep_aspect_ratio_policy", kKeeps);
  if (!mode || !ctm || !rounding || !keep)
    return std::string("unknown mode, coordinate_transformation_mode, nearest_mode or keep_aspect_ratio_policy");
  c.mode = *mode;
  c.ctm = *ctm;
  c.rounding = *rounding;
  c.cubicA = attrs.getFloat("cubic_coeff_a", -0.75);
  c.extrapolation = attrs.getFloat("extrapolation_value", 0.0);
  const int64_t exclude = attrs.getInt("exclude_outside", 0);
  if (exclude != 0 && exclude != 1) return std::string("exclude_outside must be 0 or 1");
  c.excludeOutside = exclude == 1;
  const int64_t antialias = attrs.getInt("antialias", 0);
  if (antialias != 0 && antialias != 1) return std::string("antialias must be 0 or 1");
  c.antialias = antialias == 1 && c.mode != ResizeMode::Nearest;
  if (antialias == 1 && c.mode == ResizeMode::Nearest) return std::string("antialias with nearest is not defined");

  const size_t r = x.size();
  // The dims the operands speak of, and where each dim's values sit in them (-1: none).
  std::vector<int64_t> which(r);
  for (size_t i = 0; i < r; ++i) which[i] = static_cast<int64_t>(i);
  if (attrs.has("axes")) {
    const auto given = normalizeAxes(attrs.getInts("axes"), static_cast<int>(r));
    if (!given || given->empty()) return std::string("axes are out of range, repeat or are empty");
    which.assign(given->begin(), given->end());
  }
  const size_t n = which.size();
  std::vector<int64_t> at(r, -1);
  for (size_t k = 0; k < n; ++k) at[static_cast<size_t>(which[k])] = static_cast<int64_t>(k);
  const Tensor* roi = operand(ops, 1);
  const Tensor* scales = operand(ops, 2);
  const Tensor* sizes = operand(ops, 3);
  // An empty scales or sizes counts as absent (the opset-11 way of leaving one out).
  if (scales && scales->numel() == 0) scales = nullptr;
  if (sizes && sizes->numel() == 0) sizes = nullptr;
  if ((scales != nullptr) == (sizes != nullptr)) return std::string("exactly one of scales and sizes must be given");
  if (roi && roi->numel() == 0) roi = nullptr;
  if (roi && static_cast<size_t>(roi->numel()) != 2 * n) return std::string("roi must hold 2 values per axis");
  if (c.ctm == Ctm::TfCropAndResize && !roi) return std::string("tf_crop_and_resize needs roi");
  const auto* given = scales ? scales : sizes;
  if (static_cast<size_t>(given->numel()) != n) return std::string("scales or sizes must hold one value per axis");
  // keep_aspect_ratio_policy: one scale for every axis, the least or greatest ratio.
  double kept = 0;
  if (sizes && *keep != Keep::Stretch)
    for (size_t k = 0; k < n; ++k) {
      const int64_t in = x[static_cast<size_t>(which[k])];
      if (in <= 0) return std::string("keep_aspect_ratio_policy needs non-empty dims");
      const double ratio = sizes->data[k] / static_cast<double>(in);
      if (k == 0 || (*keep == Keep::NotLarger ? ratio < kept : ratio > kept)) kept = ratio;
    }
  for (size_t i = 0; i < r; ++i) {
    Axis a;
    a.in = x[i];
    a.out = x[i];
    a.length = static_cast<double>(x[i]);
    const auto k = static_cast<size_t>(at[i]);
    if (at[i] < 0) {
      a.skip = true;
      c.axes.push_back(a);
      continue;
    }
    if (sizes && *keep != Keep::Stretch) {
      const double product = kept * static_cast<double>(a.in);
      if (!(kept > 0) || product > static_cast<double>(int64_t{1} << 31)) return std::string("sizes must be positive");
      if (std::abs(product - std::floor(product) - 0.5) < 1e-4) return std::string("a kept-aspect size rounds a half");
      a.scale = kept;
      a.out = static_cast<int64_t>(std::floor(product + 0.5));
      a.length = product;
    } else if (scales) {
      a.scale = scales->data[k];
      if (!(a.scale > 0) || a.scale > 1e6) return std::string("scales must be positive");
      a.out = static_cast<int64_t>(std::floor(static_cast<double>(a.in) * a.scale));
      a.length = a.scale * static_cast<double>(a.in);
    } else {
      a.out = saturatingInt(sizes->data[k]);
      if (a.out < 0 || a.out > (int64_t{1} << 31)) return std::string("sizes must be non-negative");
      a.scale = a.in > 0 ? static_cast<double>(a.out) / static_cast<double>(a.in) : 1.0;
      a.length = static_cast<double>(a.out);
    }
    if (roi) {
      a.roi0 = roi->data[k];
      a.roi1 = roi->data[k + n];
    }
    auto close = [](double u, double v) { return std::abs(u - v) <= 1e-9 * std::max(std::abs(u), std::abs(v)); };
    a.skip = close(a.scale, 1.0) && a.out == a.in && (!roi || (close(a.roi0, 0.0) && close(a.roi1, 1.0)));
    c.axes.push_back(a);
  }
  return c;
}

// Source coordinate of output index x, and whether tf_crop_and_resize extrapolates there.
double sourceCoord(const Config& c, const Axis& a, int64_t xi, bool* outside) {
  const auto x = static_cast<double>(xi);
  const auto in = static_cast<double>(a.in);
  *outside = false;
  switch (c.ctm) {
    case Ctm::HalfPixel: return (x + 0.5) / a.scale - 0.5;
    case Ctm::HalfPixelSymmetric: {  // the centres of input and output line up
      const double offset = in / 2 * (1 - static_cast<double>(a.out) / a.length);
      return offset + (x + 0.5) / a.scale - 0.5;
    }
    case Ctm::PytorchHalfPixel: return a.length > 1 ? (x + 0.5) / a.scale - 0.5 : 0.0;
    case Ctm::AlignCorners: return a.length == 1 ? 0.0 : x * (in - 1) / (a.length - 1);
    case Ctm::Asymmetric: return x / a.scale;
    case Ctm::TfHalfPixelForNearest: return (x + 0.5) / a.scale;
    case Ctm::TfCropAndResize: {
      double v = a.length == 1 ? (a.roi1 - a.roi0) * (in - 1) / 2 : x * (a.roi1 - a.roi0) * (in - 1) / (a.length - 1);
      v += a.roi0 * (in - 1);
      *outside = v < 0 || v > in - 1;
      return v;
    }
  }
  return x;
}

// Taps (first index, weights) of one output position.
struct Taps {
  int64_t first = 0;
  std::vector<double> w;
  bool outside = false;
};

// The cubic convolution kernel at distance x (coefficient A).
double cubicWeight(double x, double A) {
  x = std::abs(x);
  if (x <= 1) return ((A + 2) * x - (A + 3)) * x * x + 1;
  if (x < 2) return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
  return 0;
}

// antialias: when downscaling the filter's support (1 linear, 2 cubic) stretches by 1/scale
// and the weights are renormalised (onnx.reference's formula); taps base+start.. on.
void antialiasTaps(const Config& c, const Axis& a, double base, double ratio, Taps& t) {
  const double s = std::min(a.scale, 1.0);
  const double support = c.mode == ResizeMode::Cubic ? 2 : 1;
  const auto start = static_cast<int64_t>(std::floor(-support / s) + 1);
  t.first = static_cast<int64_t>(base) + start;
  t.w.assign(static_cast<size_t>(2 - 2 * start), 0.0);
  double sum = 0;
  for (size_t j = 0; j < t.w.size(); ++j) {
    const double x = s * (static_cast<double>(start + static_cast<int64_t>(j)) - ratio);
    t.w[j] = c.mode == ResizeMode::Cubic ? cubicWeight(x, c.cubicA) : std::clamp(1 - std::abs(x), 0.0, 1.0);
    sum += t.w[j];
  }
  for (double& w : t.w) w /= sum;
}

// exclude_outside: taps outside the input weigh 0, the rest are renormalised.
void dropOutside(const Axis& a, Taps& t) {
  double sum = 0;
  for (size_t k = 0; k < t.w.size(); ++k) {
    const int64_t i = t.first + static_cast<int64_t>(k);
    if (i < 0 || i >= a.in) t.w[k] = 0;
    sum += t.w[k];
  }
  if (sum == 0) sum = 1;
  for (double& w : t.w) w /= sum;
}

Taps tapsOf(const Config& c, const Axis& a, int64_t x) {
  Taps t;
  const double src = sourceCoord(c, a, x, &t.outside);
  const double base = std::ceil(src) - 1;
  const double ratio = src - base;  // in (0, 1]; 1 exactly at integers
  t.first = static_cast<int64_t>(base);
  if (c.antialias) {
    antialiasTaps(c, a, base, ratio, t);
    if (c.excludeOutside) dropOutside(a, t);
    return t;
  }
  switch (c.mode) {
    case ResizeMode::Nearest: {
      t.w.assign(2, 0.0);
      bool up = true;  // an integer coordinate (ratio 1) takes itself
      if (ratio < 1) {
        switch (c.rounding) {
          case Rounding::PreferFloor: up = ratio > 0.5; break;
          case Rounding::PreferCeil: up = ratio >= 0.5; break;
          case Rounding::Floor: up = false; break;
          case Rounding::Ceil: up = true; break;
        }
      }
      t.w[0] = up ? 0 : 1;
      t.w[1] = up ? 1 : 0;
      break;
    }
    case ResizeMode::Linear:
      t.w = {1 - ratio, ratio};
      break;
    case ResizeMode::Cubic: {
      const double A = c.cubicA, r = ratio, s = 1 - ratio;
      t.w.assign(4, 0.0);
      t.first -= 1;
      t.w[0] = ((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A;
      t.w[1] = ((A + 2) * r - (A + 3)) * r * r + 1;
      t.w[2] = ((A + 2) * s - (A + 3)) * s * s + 1;
      t.w[3] = ((A * (s + 1) - 5 * A) * (s + 1) + 8 * A) * (s + 1) - 4 * A;
      break;
    }
  }
  if (c.excludeOutside) dropOutside(a, t);
  return t;
}

InferResult inferResize(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {"mode", "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
                                             "exclude_outside", "extrapolation_value", "antialias", "axes",
                                             "keep_aspect_ratio_policy"});
      !e.empty())
    return InferResult::fail(e);
  const TensorType& x = *args.inputs[0];
  const char* names[] = {"X", "roi", "scales", "sizes"};
  for (size_t i = 1; i < args.inputs.size(); ++i) {
    const TensorType* t = args.inputs[i];
    if (!t) continue;
    const bool typeOk = i == 1 ? isFloat(t->dtype) : i == 2 ? t->dtype == DType::Float32 : t->dtype == DType::Int64;
    if (!typeOk) return InferResult::fail(std::string(names[i]) + " has the wrong dtype");
    if (t->rank() != 1) return InferResult::fail(std::string(names[i]) + " must be 1-D");
  }
  auto c = configOf(args.attrs, x.shape, args.constants);
  if (auto* why = std::get_if<std::string>(&c)) return InferResult::fail(*why);
  Shape out;
  for (const Axis& a : std::get<Config>(c).axes) out.push_back(a.out);
  return {{TensorType{x.dtype, out}}, {}};
}

void resizeKernel(KernelArgs& args) {
  const Tensor& x = *args.inputs[0];
  Tensor& out = args.outputs[0];
  const Config c = std::get<Config>(configOf(args.attrs, x.type.shape, args.inputs));
  std::vector<double> cur = x.data, next;
  Shape shape = x.type.shape;
  for (size_t ax = 0; ax < c.axes.size(); ++ax) {
    const Axis& a = c.axes[ax];
    if (a.skip) continue;
    const int64_t outer = product(shape, 0, ax), inner = product(shape, ax + 1, shape.size());
    next.assign(static_cast<size_t>(outer * a.out * inner), 0.0);
    for (int64_t j = 0; j < a.out; ++j) {
      const Taps t = tapsOf(c, a, j);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          double v = c.extrapolation;
          if (!t.outside) {
            v = 0;
            for (size_t k = 0; k < t.w.size(); ++k) {
              const int64_t src = std::clamp<int64_t>(t.first + static_cast<int64_t>(k), 0, a.in - 1);
              v += t.w[k] * cur[static_cast<size_t>((o * a.in + src) * inner + i)];
            }
          }
          next[static_cast<size_t>((o * a.out + j) * inner + i)] = v;
        }
    }
    cur.swap(next);
    shape[ax] = a.out;
  }
  // Integer results round half to even and saturate, as the reference's saturate_cast.
  const DType d = out.type.dtype;
  if (isInteger(d)) {
    const double lo = d == DType::UInt8 ? 0 : d == DType::Int8 ? -128 : d == DType::Int32 ? -2147483648.0 : -9.2e18;
    const double hi = d == DType::UInt8 ? 255 : d == DType::Int8 ? 127 : d == DType::Int32 ? 2147483647.0 : 9.2e18;
    for (double& v : cur) v = std::clamp(std::nearbyint(v), lo, hi);
  }
  out.data = std::move(cur);
}

// --- generation -------------------------------------------------------------------

bool isPowerOfTwo(double v) {
  int e = 0;
  return v > 0 && std::frexp(v, &e) == 0.5;
}
// Exactly k / 2^16 for a small k: float arithmetic on such values stays exact.
bool dyadic(double v) {
  const double t = v * 65536.0;
  return std::abs(v) < 1e4 && t == std::floor(t);
}

// Generation resizes spatial dims only, which is what most backends support.
bool scaledDim(size_t i, size_t rank) { return rank <= 2 || i >= 2; }


void resizeAttrs(OpDraft& d) {
  Rng& rng = *d.rng;
  ResizeMode mode = ResizeMode::Nearest;
  const double u = rng.uniformReal(0, 1);
  // Integer data is only resized by nearest: interpolated integers round differently.
  if (isFloat(d.first().dtype) && u >= 0.4) mode = u < 0.7 ? ResizeMode::Linear : ResizeMode::Cubic;
  if (mode != ResizeMode::Nearest || rng.bernoulli(0.6)) d.attrs.setString("mode", kModes[static_cast<int>(mode)]);
  std::vector<Ctm> ctms{Ctm::HalfPixel, Ctm::PytorchHalfPixel, Ctm::AlignCorners, Ctm::Asymmetric, Ctm::TfCropAndResize};
  if (mode == ResizeMode::Nearest) ctms.push_back(Ctm::TfHalfPixelForNearest);
  Ctm ctm = rng.bernoulli(0.2) ? Ctm::HalfPixel : rng.pick(ctms);
  if (ctm == Ctm::HalfPixel && rng.bernoulli(0.1)) ctm = Ctm::HalfPixelSymmetric;  // opset 19 on
  if (ctm != Ctm::HalfPixel || rng.bernoulli(0.5))
    d.attrs.setString("coordinate_transformation_mode", kCtms[static_cast<int>(ctm)]);
  if (mode == ResizeMode::Nearest && rng.bernoulli(0.7)) d.attrs.setString("nearest_mode", kRoundings[rng.uniformInt(0, 3)]);
  if (mode == ResizeMode::Cubic) {
    const double a = rng.uniformReal(0, 1);
    if (a < 0.25) d.attrs.setFloat("cubic_coeff_a", -0.5);
    else if (a < 0.4) d.attrs.setFloat("cubic_coeff_a", -0.75);
    else if (a < 0.6) d.attrs.setFloat("cubic_coeff_a", rng.uniformReal(-1.0, -0.25));
  }
  // exclude_outside changes nothing for linear (edge clamping gives the same) and would
  // zero every weight of an outside nearest tap, so it goes with cubic.
  if (mode == ResizeMode::Cubic && rng.bernoulli(0.5)) d.attrs.setInt("exclude_outside", rng.bernoulli(0.7) ? 1 : 0);
  // Integer results: an integral value in range, as implementations cast it differently.
  if (ctm == Ctm::TfCropAndResize && rng.bernoulli(0.5)) {
    const ValueRange r = defaultRange(d.first().dtype);
    d.attrs.setFloat("extrapolation_value", rng.bernoulli(0.3)              ? 0.0
                                            : isFloat(d.first().dtype) ? rng.uniformReal(r.lo, r.hi)
                                                                       : static_cast<double>(rng.uniformInt(
                                                                             static_cast<int64_t>(r.lo), static_cast<int64_t>(r.hi))));
  }
}

// Opset 18's attributes, drawn now and then (version_forms.cpp refuses them before 18):
// a few of the resized dims as `axes`, and with sizes a kept aspect ratio.
void resizeAttrs18(OpDraft& d) {
  Rng& rng = *d.rng;
  const auto r = static_cast<size_t>(d.first().rank());
  if (rng.bernoulli(0.15)) {
    std::vector<int64_t> axes;
    for (size_t i = 0; i < r; ++i)
      if (scaledDim(i, r) && rng.bernoulli(0.7)) axes.push_back(static_cast<int64_t>(i) - (rng.bernoulli(0.3) ? static_cast<int64_t>(r) : 0));
    if (!axes.empty()) {
      for (size_t i = axes.size(); i > 1; --i) std::swap(axes[i - 1], axes[static_cast<size_t>(rng.uniformInt(0, static_cast<int64_t>(i) - 1))]);
      d.attrs.setInts("axes", axes);
    }
  }
  if (d.attrs.getString("mode", "nearest") != "nearest" && rng.bernoulli(0.15))
    d.attrs.setInt("antialias", rng.bernoulli(0.8) ? 1 : 0);
  if (d.arity == 4 && rng.bernoulli(0.1)) {
    d.attrs.setString("keep_aspect_ratio_policy", kKeeps[rng.uniformInt(0, 2)]);
    // The kept scale applies to every named dim: name the spatial ones only.
    std::vector<int64_t> axes = d.attrs.getInts("axes");
    if (axes.empty())
      for (size_t i = r >= 3 ? 2 : 0; i < r; ++i) axes.push_back(static_cast<int64_t>(i));
    // Spelled non-negative: ONNX Runtime 1.31 leaves the input unresized when a kept aspect
    // ratio comes with negative axes (a known deviation, kept out of every draw).
    for (int64_t& a : axes)
      if (a < 0) a += static_cast<int64_t>(r);
    if (r >= 3 || d.attrs.has("axes")) d.attrs.setInts("axes", axes);
  }
}

std::optional<float> exactScale(int64_t out, int64_t in) {
  const auto s = static_cast<float>(static_cast<double>(out) / static_cast<double>(in));
  if (static_cast<double>(s) * static_cast<double>(in) != static_cast<double>(out)) return std::nullopt;
  if (s * static_cast<float>(in) != static_cast<float>(out)) return std::nullopt;
  return s;
}

// A scale giving `out` (which it may change) for `in`: mostly exact (scale * in == out),
// as the opset-13 text defines scale as the length ratio while the reference uses the
// given value; sometimes inexact, with the product far from integers so float32 and
// double agree on the floor. Never inexact for out == in: ONNX Runtime then copies.
float pickScale(Rng& rng, int64_t in, int64_t& out, int64_t least, int64_t most, bool needExact) {
  if (auto s = exactScale(out, in); s && (needExact || out == in || rng.bernoulli(0.6))) return *s;
  if (!needExact && out != in) {
    for (int attempt = 0; attempt < 8; ++attempt) {
      const auto s = static_cast<float>((static_cast<double>(out) + rng.uniformReal(0.05, 0.95)) / static_cast<double>(in));
      const double p = static_cast<double>(s) * static_cast<double>(in);
      const float pf = s * static_cast<float>(in);
      const auto o = static_cast<double>(out);
      if (std::floor(p) == o && std::floor(pf) == static_cast<float>(out) && p - o > 0.01 && p - o < 0.99) return s;
    }
  }
  std::vector<int64_t> exact;
  for (int64_t o = least; o <= most; ++o)
    if (exactScale(o, in)) exact.push_back(o);
  out = exact.empty() ? in : rng.pick(exact);
  return exact.empty() ? 1.0f : *exactScale(out, in);
}

// roi, scales and sizes depend on each other but nextInput sees no earlier contents, so
// every call draws the whole plan from a copy of the generator's Rng (instantiateOp draws
// nothing between constant or omitted operands, see slice.cpp); the last call advances it.
struct ResizePlan {
  bool useScales = true;
  Tensor roi, scales;
  std::vector<int64_t> sizes;
};

ResizePlan drawPlan(Rng& rng, const OpDraft& d) {
  const Ctm ctm = parse<Ctm>(d.attrs, "coordinate_transformation_mode", kCtms).value_or(Ctm::HalfPixel);
  const ResizeMode mode = parse<ResizeMode>(d.attrs, "mode", kModes).value_or(ResizeMode::Nearest);
  const Shape& x = d.first().shape;
  const size_t r = x.size();
  ResizePlan p;
  p.useScales = d.arity == 3 || rng.bernoulli(0.5);
  if (d.attrs.getString("keep_aspect_ratio_policy", "stretch") != "stretch") p.useScales = false;
  // With axes, the operands hold values for those dims only, in their order.
  std::vector<size_t> which;
  for (int64_t a : d.attrs.getInts("axes", {})) which.push_back(static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(r) : a));
  // These modes read scale * length, so the product must be the integer size exactly.
  const bool needExact = ctm == Ctm::AlignCorners || ctm == Ctm::PytorchHalfPixel || ctm == Ctm::TfCropAndResize;
  p.scales = Tensor(TensorType{DType::Float32, {static_cast<int64_t>(r)}});
  p.roi = Tensor(TensorType{rng.bernoulli(0.8) ? DType::Float32 : DType::Float64, {static_cast<int64_t>(2 * r)}});
  p.sizes.assign(x.begin(), x.end());
  for (size_t k = 0; k < r; ++k) {
    const int64_t in = x[k];
    p.scales.data[k] = 1.0;
    p.roi.data[k + r] = 1.0;
    if (!scaledDim(k, r)) continue;
    if (!which.empty() && std::find(which.begin(), which.end(), k) == which.end()) continue;
    const int64_t most = std::max<int64_t>(1, std::min(maxResultDim(*d.limits), 3 * in));
    // A length-1 result under pytorch_half_pixel is read differently by the reference
    // and ONNX Runtime for cubic.
    const int64_t least = ctm == Ctm::PytorchHalfPixel && mode == ResizeMode::Cubic && in > 1 ? 2 : 1;
    int64_t out = rng.bernoulli(0.2) ? in : rng.uniformInt(1, most);
    out = std::max(out, least);
    const float scale = pickScale(rng, in, out, least, most, needExact);
    if (p.useScales) p.scales.data[k] = scale;
    p.sizes[k] = out;
    // ONNX Runtime ignores roi on an axis it does not resize: crop those rarely.
    if (out == in && rng.bernoulli(0.85)) continue;
    double s = 0, e = 1;
    if (!rng.bernoulli(0.3)) s = rng.uniformReal(-0.3, 0.7);
    if (!rng.bernoulli(0.3)) e = rng.uniformReal(s + 0.05, 1.3);
    if (rng.bernoulli(0.05)) std::swap(s, e);  // a flipped crop
    p.roi.data[k] = roundTo(p.roi.type.dtype, s);
    p.roi.data[k + r] = roundTo(p.roi.type.dtype, e);
  }
  // A kept aspect ratio scales every named dim by one ratio; a product on a half rounds as
  // each SUT pleases (resizeConfig refuses it), so such a draw keeps the input's size.
  if (const std::string keep = d.attrs.getString("keep_aspect_ratio_policy", "stretch"); keep != "stretch") {
    std::vector<size_t> named = which;
    for (size_t k = 0; named.empty() && k < r; ++k) named.push_back(k);
    double kept = 0;
    for (size_t k : named) {
      const double ratio = static_cast<double>(p.sizes[k]) / static_cast<double>(x[k]);
      if (kept == 0 || (keep == "not_larger" ? ratio < kept : ratio > kept)) kept = ratio;
    }
    for (size_t k : named) {
      const double product = kept * static_cast<double>(x[k]);
      if (std::abs(product - std::floor(product) - 0.5) < 1e-4) {
        for (size_t j : named) p.sizes[j] = x[j];
        break;
      }
    }
  }
  if (!which.empty()) {
    const auto n = static_cast<int64_t>(which.size());
    Tensor scales(TensorType{DType::Float32, {n}}), roi(TensorType{p.roi.type.dtype, {2 * n}});
    std::vector<int64_t> sizes;
    for (size_t k = 0; k < which.size(); ++k) {
      scales.data[k] = p.scales.data[which[k]];
      roi.data[k] = p.roi.data[which[k]];
      roi.data[k + which.size()] = p.roi.data[which[k] + r];
      sizes.push_back(p.sizes[which[k]]);
    }
    p.scales = std::move(scales);
    p.roi = std::move(roi);
    p.sizes = std::move(sizes);
  }
  return p;
}

InputPattern resizeNext(const OpDraft& d) {
  const size_t i = d.inputTypes.size();
  Rng local = *d.rng;
  const ResizePlan p = drawPlan(local, d);
  if (static_cast<int>(i) == d.arity - 1) *d.rng = local;
  const Ctm ctm = parse<Ctm>(d.attrs, "coordinate_transformation_mode", kCtms).value_or(Ctm::HalfPixel);
  switch (i) {
    case 1: return ctm == Ctm::TfCropAndResize ? InputPattern::constantTensor(p.roi) : InputPattern::omitted();
    case 2: return p.useScales ? InputPattern::constantTensor(p.scales) : InputPattern::omitted();
    default: return p.useScales ? InputPattern::omitted() : InputPattern::constantTensor(int64Tensor(p.sizes));
  }
}

// Nearest-mode coordinates near a rounding boundary and tf_crop_and_resize coordinates
// near the crop border flip with float32 rounding, unless every implementation computes
// them exactly: dyadic slopes and offsets (power-of-two scales) keep float math exact.
bool resizeUnstable(const KernelArgs& args) {
  const Config c = std::get<Config>(configOf(args.attrs, args.inputs[0]->type.shape, args.inputs));
  if (c.mode != ResizeMode::Nearest && c.ctm != Ctm::TfCropAndResize) return false;
  for (const Axis& a : c.axes) {
    if (a.skip) continue;
    const double in1 = static_cast<double>(a.in - 1);
    bool exactMap = false;
    switch (c.ctm) {
      case Ctm::HalfPixel:
      case Ctm::Asymmetric:
      case Ctm::TfHalfPixelForNearest: exactMap = isPowerOfTwo(a.scale); break;
      case Ctm::HalfPixelSymmetric: exactMap = isPowerOfTwo(a.scale) && static_cast<double>(a.out) == a.length; break;
      case Ctm::PytorchHalfPixel: exactMap = a.length <= 1 || isPowerOfTwo(a.scale); break;
      case Ctm::AlignCorners: exactMap = a.length == 1 || dyadic(in1 / (a.length - 1)); break;
      case Ctm::TfCropAndResize:
        exactMap = dyadic(a.roi0) && dyadic(a.roi1) &&
                   dyadic(a.length == 1 ? (a.roi1 - a.roi0) * in1 / 2 : (a.roi1 - a.roi0) * in1 / (a.length - 1));
        break;
    }
    const bool zeroStart = c.ctm == Ctm::Asymmetric || c.ctm == Ctm::AlignCorners ||
                           (c.ctm == Ctm::TfCropAndResize && a.roi0 == 0);
    for (int64_t x = 0; x < a.out; ++x) {
      bool outside = false;
      const double src = sourceCoord(c, a, x, &outside);
      const bool exact = exactMap || (x == 0 && zeroStart);
      if (c.ctm == Ctm::TfCropAndResize) {
        const double edge = std::min(std::abs(src), std::abs(src - in1));
        if (edge < 1e-4 && !(exact && edge == 0)) return true;
        if (outside) continue;
      }
      if (c.mode != ResizeMode::Nearest) continue;
      const bool atIntegers = c.rounding == Rounding::Floor || c.rounding == Rounding::Ceil;
      const double dist = distanceToInteger(atIntegers ? src : src - 0.5);
      if (dist < 1e-4 && !(exact && dist == 0)) return true;
    }
  }
  return false;
}

}  // namespace

const OpSpec& opResize() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Resize";
    s.sinceVersion = 13;
    // X plus roi and scales at least: one of scales and sizes is always needed.
    s.minInputs = 3;
    s.maxInputs = 4;
    s.dtypes = kNumericTypes;  // bool is in the schema but means nothing to interpolate
    s.minRank = 1;
    s.constantInputs = 0b1110;
    s.attrs = {stringAttr("mode", {"nearest", "linear", "cubic"}),
               stringAttr("coordinate_transformation_mode",
                          {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                           "tf_half_pixel_for_nearest", "tf_crop_and_resize", "half_pixel_symmetric"}),
               stringAttr("nearest_mode", {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}),
               floatAttr("cubic_coeff_a", -1.0, -0.25), intAttr("exclude_outside", 0, 1),
               floatAttr("extrapolation_value", -2.0, 2.0),
               stringAttr("keep_aspect_ratio_policy", {"stretch", "not_larger", "not_smaller"}), intAttr("antialias", 0, 1)};
    s.sampleAttrs = [](OpDraft& d) {
      resizeAttrs(d);
      resizeAttrs18(d);
    };
    s.nextInput = resizeNext;
    s.infer = inferResize;
    s.reference = resizeKernel;
    s.unstable = resizeUnstable;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
