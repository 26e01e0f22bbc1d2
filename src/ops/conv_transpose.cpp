// conv_transpose.cpp - ConvTranspose (opset 11 schema): the transposed convolution of X
// (N x C x D1..Dn) with W (C x M/group x k1..kn): groups, strides, dilations, pads or
// auto_pad, output_padding, output_shape (which sets the pads), optional bias B (M).
//
// Per dim, with extent e = (k - 1) * dilation + 1, the full output is
// s * (in - 1) + output_padding + e; pads trim it. Given output_shape (or SAME_* with
// output in * s), the total trim is split as the ONNX spec says: SAME_UPPER puts the
// smaller half at the beginning, otherwise the larger half goes there.
#include <algorithm>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

constexpr int64_t kMaxKernel = 3;

struct Transposed {
  Window w;
  std::vector<int64_t> outputPadding;
  std::vector<int64_t> outputShape;  // empty when not given
};

// Pads and output size of dim i; false when the output would be empty or the pads negative.
bool resolveDim(Transposed& t, size_t i, std::string& err) {
  Window& w = t.w;
  const int64_t full = w.strides[i] * (w.in[i] - 1) + t.outputPadding[i] + w.extent(i);
  if (!t.outputShape.empty() || w.autoPad == AutoPad::SameUpper || w.autoPad == AutoPad::SameLower) {
    const int64_t out = t.outputShape.empty() ? w.in[i] * w.strides[i] : t.outputShape[i];
    // The spec's pads "can take any value greater than or equal to 0", so an output beyond
    // the full output (a negative total) is invalid: ONNX Runtime refuses it ("Explicit
    // output_shape is inconsistent with input spatial dimensions"), and so does onnx's
    // ReferenceEvaluator (1.22).
    const int64_t total = full - out;
    if (total < 0) {
      err = "output_shape (or SAME's in * stride) beyond the full output " + std::to_string(full) +
            " would need negative pads";
      return false;
    }
    const int64_t half = total / 2;
    w.padBegin[i] = w.autoPad == AutoPad::SameUpper ? half : total - half;
    w.padEnd[i] = total - w.padBegin[i];
  } else if (w.autoPad == AutoPad::Valid) {
    w.padBegin[i] = w.padEnd[i] = 0;
  }
  w.out[i] = full - w.padBegin[i] - w.padEnd[i];
  if (w.out[i] < 1) {
    err = "pads leave an empty output";
    return false;
  }
  return true;
}

bool readTransposed(const Attributes& attrs, const Shape& xs, const Shape& kernel, Transposed& t, std::string& err) {
  const size_t n = xs.size() - 2;
  if (!readWindow(attrs, spatialDims(xs), kernel, true, t.w, err)) return false;
  if (!readInts(attrs, "output_padding", n, 0, 0, t.outputPadding, err)) return false;
  for (size_t i = 0; i < n; ++i)
    if (t.outputPadding[i] >= std::max(t.w.strides[i], t.w.dilations[i])) {
      err = "output_padding must be smaller than the stride or the dilation";
      return false;
    }
  if (attrs.has("output_shape") && !readInts(attrs, "output_shape", n, 1, 1, t.outputShape, err)) return false;
  t.w.out.assign(n, 0);
  for (size_t i = 0; i < n; ++i)
    if (!resolveDim(t, i, err)) return false;
  return true;
}

