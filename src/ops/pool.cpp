// pool.cpp - MaxPool (opset 12 schema), AveragePool (opset 11 schema with opset 19's
// dilations) and LpPool (opset 11 schema with opset 18's ceil_mode and dilations): what
// later opsets added is dropped at its default or refused before them (version_forms.cpp).
// Over N x C x D1..Dn inputs: kernel_shape, strides, dilations, explicit or automatic
// padding, ceil_mode, MaxPool's storage_order, AveragePool's count_include_pad (a dilated
// window counts the taps that fall inside the padded input, as onnx.reference does), LpPool's
// p (default 2; padding adds nothing to the sum of |x|^p).
//
// MaxPool's optional Indices result (float inputs only) holds the flat position of each
// window's max in X, N and C included, row-major within a plane (storage_order 1: column-
// major); ties go to the first in row-major window order, as ONNX Runtime and the ONNX
// reference break them, and a float near-tie in any window is unstable (rounding upstream
// could move the max). Integer MaxPool keeps Y only: its exact ties are common and ONNX
// says nothing about them. Explicit pads must be smaller than the kernel (ONNX Runtime
// enforces it, and a window made of padding only has no max or average).
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

constexpr int64_t kMaxKernel = 4;

enum class Pool { Max, Average, Lp };

// Reads and checks a pooling node's geometry (the attribute set of the given kind).
bool poolWindow(const Attributes& attrs, const Shape& xs, Pool kind, Window& w, std::string& err) {
  if (kind == Pool::Max)
    err = unknownAttr(attrs, {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  else if (kind == Pool::Average)
    err = unknownAttr(attrs, {"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides"});
  else
    err = unknownAttr(attrs, {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "p", "pads", "strides"});
  if (!err.empty()) return false;
  const size_t n = xs.size() - 2;
  if (!attrs.has("kernel_shape")) {
    err = "kernel_shape is required";
    return false;
  }
  std::vector<int64_t> kernel;
  if (!readInts(attrs, "kernel_shape", n, 1, 1, kernel, err)) return false;
  if (!readWindow(attrs, spatialDims(xs), kernel, true, w, err)) return false;
  for (size_t i = 0; i < n; ++i)
    if (w.padBegin[i] >= kernel[i] || w.padEnd[i] >= kernel[i]) {
      err = "pads must be smaller than the kernel";
      return false;
    }
  int64_t flag = 0;
  if (!readInt(attrs, "ceil_mode", 0, 1, 0, flag, err)) return false;
  w.ceilMode = flag == 1;
  if (kind == Pool::Max && !readInt(attrs, "storage_order", 0, 1, 0, flag, err)) return false;
  if (kind == Pool::Average && !readInt(attrs, "count_include_pad", 0, 1, 0, flag, err)) return false;
  if (kind == Pool::Lp && !readInt(attrs, "p", 1, INT64_MAX, 2, flag, err)) return false;
  if (!resolveForward(w, err)) return false;
  // ceil_mode where ONNX's inference (no last-window rule) gives another size than the
  // runtime rule: the checker would reject the model, so it is not modelled.
  for (size_t i = 0; w.ceilMode && i < n; ++i)
    if (onnxForwardSize(w, i) != w.out[i]) {
      err = "ceil_mode where ONNX's inference and the last-window rule disagree";
      return false;
    }
  return true;
}

template <Pool Kind>
InferResult inferPool(const InferArgs& a) {
  const TensorType& x = *a.inputs[0];
  Window w;
  std::string err;
  if (!poolWindow(a.attrs, x.shape, Kind, w, err)) return InferResult::fail(err);
  Shape out{x.shape[0], x.shape[1]};
  out.insert(out.end(), w.out.begin(), w.out.end());
  if (Kind == Pool::Max && isFloat(x.dtype)) return {{TensorType{x.dtype, out}, TensorType{DType::Int64, out}}, {}};
  return {{TensorType{x.dtype, out}}, {}};
}

// A plane offset written column-major (storage_order 1): the first spatial axis fastest.
int64_t columnMajor(int64_t rowMajor, const Shape& dims) {
  std::vector<int64_t> coord(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    coord[i] = rowMajor % dims[i];
    rowMajor /= dims[i];
  }
  int64_t out = 0, stride = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    out += coord[i] * stride;
    stride *= dims[i];
  }
  return out;
}

template <Pool Kind>
void samplePoolAttrs(OpDraft& d) {
  constexpr bool Max = Kind == Pool::Max;
  Rng& rng = *d.rng;
  const Shape& xs = d.first().shape;
  const size_t n = xs.size() - 2;
  Window w;
  w.autoPad = sampleAutoPad(rng, d.attrs);
  w.in = spatialDims(xs);
  w.kernel.assign(n, 1);
  w.strides.assign(n, 1);
  w.dilations.assign(n, 1);
  w.padBegin.assign(n, 0);
  w.padEnd.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = w.in[i];
    if (rng.bernoulli(0.25)) w.dilations[i] = rng.uniformInt(2, 3);
    if (rng.bernoulli(0.4)) w.strides[i] = rng.uniformInt(2, 3);
    const int64_t dil = w.dilations[i];
    // Pads below the kernel give (k-1)*(dil-2) <= in-1 as the largest kernel that fits
    // (padded); VALID needs the kernel extent inside the input.
    int64_t kmax = kMaxKernel;
    if (w.autoPad == AutoPad::Valid) kmax = std::min(kmax, (in - 1) / dil + 1);
    if (w.autoPad == AutoPad::NotSet && dil > 2) kmax = std::min(kmax, (in - 1) / (dil - 2) + 1);
    w.kernel[i] = rng.uniformInt(1, kmax);
    const int64_t k = w.kernel[i], ek = w.extent(i);
    if (w.autoPad == AutoPad::NotSet && (ek > in || rng.bernoulli(0.6))) {
      w.padBegin[i] = rng.uniformInt(std::max<int64_t>(0, ek - in - (k - 1)), k - 1);
      w.padEnd[i] = rng.uniformInt(std::max<int64_t>(0, ek - in - w.padBegin[i]), k - 1);
    }
  }
  std::string err;
  resolveForward(w, err);
  // A dilated window may fall entirely into padding or between input elements; such a
  // dim goes back to dilation 1, where every window meets the input (pads < kernel).
  for (size_t i = 0; i < n; ++i)
    if (!windowsNonEmpty(w, i)) w.dilations[i] = 1;
  resolveForward(w, err);  // SAME pads follow the dilation
  // With SAME, the implicit total padding (out-1)*s + extent - in is negative when the
  // stride outruns the kernel; ONNX does not say to clamp it and ONNX Runtime rejects it,
  // so such dims take stride 1, which always leaves a padding >= 0.
  if (w.autoPad == AutoPad::SameUpper || w.autoPad == AutoPad::SameLower) {
    for (size_t i = 0; i < n; ++i) {
      const int64_t s = w.strides[i], target = (w.in[i] + s - 1) / s;
      if ((target - 1) * s + w.extent(i) - w.in[i] < 0) w.strides[i] = 1;
    }
    resolveForward(w, err);
  }
  // ceil_mode only where ONNX shape inference and the runtime rule agree on the size, and
  // never with auto_pad: for VALID the spec's formula ignores ceil_mode while ONNX Runtime
  // applies it (width 1 against 2 for a 3-wide window, stride 3, on 5), and auto_pad is deprecated.
  if (rng.bernoulli(0.4) && w.autoPad == AutoPad::NotSet) {
    Window c = w;
    c.ceilMode = true;
    bool agree = resolveForward(c, err);
    for (size_t i = 0; agree && i < n; ++i) agree = onnxForwardSize(c, i) == c.out[i] && windowsNonEmpty(c, i);
    if (agree) w.ceilMode = true;
  }
  d.attrs.setInts("kernel_shape", w.kernel);
  writeInts(d.attrs, "strides", w.strides, 1, rng);
  writeInts(d.attrs, "dilations", w.dilations, 1, rng);
  if (w.autoPad == AutoPad::NotSet) {
    std::vector<int64_t> pads = w.padBegin;
    pads.insert(pads.end(), w.padEnd.begin(), w.padEnd.end());
    writeInts(d.attrs, "pads", pads, 0, rng);
  }
  if (w.ceilMode || rng.bernoulli(0.3)) d.attrs.setInt("ceil_mode", w.ceilMode ? 1 : 0);
  if (Max && rng.bernoulli(0.3)) d.attrs.setInt("storage_order", rng.uniformInt(0, 1));
  if (Kind == Pool::Average && rng.bernoulli(0.7)) d.attrs.setInt("count_include_pad", rng.uniformInt(0, 1));
  if (Kind == Pool::Lp && rng.bernoulli(0.7)) d.attrs.setInt("p", rng.uniformInt(1, 3));
}

