// dft.cpp - DFT and STFT (opset 17), on signals whose last dim is 1 (real) or 2 (real and
// imaginary parts); results are complex, last dim 2.
//
// DFT: along `axis` (default 1; the batch axis 0 is never generated), over dft_length
// samples (an optional scalar constant: the signal is cut or zero-padded to it; default the
// axis' length), forward or `inverse` (sign +, divided by the length), `onesided` keeping
// bins 0..length/2 of a real signal's forward transform. An inverse one-sided DFT (irfft) is
// rejected: its input must be complex and opset 17's text does not define it.
// STFT: signal [batch, length, 1|2], frame_step (scalar constant), window (optional 1-D)
// and frame_length (optional scalar constant, equal to the window's length when both are
// given; one of them is required). frames = (length - frame_length) / frame_step + 1, each
// frame multiplied by the window and transformed; `onesided` (default 1) keeps bins
// 0..frame_length/2 of a real signal (the schema rules it out for complex ones). A node without `onesided` is rejected: ONNX's shape inference takes
// the default as 0 while the schema, its reference and ONNX Runtime take 1; so is a
// one-sided STFT whose frame count ONNX 1.12's inference gets wrong (see countAgrees).
// Transforms are direct sums in double. Engines' FFTs leave noise of ~1e-7 of the largest
// value in every bin (ONNX Runtime: -6e-8 in the imaginary part of bin 0 of a real signal
// of length 3), so a result element within a hair of 0 is unstable: a consumer that treats
// an exact 0 specially (Sign, Sqrt, Cast to bool) would see 0 here and noise there. A real
// signal's bin 0 has imaginary part 0, so stable DFTs and STFTs of real signals come only
// from operands that make it no bin at all - in practice generated cases transform complex
// signals; the node tests cover real ones.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

using Complex = std::complex<double>;

bool isSignal(const TensorType& t, const Limits&) { return t.rank() >= 3 && (t.shape.back() == 1 || t.shape.back() == 2); }

TensorType sampleSignal(Rng& rng, const Limits& limits, DType dtype, int minRank, int maxRank) {
  const int rank = static_cast<int>(rng.uniformInt(minRank, std::max(minRank, std::min(maxRank, limits.maxRank))));
  Shape s = sampleShape(rng, limits, rank);
  s.back() = rng.bernoulli(0.6) ? 1 : 2;
  return {dtype, s};
}

// A scalar int constant (dft_length, frame_step, frame_length): its value, or an error.
std::optional<int64_t> scalarConstant(const InferArgs& a, size_t i, const char* what, std::string& err) {
  const TensorType* t = a.inputs[i];
  if (!shapeops::isIndexType(t->dtype) || t->rank() != 0) err = std::string(what) + " must be an int32 or int64 scalar";
  else if (!a.constants[i]) err = std::string(what) + " must be a constant";
  else return shapeops::saturatingInt(a.constants[i]->data[0]);
  return std::nullopt;
}

Tensor scalarOf(DType dtype, int64_t v) { return Tensor(TensorType{dtype, {}}, {static_cast<double>(v)}); }
DType indexDType(Rng& rng) { return rng.bernoulli(0.25) ? DType::Int32 : DType::Int64; }

// The DFT of `in` (read through get(n) for n < inLength, zero beyond) at bins [0, bins).
template <typename Get>
void transform(Get get, int64_t inLength, int64_t length, int64_t bins, bool inverse, std::vector<Complex>& out) {
  out.assign(static_cast<size_t>(bins), Complex{});
  const double sign = inverse ? 1.0 : -1.0;
  for (int64_t k = 0; k < bins; ++k) {
    Complex sum{};
    for (int64_t n = 0; n < std::min(inLength, length); ++n) {
      // k * n mod length keeps the angle small, so cos/sin stay exact to the last bits.
      const double angle = sign * 2 * std::numbers::pi * static_cast<double>((k * n) % length) / static_cast<double>(length);
      sum += get(n) * Complex(std::cos(angle), std::sin(angle));
    }
    out[static_cast<size_t>(k)] = inverse ? sum / static_cast<double>(length) : sum;
  }
}

// Some element of the (complex) result within the stability margin of 0.
bool nearZeroBin(const KernelArgs& a) {
  double scale = 1.0;
  for (double v : a.outputs[0].data) scale = std::max(scale, std::abs(v));
  for (double v : a.outputs[0].data)
    if (std::abs(v) < kStabilityMargin * scale) return true;
  return false;
}