InferResult inferConvTranspose(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"auto_pad", "dilations", "group", "kernel_shape", "output_padding",
                                          "output_shape", "pads", "strides"});
  if (!err.empty()) return InferResult::fail(err);
  const TensorType& x = *a.inputs[0];
  if (a.inputs.size() < 2 || !a.inputs[1]) return InferResult::fail("W is required");
  const TensorType& w = *a.inputs[1];
  if (w.dtype != x.dtype) return InferResult::fail("W must have X's dtype");
  if (w.rank() != x.rank()) return InferResult::fail("W must have X's rank");
  int64_t group = 1;
  if (!readInt(a.attrs, "group", 1, INT64_MAX, 1, group, err)) return InferResult::fail(err);
  const int64_t c = x.shape[1];
  if (c % group != 0) return InferResult::fail("C must be divisible by group");
  if (w.shape[0] != c) return InferResult::fail("W dim 0 must be C");
  const int64_t m = w.shape[1] * group;
  const Shape kernel = spatialDims(w.shape);
  if (a.attrs.has("kernel_shape")) {
    std::vector<int64_t> ks;
    if (!readInts(a.attrs, "kernel_shape", kernel.size(), 1, 1, ks, err)) return InferResult::fail(err);
    if (ks != kernel) return InferResult::fail("kernel_shape disagrees with W");
  }
  Transposed t;
  if (!readTransposed(a.attrs, x.shape, kernel, t, err)) return InferResult::fail(err);
  // Valid ONNX, but ONNX 1.12's inference (the checker's) gets the result's rank wrong then.
  for (size_t i = 0; i < t.outputShape.size(); ++i)
    if (t.outputShape[i] < t.w.in[i]) return InferResult::fail("an output_shape below the input size is not modelled");
  if (a.inputs.size() > 2 && a.inputs[2]) {
    const TensorType& b = *a.inputs[2];
    if (b.dtype != x.dtype || b.shape != Shape{m}) return InferResult::fail("B must be a vector of M elements of X's dtype");
  }
  Shape out{x.shape[0], m};
  out.insert(out.end(), t.w.out.begin(), t.w.out.end());
  return {{TensorType{x.dtype, out}}, {}};
}

// Whether dim i is one the generator may produce: output dim <= 4 * maxDim, no negative
// pads (resolveDim refuses them already; kept as a guard), and for SAME_* an output
// ONNX shape inference agrees with: it gives in * s + output_padding when the extent
// reaches the stride (else the full output), the spec in * s, so output_padding must be
// 0 there, or output_padding + extent == s.
bool generable(const Transposed& t, size_t i, const Limits& limits) {
  const Window& w = t.w;
  if (w.out[i] > 4 * limits.maxDim || w.padBegin[i] < 0 || w.padEnd[i] < 0) return false;
  if (!t.outputShape.empty() || (w.autoPad != AutoPad::SameUpper && w.autoPad != AutoPad::SameLower)) return true;
  const int64_t e = w.extent(i), s = w.strides[i], op = t.outputPadding[i];
  return (e >= s && op == 0) || op + e == s;
}

// Kernel sizes of dim i that keep the node valid and generable.
std::vector<int64_t> fittingKernels(Transposed t, size_t i, const Limits& limits) {
  std::vector<int64_t> fits;
  std::string err;
  for (int64_t k = 1; k <= std::min(kMaxKernel, limits.maxDim); ++k) {
    t.w.kernel[i] = k;
    if (resolveDim(t, i, err) && generable(t, i, limits)) fits.push_back(k);
  }
  return fits;
}