template <Pool Kind>
void poolKernel(KernelArgs& a) {
  constexpr bool Max = Kind == Pool::Max;
  const Tensor& x = *a.inputs[0];
  Tensor& y = a.outputs[0];
  Window w;
  std::string err;
  poolWindow(a.attrs, x.type.shape, Kind, w, err);
  const bool includePad = a.attrs.getInt("count_include_pad", 0) == 1;
  const bool columnOrder = a.attrs.getInt("storage_order", 0) == 1;
  const auto lpOrder = static_cast<double>(a.attrs.getInt("p", 2));
  const int64_t planes = x.type.shape[0] * x.type.shape[1];
  const int64_t inSize = product(w.in), outSize = product(w.out);
  const double lowest = isFloat(x.type.dtype) ? -std::numeric_limits<double>::infinity()
                                              : (x.type.dtype == DType::UInt8 ? 0.0 : -128.0);
  std::vector<int64_t> o(w.rank(), 0), scratch;
  std::vector<std::pair<int64_t, int64_t>> taps;
  if (y.numel() == 0) return;  // empty tensors (imported models)
  int64_t of = 0;
  do {
    windowTaps(w, o, scratch, taps);
    // count_include_pad divides by the window's taps inside the padded input.
    double padded = 1;
    for (size_t i = 0; i < w.rank(); ++i) {
      const int64_t room = w.in[i] + w.padBegin[i] + w.padEnd[i] - o[i] * w.strides[i];
      padded *= static_cast<double>(std::min(w.kernel[i], (room + w.dilations[i] - 1) / w.dilations[i]));
    }
    for (int64_t p = 0; p < planes; ++p) {
      const double* plane = x.data.data() + p * inSize;
      double acc = Max ? lowest : 0.0;
      int64_t at = taps.empty() ? 0 : taps.front().second;  // the first max, for Indices
      for (const auto& tap : taps) {
        const double v = plane[tap.second];
        if (Max && v > acc) at = tap.second;
        acc = Max ? std::max(acc, v) : acc + (Kind == Pool::Lp ? std::pow(std::abs(v), lpOrder) : v);
      }
      if (Max && a.outputs.size() > 1)
        a.outputs[1].data[static_cast<size_t>(p * outSize + of)] =
            static_cast<double>(p * inSize + (columnOrder ? columnMajor(at, w.in) : at));
      if (Kind == Pool::Average) acc /= includePad ? padded : static_cast<double>(taps.size());
      if (Kind == Pool::Lp) acc = std::pow(acc, 1.0 / lpOrder);
      y.data[static_cast<size_t>(p * outSize + of)] = acc;
    }
    ++of;
  } while (nextIndex(o, w.out));
}