// ---- DFT ----

size_t dftAxis(const Attributes& attrs, int rank) { return static_cast<size_t>(*normalizeAxis(attrs.getInt("axis", 1), rank)); }

void sampleDft(OpDraft& d) {
  Rng& rng = *d.rng;
  const int rank = d.first().rank();
  const int64_t axis = rng.uniformInt(1, rank - 2);
  if (axis != 1 || rng.bernoulli(0.5)) d.attrs.setInt("axis", rng.bernoulli(0.3) ? axis - rank : axis);
  const bool inverse = rng.bernoulli(0.3);
  if (inverse || rng.bernoulli(0.3)) d.attrs.setInt("inverse", inverse ? 1 : 0);
  if (!inverse && d.first().shape.back() == 1 && rng.bernoulli(0.5)) d.attrs.setInt("onesided", 1);
}

InputPattern dftLength(const OpDraft& d) {
  if (d.rng->bernoulli(0.3)) return InputPattern::omitted();
  return InputPattern::constantTensor(scalarOf(indexDType(*d.rng), d.rng->uniformInt(1, 2 * d.limits->maxDim)));
}

InferResult inferDft(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"axis", "inverse", "onesided"});
  int64_t axis = 1, inverse = 0, onesided = 0;
  if (!err.empty() || !readInt(a.attrs, "axis", INT64_MIN, INT64_MAX, 1, axis, err) ||
      !readInt(a.attrs, "inverse", 0, 1, 0, inverse, err) || !readInt(a.attrs, "onesided", 0, 1, 0, onesided, err))
    return InferResult::fail(err);
  const TensorType& x = *a.inputs[0];
  if (!isSignal(x, Limits{})) return InferResult::fail("the input must have rank >= 3 and a last dim of 1 or 2");
  const int rank = x.rank();
  if (axis < -rank || axis > rank - 2 || axis == -1) return InferResult::fail("axis must be in [-rank, -2] or [0, rank - 2]");
  const size_t ax = dftAxis(a.attrs, rank);
  if (onesided && inverse) return InferResult::fail("an inverse one-sided DFT is not defined at opset 17");
  if (onesided && x.shape.back() != 1) return InferResult::fail("a one-sided DFT needs a real input");
  int64_t length = x.shape[ax];
  if (a.inputs.size() > 1 && a.inputs[1]) {
    auto l = scalarConstant(a, 1, "dft_length", err);
    if (!l) return InferResult::fail(err);
    if (*l < 1 || *l > (int64_t{1} << 20)) return InferResult::fail("dft_length must be in [1, 2^20]");
    length = *l;
  }
  Shape out = x.shape;
  out[ax] = onesided ? length / 2 + 1 : length;
  out.back() = 2;
  return {{TensorType{x.dtype, out}}, {}};
}

void dftKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const Shape& in = x.type.shape;
  const size_t ax = dftAxis(a.attrs, x.type.rank());
  const bool inverse = a.attrs.getInt("inverse", 0) == 1;  // onesided shows in the output shape only
  const int64_t length = a.inputs.size() > 1 && a.inputs[1] ? static_cast<int64_t>(a.inputs[1]->data[0]) : in[ax];
  const bool complexIn = in.back() == 2;
  const Shape& outShape = a.outputs[0].type.shape;
  const int64_t bins = outShape[ax];
  // Lines along ax of the signal without its last dim: strides in complex elements.
  const Shape signal(in.begin(), in.end() - 1);
  const int64_t inner = product(signal, ax + 1), n = in[ax];
  std::vector<Complex> spectrum;
  forEachLine(signal, ax, [&](int64_t start, int64_t stride, int64_t, int64_t) {
    auto get = [&](int64_t i) {
      const auto at = static_cast<size_t>((start + i * stride) * in.back());
      return Complex(x.data[at], complexIn ? x.data[at + 1] : 0.0);
    };
    transform(get, n, length, bins, inverse, spectrum);
    const int64_t outStart = (start / (n * inner)) * bins * inner + start % inner;
    for (int64_t k = 0; k < bins; ++k) {
      const auto at = static_cast<size_t>((outStart + k * stride) * 2);
      a.outputs[0].data[at] = spectrum[static_cast<size_t>(k)].real();
      a.outputs[0].data[at + 1] = spectrum[static_cast<size_t>(k)].imag();
    }
  });
}

