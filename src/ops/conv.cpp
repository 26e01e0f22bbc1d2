// conv.cpp - Conv (opset 11 schema): 1-D/2-D/3-D convolution of X (N x C x D1..Dn) with
// W (M x C/group x k1..kn), groups, strides, dilations, explicit or automatic padding,
// kernel_shape given or taken from W, and an optional bias B (M). Also the shared
// pieces conv_util.h declares for the quantized convolutions.
#include <algorithm>

#include "ops/conv_util.h"
#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace convsupport {
namespace {

constexpr int64_t kMaxPad = 3;     // explicit pads drawn from [0, kMaxPad] (more when the kernel needs it)
constexpr int64_t kMaxKernel = 4;  // kernel dims drawn from [1, kMaxKernel]

// Largest kernel dim i can take given the padding mode and pads already chosen.
int64_t largestKernel(const Window& w, size_t i, const Limits& limits) {
  const int64_t cap = std::min(kMaxKernel, limits.maxDim);
  int64_t room = 0;  // the extent the (padded) input offers
  switch (w.autoPad) {
    case AutoPad::NotSet: room = w.in[i] + w.padBegin[i] + w.padEnd[i]; break;
    case AutoPad::Valid: room = w.in[i]; break;
    default: return cap;  // SAME pads grow with the kernel
  }
  return std::clamp<int64_t>((room - 1) / w.dilations[i] + 1, 1, cap);
}

}  // namespace

std::optional<Shape> convOutput(const Attributes& attrs, const Shape& x, const Shape& w, std::string& err) {
  int64_t group = 1;
  if (!readInt(attrs, "group", 1, INT64_MAX, 1, group, err)) return std::nullopt;
  const int64_t c = x[1], m = w[0];
  if (c % group != 0 || m % group != 0) {
    err = "C and M must be divisible by group";
    return std::nullopt;
  }
  if (w[1] * group != c) {
    err = "W dim 1 must be C / group";
    return std::nullopt;
  }
  const Shape kernel = spatialDims(w);
  if (attrs.has("kernel_shape")) {
    std::vector<int64_t> ks;
    if (!readInts(attrs, "kernel_shape", kernel.size(), 1, 1, ks, err)) return std::nullopt;
    if (ks != kernel) {
      err = "kernel_shape disagrees with W";
      return std::nullopt;
    }
  }
  Window win;
  if (!readWindow(attrs, spatialDims(x), kernel, true, win, err) || !resolveForward(win, err)) return std::nullopt;
  Shape out{x[0], m};
  out.insert(out.end(), win.out.begin(), win.out.end());
  return out;
}

void sampleConvAttrs(OpDraft& d) {
  Rng& rng = *d.rng;
  const Shape& xs = d.first().shape;
  const size_t n = xs.size() - 2;
  const int64_t group = sampleDivisor(rng, xs[1]);
  if (group != 1 || rng.bernoulli(0.3)) d.attrs.setInt("group", group);
  Window w;
  w.autoPad = sampleAutoPad(rng, d.attrs);
  w.in = spatialDims(xs);
  w.kernel.assign(n, 1);
  w.strides.assign(n, 1);
  w.dilations.assign(n, 1);
  w.padBegin.assign(n, 0);
  w.padEnd.assign(n, 0);
  const bool writeKernel = rng.bernoulli(0.6);
  for (size_t i = 0; i < n; ++i) {
    if (rng.bernoulli(0.25)) w.dilations[i] = rng.uniformInt(2, 3);
    if (rng.bernoulli(0.35)) w.strides[i] = rng.uniformInt(2, 3);
    int64_t need = 0;  // how much padding the kernel needs
    if (writeKernel) {
      Window roomy = w;  // the kernel may ask for up to 2 * kMaxPad of padding
      roomy.padBegin[i] = roomy.padEnd[i] = kMaxPad;
      w.kernel[i] = rng.uniformInt(1, largestKernel(roomy, i, *d.limits));
      need = std::max<int64_t>(0, w.extent(i) - w.in[i]);
    }
    if (w.autoPad == AutoPad::NotSet && (need > 0 || rng.bernoulli(0.6))) {
      w.padBegin[i] = rng.uniformInt(0, kMaxPad);
      const int64_t lo = std::max<int64_t>(0, need - w.padBegin[i]);
      w.padEnd[i] = rng.uniformInt(lo, std::max(kMaxPad, lo));
    }
  }
  writeInts(d.attrs, "strides", w.strides, 1, rng);
  writeInts(d.attrs, "dilations", w.dilations, 1, rng);
  if (writeKernel) d.attrs.setInts("kernel_shape", w.kernel);
  if (w.autoPad == AutoPad::NotSet) {
    std::vector<int64_t> pads = w.padBegin;
    pads.insert(pads.end(), w.padEnd.begin(), w.padEnd.end());
    writeInts(d.attrs, "pads", pads, 0, rng);
  }
}

InputPattern convWeight(const TensorType& x, const Attributes& attrs, const Limits& limits, DType wtype, ValueRange range) {
  InputPattern p;
  p.accepts = [x, attrs, wtype](const TensorType& t) {
    std::string err;
    return t.dtype == wtype && t.rank() == x.rank() && convOutput(attrs, x.shape, t.shape, err).has_value();
  };
  p.sample = [x, attrs, limits, wtype](Rng& rng) {
    const int64_t group = attrs.getInt("group", 1);
    const size_t n = x.shape.size() - 2;
    Shape ws{group * rng.uniformInt(1, std::max<int64_t>(1, limits.maxDim / group)), x.shape[1] / group};
    if (attrs.has("kernel_shape")) {
      const auto ks = attrs.getInts("kernel_shape");
      ws.insert(ws.end(), ks.begin(), ks.end());
    } else {
      Window w;
      std::string err;
      readWindow(attrs, spatialDims(x.shape), Shape(n, 1), true, w, err);
      for (size_t i = 0; i < n; ++i) ws.push_back(rng.uniformInt(1, largestKernel(w, i, limits)));
    }
    return TensorType{wtype, ws};
  };
  p.range = range;
  return p;
}