// A float window whose two largest values are within the margin: Indices could point at
// either.
bool maxPoolUnstable(const KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  if (!isFloat(x.type.dtype)) return false;
  Window w;
  std::string err;
  poolWindow(a.attrs, x.type.shape, Pool::Max, w, err);
  const int64_t planes = x.type.shape[0] * x.type.shape[1], inSize = product(w.in);
  std::vector<int64_t> o(w.rank(), 0), scratch;
  std::vector<std::pair<int64_t, int64_t>> taps;
  if (a.outputs[0].numel() == 0) return false;
  do {
    windowTaps(w, o, scratch, taps);
    for (int64_t p = 0; p < planes; ++p) {
      const double* plane = x.data.data() + p * inSize;
      double best = -std::numeric_limits<double>::infinity(), second = best;
      for (const auto& tap : taps) {
        const double v = plane[tap.second];
        if (v > best) {
          second = best;
          best = v;
        } else if (v > second) {
          second = v;
        }
      }
      if (best - second < kStabilityMargin * std::max(1.0, std::abs(best))) return true;
    }
  } while (nextIndex(o, w.out));
  return false;
}

template <Pool Kind>
OpSpec poolSpec(std::string_view name, int version, std::vector<DType> dtypes) {
  OpSpec s;
  s.name = name;
  s.sinceVersion = version;
  s.dtypes = std::move(dtypes);
  s.minRank = 3;
  s.maxRank = 5;
  s.attrs = {autoPadDomain(), intsAttr("kernel_shape", 1, 5, 1, 3), intsAttr("pads", 0, 3, 2, 6),
             intsAttr("strides", 1, 3, 1, 3)};
  s.attrs.push_back(intAttr("ceil_mode", 0, 1));
  s.attrs.push_back(intsAttr("dilations", 1, 3, 1, 3));
  if (Kind == Pool::Max) s.attrs.push_back(intAttr("storage_order", 0, 1));
  if (Kind == Pool::Average) s.attrs.push_back(intAttr("count_include_pad", 0, 1));
  if (Kind == Pool::Lp) s.attrs.push_back(intAttr("p", 1, 3));
  s.sampleAttrs = samplePoolAttrs<Kind>;
  s.infer = inferPool<Kind>;
  s.reference = poolKernel<Kind>;
  return s;
}

}  // namespace

const OpSpec& opMaxPool() {
  static const OpSpec s = [] {
    OpSpec t = poolSpec<Pool::Max>("MaxPool", 12, {DType::Float32, DType::Float64, DType::Int8, DType::UInt8});
    t.optionalOutputs = 0b10;
    t.unstable = maxPoolUnstable;
    return t;
  }();
  return s;
}

const OpSpec& opAveragePool() {
  static const OpSpec s = poolSpec<Pool::Average>("AveragePool", 11, kFloatTypes);
  return s;
}

const OpSpec& opLpPool() {
  static const OpSpec s = poolSpec<Pool::Lp>("LpPool", 11, kFloatTypes);
  return s;
}

}  // namespace nnfuzz