// ---- STFT ----

void sampleStft(OpDraft& d) { d.attrs.setInt("onesided", d.first().shape[2] == 1 ? d.rng->uniformInt(0, 1) : 0); }

// ONNX 1.12's shape inference (the packaged one) counts frames with the one-sided bin count
// frame_length / 2 + 1 in place of frame_length; frames whose count comes out the same
// either way are the only one-sided ones a checker built on it accepts.
bool countAgrees(int64_t length, int64_t step, int64_t frame, bool onesided) {
  return !onesided || (length - frame) / step == (length - (frame / 2 + 1)) / step;
}

// A frame length in [1, length] that countAgrees with (1 and 2 always do).
int64_t sampleFrame(Rng& rng, int64_t length, int64_t step, bool onesided) {
  std::vector<int64_t> fits;
  for (int64_t f = 1; f <= length; ++f)
    if (countAgrees(length, step, f, onesided)) fits.push_back(f);
  return rng.pick(fits);
}

// frame_step, then window (required when frame_length is not drawn), then frame_length
// (the window's length when there is one).
InputPattern stftOperand(const OpDraft& d) {
  Rng& rng = *d.rng;
  const TensorType& x = d.first();
  const int64_t length = x.shape[1];
  switch (d.inputTypes.size()) {
    case 1:
      return InputPattern::constantTensor(scalarOf(indexDType(rng), rng.uniformInt(1, length)));
    case 2: {
      if (d.arity == 4 && rng.bernoulli(0.4)) return InputPattern::omitted();
      InputPattern p;
      const DType dtype = x.dtype;
      const int64_t step = static_cast<int64_t>(d.constants[1]->data[0]);
      const bool onesided = d.attrs.getInt("onesided", 1) == 1;
      const int64_t chosen = sampleFrame(rng, length, step, onesided);
      // Always a fresh window: ONNX 1.12's inference fails on a window whose shape it could
      // not infer (one computed from Compress, NonZero, ...), which a reused value may be.
      p.accepts = [](const TensorType&) { return false; };
      p.sample = [dtype, chosen](Rng&) { return TensorType{dtype, {chosen}}; };
      return p;
    }
    default: {
      const bool window = !d.omitted[2];
      const int64_t frame = window ? d.inputTypes[2].shape[0]
                                   : sampleFrame(rng, length, static_cast<int64_t>(d.constants[1]->data[0]),
                                                 d.attrs.getInt("onesided", 1) == 1);
      return InputPattern::constantTensor(scalarOf(d.inputTypes[1].dtype, frame));  // frame_step's type T2
    }
  }
}

struct StftShape {
  int64_t frames = 0, frameLength = 0, step = 0, bins = 0;
};

InferResult inferStft(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"onesided"});
  int64_t onesided = 1;
  if (!err.empty() || !readInt(a.attrs, "onesided", 0, 1, 1, onesided, err)) return InferResult::fail(err);
  if (!a.attrs.has("onesided"))
    return InferResult::fail("onesided must be written (ONNX's shape inference defaults it to 0, the schema to 1)");
  const TensorType& x = *a.inputs[0];
  if (x.rank() != 3 || (x.shape[2] != 1 && x.shape[2] != 2)) return InferResult::fail("the signal must be [batch, length, 1 or 2]");
  if (onesided && x.shape[2] == 2) return InferResult::fail("a one-sided STFT needs a real signal (the schema: not possible for complex input)");
  if (a.inputs.size() < 2 || !a.inputs[1]) return InferResult::fail("frame_step is required");
  auto step = scalarConstant(a, 1, "frame_step", err);
  if (!step) return InferResult::fail(err);
  if (*step < 1) return InferResult::fail("frame_step must be positive");
  std::optional<int64_t> frame;
  if (a.inputs.size() > 2 && a.inputs[2]) {
    const TensorType& w = *a.inputs[2];
    if (w.dtype != x.dtype || w.rank() != 1) return InferResult::fail("the window must be 1-D of the signal's dtype");
    frame = w.shape[0];
  }
  if (a.inputs.size() > 3 && a.inputs[3]) {
    auto f = scalarConstant(a, 3, "frame_length", err);
    if (!f) return InferResult::fail(err);
    if (a.inputs[3]->dtype != a.inputs[1]->dtype) return InferResult::fail("frame_length must have frame_step's dtype");
    if (frame && *frame != *f) return InferResult::fail("frame_length must equal the window's length");
    frame = f;
  }
  if (!frame) return InferResult::fail("a window or frame_length is required");
  if (*frame < 1 || *frame > x.shape[1]) return InferResult::fail("the frame length must be in [1, signal length]");
  if (!countAgrees(x.shape[1], *step, *frame, onesided))
    return InferResult::fail("ONNX 1.12's shape inference counts one-sided frames wrongly for this frame length");
  const int64_t frames = (x.shape[1] - *frame) / *step + 1;
  return {{TensorType{x.dtype, {x.shape[0], frames, onesided ? *frame / 2 + 1 : *frame, 2}}}, {}};
}

void stftKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const Tensor* window = a.inputs.size() > 2 ? a.inputs[2] : nullptr;
  const int64_t step = static_cast<int64_t>(a.inputs[1]->data[0]);
  const int64_t frame = window ? window->type.shape[0] : static_cast<int64_t>(a.inputs[3]->data[0]);
  const Shape& out = a.outputs[0].type.shape;
  const int64_t length = x.type.shape[1], channels = x.type.shape[2], frames = out[1], bins = out[2];
  std::vector<Complex> spectrum;
  for (int64_t b = 0; b < out[0]; ++b)
    for (int64_t f = 0; f < frames; ++f) {
      auto get = [&](int64_t n) {
        const auto at = static_cast<size_t>((b * length + f * step + n) * channels);
        const double w = window ? window->data[static_cast<size_t>(n)] : 1.0;
        return Complex(x.data[at], channels == 2 ? x.data[at + 1] : 0.0) * w;
      };
      transform(get, frame, frame, bins, false, spectrum);
      for (int64_t k = 0; k < bins; ++k) {
        const auto at = static_cast<size_t>(((b * frames + f) * bins + k) * 2);
        a.outputs[0].data[at] = spectrum[static_cast<size_t>(k)].real();
        a.outputs[0].data[at + 1] = spectrum[static_cast<size_t>(k)].imag();
      }
    }
}

// Each result bin sums over a whole signal or frame: at most the input's longest dim.
double binWork(const WorkArgs& a) {
  const TensorType& x = *a.inputs[0];
  int64_t longest = 1;
  for (int64_t d : x.shape) longest = std::max(longest, d);
  return elementCount(a.outputs[0]) * static_cast<double>(longest);
}

}  // namespace

const OpSpec& opDFT() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "DFT";
    t.sinceVersion = 17;
    t.minInputs = 1;
    t.maxInputs = 2;
    t.dtypes = kFloatTypes;
    t.minRank = 3;
    t.constantInputs = 0b10;
    t.attrs = {intAttr("axis", -5, 4), intAttr("inverse", 0, 1), intAttr("onesided", 0, 1)};
    t.acceptsFirst = isSignal;
    t.sampleFirst = [](Rng& rng, const Limits& limits, DType dtype) { return sampleSignal(rng, limits, dtype, 3, 5); };
    t.sampleAttrs = sampleDft;
    t.nextInput = dftLength;
    t.infer = inferDft;
    t.reference = dftKernel;
    t.work = binWork;
    t.unstable = nearZeroBin;
    return t;
  }();
  return s;
}

const OpSpec& opSTFT() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "STFT";
    t.sinceVersion = 17;
    t.minInputs = 3;  // the schema's minimum is 2, but without a window or frame_length the frame is undefined
    t.maxInputs = 4;
    t.dtypes = kFloatTypes;
    t.minRank = t.maxRank = 3;
    t.constantInputs = 0b1010;
    t.attrs = {intAttr("onesided", 0, 1)};
    t.acceptsFirst = isSignal;
    t.sampleFirst = [](Rng& rng, const Limits& limits, DType dtype) { return sampleSignal(rng, limits, dtype, 3, 3); };
    t.sampleAttrs = sampleStft;
    t.nextInput = stftOperand;
    t.infer = inferStft;
    t.reference = stftKernel;
    t.work = binWork;
    t.unstable = nearZeroBin;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