void sampleConvTransposeAttrs(OpDraft& d) {
  Rng& rng = *d.rng;
  const Shape& xs = d.first().shape;
  const size_t n = xs.size() - 2;
  const int64_t maxOut = 4 * d.limits->maxDim;
  const int64_t group = sampleDivisor(rng, xs[1]);
  if (group != 1 || rng.bernoulli(0.3)) d.attrs.setInt("group", group);
  Transposed t;
  Window& w = t.w;
  w.autoPad = sampleAutoPad(rng, d.attrs);
  w.in = spatialDims(xs);
  w.kernel.assign(n, 1);
  w.strides.assign(n, 1);
  w.dilations.assign(n, 1);
  w.padBegin.assign(n, 0);
  w.padEnd.assign(n, 0);
  w.out.assign(n, 0);
  t.outputPadding.assign(n, 0);
  const bool giveShape = w.autoPad != AutoPad::Valid && rng.bernoulli(0.25);
  if (giveShape) t.outputShape.assign(n, 1);
  for (size_t i = 0; i < n; ++i) {
    if (rng.bernoulli(0.25)) w.dilations[i] = 2;
    if (rng.bernoulli(0.4)) w.strides[i] = rng.uniformInt(2, 3);
    w.kernel[i] = rng.uniformInt(1, std::min(kMaxKernel, d.limits->maxDim));
    // Shrink until the full output fits (stride first: it multiplies the input size).
    auto full = [&] { return w.strides[i] * (w.in[i] - 1) + w.extent(i) + std::max(w.strides[i], w.dilations[i]) - 1; };
    while (full() > maxOut && w.strides[i] > 1) --w.strides[i];
    while (full() > maxOut && w.dilations[i] > 1) --w.dilations[i];
    while (full() > maxOut && w.kernel[i] > 1) --w.kernel[i];
    // The spec allows output_padding below the stride or the dilation; ONNX Runtime
    // wants it below the stride, so generated models keep to that.
    if (w.strides[i] > 1 && rng.bernoulli(0.4)) t.outputPadding[i] = rng.uniformInt(0, w.strides[i] - 1);
    const int64_t natural = w.strides[i] * (w.in[i] - 1) + t.outputPadding[i] + w.extent(i);
    if (giveShape) {
      // ONNX shape inference gives up on an output_shape below the input size.
      t.outputShape[i] = rng.uniformInt(std::max(w.in[i], natural - 3), natural);
    } else if (w.autoPad == AutoPad::SameUpper || w.autoPad == AutoPad::SameLower) {
      // SAME wants the output in * s: output_padding + extent >= s, kept as generable() says.
      t.outputPadding[i] = std::max<int64_t>(0, w.strides[i] - w.extent(i));
    } else if (w.autoPad == AutoPad::NotSet && rng.bernoulli(0.6)) {
      const int64_t room = natural - 1;  // total pads that leave an output dim
      w.padBegin[i] = rng.uniformInt(0, std::min<int64_t>(3, room));
      w.padEnd[i] = rng.uniformInt(0, std::min<int64_t>(3, room - w.padBegin[i]));
    }
  }
  writeInts(d.attrs, "strides", w.strides, 1, rng);
  writeInts(d.attrs, "dilations", w.dilations, 1, rng);
  writeInts(d.attrs, "output_padding", t.outputPadding, 0, rng);
  if (giveShape) d.attrs.setInts("output_shape", t.outputShape);
  if (w.autoPad == AutoPad::NotSet && !giveShape) {
    std::vector<int64_t> pads = w.padBegin;
    pads.insert(pads.end(), w.padEnd.begin(), w.padEnd.end());
    writeInts(d.attrs, "pads", pads, 0, rng);
  }
  if (rng.bernoulli(0.6)) d.attrs.setInts("kernel_shape", w.kernel);
}

InputPattern nextConvTransposeInput(const OpDraft& d) {
  const TensorType x = d.first();
  const int64_t group = d.attrs.getInt("group", 1);
  if (d.inputTypes.size() == 2) {  // B: one per output channel
    const int64_t m = d.inputTypes[1].shape[1] * group;
    return InputPattern::exactly(TensorType{x.dtype, Shape{m}}, defaultRange(x.dtype));
  }
  InputPattern p;
  const Attributes attrs = d.attrs;
  const Limits limits = *d.limits;
  p.accepts = [x, attrs, limits](const TensorType& t) {
    if (!inferAccepts(inferConvTranspose, {x}, t, attrs)) return false;
    Transposed tr;
    std::string err;
    readTransposed(attrs, x.shape, spatialDims(t.shape), tr, err);
    for (size_t i = 0; i < tr.w.rank(); ++i)
      if (!generable(tr, i, limits)) return false;
    return true;
  };
  p.sample = [x, attrs, limits, group](Rng& rng) {
    const size_t n = x.shape.size() - 2;
    Shape ws{x.shape[1], rng.uniformInt(1, std::max<int64_t>(1, limits.maxDim / group))};
    if (attrs.has("kernel_shape")) {
      const auto ks = attrs.getInts("kernel_shape");
      ws.insert(ws.end(), ks.begin(), ks.end());
      return TensorType{x.dtype, ws};
    }
    Transposed t;
    std::string err;
    // Attributes a mutation made invalid for X: any W, which accepts() then turns down.
    const auto anyKernel = [&] {
      ws.insert(ws.end(), n, 1);
      return TensorType{x.dtype, ws};
    };
    if (!readWindow(attrs, spatialDims(x.shape), Shape(n, 1), true, t.w, err) ||
        !readInts(attrs, "output_padding", n, 0, 0, t.outputPadding, err))
      return anyKernel();
    if (attrs.has("output_shape")) t.outputShape = attrs.getInts("output_shape");
    if (!t.outputShape.empty() && t.outputShape.size() != n) return anyKernel();
    t.w.out.assign(n, 0);
    // The sampler chose the attributes for some kernel that fits, so none is empty.
    for (size_t i = 0; i < n; ++i) {
      const auto fits = fittingKernels(t, i, limits);
      ws.push_back(fits.empty() ? 1 : rng.pick(fits));  // empty only if the sampler is unsound (tests catch it)
    }
    return TensorType{x.dtype, ws};
  };
  p.range = defaultRange(x.dtype);
  return p;
}

void convTransposeKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const Tensor& wt = *a.inputs[1];
  const Tensor* b = a.inputs.size() > 2 ? a.inputs[2] : nullptr;
  Tensor& y = a.outputs[0];
  Transposed t;
  std::string err;
  readTransposed(a.attrs, x.type.shape, spatialDims(wt.type.shape), t, err);
  const Window& w = t.w;
  const size_t n = w.rank();
  const int64_t batch = x.type.shape[0], c = x.type.shape[1], group = a.attrs.getInt("group", 1);
  const int64_t cg = c / group, mg = wt.type.shape[1], m = mg * group;
  const int64_t inSize = product(w.in), outSize = product(w.out), kSize = product(w.kernel);
  for (int64_t nb = 0; nb < batch; ++nb)
    for (int64_t oc = 0; oc < m; ++oc)
      for (int64_t of = 0; of < outSize; ++of)
        y.data[static_cast<size_t>((nb * m + oc) * outSize + of)] = b ? b->data[static_cast<size_t>(oc)] : 0.0;
  if (x.numel() == 0) return;  // empty tensors (imported models)
  // Scatter: input position i and kernel tap k land on output i * s - padBegin + k * dilation.
  std::vector<int64_t> i(n, 0), k(n, 0);
  std::vector<std::pair<int64_t, int64_t>> taps;  // (kernel offset, output offset)
  taps.reserve(static_cast<size_t>(kSize));
  int64_t iFlat = 0;
  do {
    taps.clear();
    k.assign(n, 0);
    int64_t kFlat = 0;
    do {
      int64_t oFlat = 0;
      bool inside = true;
      for (size_t j = 0; j < n && inside; ++j) {
        const int64_t o = i[j] * w.strides[j] - w.padBegin[j] + k[j] * w.dilations[j];
        inside = o >= 0 && o < w.out[j];
        oFlat = oFlat * w.out[j] + o;
      }
      if (inside) taps.emplace_back(kFlat, oFlat);
      ++kFlat;
    } while (nextIndex(k, w.kernel));
    for (int64_t nb = 0; nb < batch; ++nb)
      for (int64_t ic = 0; ic < c; ++ic) {
        const double xv = x.data[static_cast<size_t>((nb * c + ic) * inSize + iFlat)];
        const int64_t g = ic / cg;
        for (int64_t oc = 0; oc < mg; ++oc) {
          const double* wk = wt.data.data() + (ic * mg + oc) * kSize;
          double* yo = y.data.data() + (nb * m + g * mg + oc) * outSize;
          for (const auto& [kf, of] : taps) yo[of] += xv * wk[kf];
        }
      }
    ++iFlat;
  } while (nextIndex(i, w.in));
}


// Each input element scatters into one filter's worth (M/group x kernel) of results.
double scatterWork(const WorkArgs& a) {
  const TensorType& w = *a.inputs[1];
  return elementCount(*a.inputs[0]) * elementCount(w) / static_cast<double>(std::max<int64_t>(w.shape[0], 1)) +
         elementCount(a.outputs[0]);
}

}  // namespace

const OpSpec& opConvTranspose() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "ConvTranspose";
    s.sinceVersion = 11;
    s.minInputs = 2;
    s.maxInputs = 3;
    s.dtypes = kFloatTypes;
    s.minRank = 3;
    s.maxRank = 5;
    s.attrs = {autoPadDomain(),
               intsAttr("dilations", 1, 3, 1, 3),
               intAttr("group", 1, 4),
               intsAttr("kernel_shape", 1, 4, 1, 3),
               intsAttr("output_padding", 0, 2, 1, 3),
               intsAttr("output_shape", 1, 20, 1, 3),
               intsAttr("pads", 0, 3, 2, 6),
               intsAttr("strides", 1, 3, 1, 3)};
    s.sampleAttrs = sampleConvTransposeAttrs;
    s.nextInput = nextConvTransposeInput;
    s.infer = inferConvTranspose;
    s.reference = convTransposeKernel;
    s.work = scatterWork;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