void convSums(const Tensor& x, const Tensor& w, const Attributes& attrs, double xZero,
              const std::function<double(int64_t)>& wZero, Tensor& y) {
  Window win;
  std::string err;
  readWindow(attrs, spatialDims(x.type.shape), spatialDims(w.type.shape), true, win, err);
  resolveForward(win, err);
  const int64_t batch = x.type.shape[0], c = x.type.shape[1], m = w.type.shape[0];
  const int64_t group = attrs.getInt("group", 1), cg = c / group, mg = m / group;
  const int64_t inSize = product(win.in), outSize = product(win.out), kSize = product(win.kernel);
  std::vector<int64_t> o(win.rank(), 0), scratch;
  std::vector<std::pair<int64_t, int64_t>> taps;
  taps.reserve(static_cast<size_t>(kSize));
  if (y.numel() == 0) return;  // empty tensors (imported models)
  std::vector<double> wz(static_cast<size_t>(m));
  for (int64_t oc = 0; oc < m; ++oc) wz[static_cast<size_t>(oc)] = wZero ? wZero(oc) : 0.0;
  int64_t of = 0;
  do {
    windowTaps(win, o, scratch, taps);
    for (int64_t nb = 0; nb < batch; ++nb)
      for (int64_t oc = 0; oc < m; ++oc) {
        const int64_t g = oc / mg;
        double acc = 0.0;
        for (int64_t ic = 0; ic < cg; ++ic) {
          const int64_t xBase = (nb * c + g * cg + ic) * inSize, wBase = (oc * cg + ic) * kSize;
          for (const auto& [kf, xf] : taps)
            acc += (x.data[static_cast<size_t>(xBase + xf)] - xZero) * (w.data[static_cast<size_t>(wBase + kf)] - wz[static_cast<size_t>(oc)]);
        }
        y.data[static_cast<size_t>((nb * m + oc) * outSize + of)] = acc;
      }
    ++of;
  } while (nextIndex(o, win.out));
}

}  // namespace convsupport

namespace {

InferResult inferConv(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  if (!err.empty()) return InferResult::fail(err);
  const TensorType& x = *a.inputs[0];
  if (a.inputs.size() < 2 || !a.inputs[1]) return InferResult::fail("W is required");
  const TensorType& w = *a.inputs[1];
  if (w.dtype != x.dtype) return InferResult::fail("W must have X's dtype");
  if (w.rank() != x.rank()) return InferResult::fail("W must have X's rank");
  auto out = convsupport::convOutput(a.attrs, x.shape, w.shape, err);
  if (!out) return InferResult::fail(err);
  if (a.inputs.size() > 2 && a.inputs[2]) {
    const TensorType& b = *a.inputs[2];
    if (b.dtype != x.dtype || b.shape != Shape{w.shape[0]}) return InferResult::fail("B must be a vector of M elements of X's dtype");
  }
  return {{TensorType{x.dtype, *out}}, {}};
}

InputPattern nextConvInput(const OpDraft& d) {
  const TensorType x = d.first();
  if (d.inputTypes.size() == 2) {  // B: one per output channel
    const int64_t m = d.inputTypes[1].shape[0];
    return InputPattern::exactly(TensorType{x.dtype, Shape{m}}, defaultRange(x.dtype));
  }
  return convsupport::convWeight(x, d.attrs, *d.limits, x.dtype, defaultRange(x.dtype));
}

void convKernel(KernelArgs& a) {
  const Tensor* b = a.inputs.size() > 2 ? a.inputs[2] : nullptr;
  Tensor& y = a.outputs[0];
  convsupport::convSums(*a.inputs[0], *a.inputs[1], a.attrs, 0.0, nullptr, y);
  if (!b || y.numel() == 0) return;
  const int64_t m = y.type.shape[1], outSize = y.numel() / (y.type.shape[0] * m);
  for (size_t i = 0; i < y.data.size(); ++i) y.data[i] += b->data[static_cast<size_t>((static_cast<int64_t>(i) / outSize) % m)];
}


// Each result element sums over one filter (C/group x kernel) of operand `w`.
template <int W>
double filterWork(const WorkArgs& a) {
  const TensorType& w = *a.inputs[W];
  return elementCount(a.outputs[0]) * elementCount(w) / static_cast<double>(std::max<int64_t>(w.shape[0], 1));
}

}  // namespace

const OpSpec& opConv() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Conv";
    s.sinceVersion = 11;
    s.minInputs = 2;
    s.maxInputs = 3;
    s.dtypes = kFloatTypes;
    s.minRank = 3;
    s.maxRank = 5;
    s.attrs = {autoPadDomain(),
               intsAttr("dilations", 1, 3, 1, 3),
               intAttr("group", 1, 4),
               intsAttr("kernel_shape", 1, 5, 1, 3),
               intsAttr("pads", 0, 3, 2, 6),
               intsAttr("strides", 1, 3, 1, 3)};
    s.sampleAttrs = convsupport::sampleConvAttrs;
    s.nextInput = nextConvInput;
    s.infer = inferConv;
    s.reference = convKernel;
    s.work = filterWork<1>;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
