// pad.cpp - Pad (opset 13, with opset 18's axes): pads is a constant int64 input
// [x1_begin, x2_begin, ..., x1_end, x2_end, ...], negative pads crop; constant_value is an
// optional scalar input of the data's dtype; mode is constant (default), reflect, edge or
// opset 19's wrap (refused before 19 by version_forms.cpp).
// The optional constant `axes` (int64 drawn, int32 read; distinct, negative from the end) names the
// axes pads holds two values for; the others are not padded. Before opset 18 the pads of
// every axis are written instead (version_forms.cpp).
//
// A negative pad crops that side first; the other side is then padded relative to the
// cropped tensor (ONNX Runtime's reading). For edge and reflect that equals clamping or
// mirroring about the original borders, as long as a reflect pad stays below the cropped
// length, which we require (ORT rejects larger ones). wrap repeats the data periodically, as
// numpy's pad does (onnx.reference); crops and pads longer than the dim are not modelled
// with it (numpy refuses crops, and the spec says nothing of them).
#include <algorithm>

#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace shapeops;

namespace {

enum class PadMode { Constant, Reflect, Edge, Wrap };

std::optional<PadMode> modeOf(const Attributes& attrs) {
  const std::string m = attrs.getString("mode", "constant");
  if (m == "constant") return PadMode::Constant;
  if (m == "reflect") return PadMode::Reflect;
  if (m == "edge") return PadMode::Edge;
  if (m == "wrap") return PadMode::Wrap;
  return std::nullopt;
}

void padAttrs(OpDraft& d) {
  const double u = d.rng->uniformReal(0, 1);
  if (u < 0.3) return;
  d.attrs.setString("mode", u < 0.45 ? "constant" : u < 0.65 ? "reflect" : u < 0.85 ? "edge" : "wrap");
}

// Pads for `count` axes; with `anyAxis` they fit every axis of x (crops and reflect pads
// within the shortest dim, growth within the longest), so the axes can be drawn after.
std::vector<int64_t> drawPads(const OpDraft& d, size_t count, bool anyAxis) {
  Rng& rng = *d.rng;
  const TensorType& x = d.first();
  const bool reflect = modeOf(d.attrs) == PadMode::Reflect;
  const bool wrap = modeOf(d.attrs) == PadMode::Wrap;
  const size_t r = count;
  std::vector<int64_t> pads(2 * r, 0);
  const auto [shortest, longest] = std::minmax_element(x.shape.begin(), x.shape.end());
  for (size_t i = 0; i < r; ++i) {
    const int64_t n = anyAxis ? *shortest : x.shape[i];
    // Crop amounts first: the cropped length L stays >= 1.
    int64_t cropBegin = 0, cropEnd = 0;
    if (n > 1 && !wrap && rng.bernoulli(0.25)) cropBegin = rng.uniformInt(1, n - 1);
    if (n - cropBegin > 1 && !wrap && rng.bernoulli(0.25)) cropEnd = rng.uniformInt(1, n - 1 - cropBegin);
    const int64_t cropped = n - cropBegin - cropEnd;
    const int64_t widest = anyAxis ? *longest - cropBegin - cropEnd : cropped;
    int64_t maxPad = std::min(d.limits->maxDim, std::max<int64_t>(0, (maxResultDim(*d.limits) - widest) / 2));
    if (reflect) maxPad = std::min(maxPad, cropped - 1);
    if (wrap) maxPad = std::min(maxPad, cropped);
    auto grow = [&] { return rng.bernoulli(0.3) ? 0 : rng.uniformInt(0, maxPad); };
    pads[i] = cropBegin > 0 ? -cropBegin : grow();
    pads[i + r] = cropEnd > 0 ? -cropEnd : grow();
  }
  return pads;
}

InputPattern padNext(const OpDraft& d) {
  Rng& rng = *d.rng;
  const TensorType& x = d.first();
  const auto r = static_cast<size_t>(x.rank());
  if (d.inputTypes.size() == 1) {
    // Pads for a few axes, named by an axes input drawn next (when the draft has its slot).
    if (d.arity == 4 && rng.bernoulli(0.3)) return InputPattern::constantTensor(int64Tensor(drawPads(d, static_cast<size_t>(rng.uniformInt(1, static_cast<int64_t>(r))), true)));
    return InputPattern::constantTensor(int64Tensor(drawPads(d, r, false)));
  }
  if (d.inputTypes.size() == 2) {
    if (rng.bernoulli(0.3)) return InputPattern::omitted();
    return InputPattern::exactly(TensorType{x.dtype, {}}, defaultRange(x.dtype));
  }
  const size_t count = d.inputTypes[1].numel() / 2;
  if (count == r && rng.bernoulli(0.85)) return InputPattern::omitted();
  // Pads drawn for a few axes fit any of them; a full list keeps the axes in order.
  std::vector<int64_t> axes = randomPermutation(rng, static_cast<int>(r));
  if (count == r) std::sort(axes.begin(), axes.end());
  axes.resize(count);
  for (int64_t& a : axes)
    if (rng.bernoulli(0.3)) a -= static_cast<int64_t>(r);
  // int64: onnx 1.22's Pad inference reads int32 axes as int64 and fails (the schema allows both).
  return InputPattern::constantTensor(int64Tensor(axes));
}

// The pads of every axis: those of `axes` (all when absent) placed, the rest 0.
std::optional<std::vector<int64_t>> fullPads(const std::vector<int64_t>& pads, const Tensor* axes, size_t r,
                                             std::string& err) {
  if (!axes) {
    if (pads.size() == 2 * r) return pads;
    err = "pads must hold 2 * rank values";
    return std::nullopt;
  }
  const auto which = normalizeAxes(intsOf(*axes), static_cast<int>(r));
  if (!which) {
    err = "axes are out of range or repeat";
    return std::nullopt;
  }
  if (pads.size() != 2 * which->size()) {
    err = "pads must hold 2 values per axis";
    return std::nullopt;
  }
  std::vector<int64_t> full(2 * r, 0);
  for (size_t k = 0; k < which->size(); ++k) {
    full[static_cast<size_t>((*which)[k])] = pads[k];
    full[static_cast<size_t>((*which)[k]) + r] = pads[k + which->size()];
  }
  return full;
}

InferResult inferPad(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {"mode"}); !e.empty()) return InferResult::fail(e);
  if (args.attrs.hasWrongKind<std::string>("mode")) return InferResult::fail("mode must be a string");
  const auto mode = modeOf(args.attrs);
  if (!mode) return InferResult::fail("unknown mode " + args.attrs.getString("mode", ""));
  if (auto e = checkIndexVector(args, 1, "pads"); !e.empty()) return InferResult::fail(e);
  const TensorType& x = *args.inputs[0];
  const size_t r = x.shape.size();
  const bool hasAxes = args.inputs.size() > 3 && args.inputs[3];
  if (hasAxes)
    if (auto e = checkIndexVector(args, 3, "axes", true); !e.empty()) return InferResult::fail(e);
  std::string err;
  const auto full = fullPads(intsOf(*args.constants[1]), hasAxes ? args.constants[3] : nullptr, r, err);
  if (!full) return InferResult::fail(err);
  const std::vector<int64_t>& pads = *full;
  if (args.inputs.size() > 2 && args.inputs[2]) {
    const TensorType& v = *args.inputs[2];
    if (v.dtype != x.dtype) return InferResult::fail("constant_value differs in dtype from data");
    if (v.numel() != 1 || v.rank() > 1) return InferResult::fail("constant_value must be a scalar");
  }
  Shape out = x.shape;
  for (size_t i = 0; i < r; ++i) {
    const int64_t n = x.shape[i], b = pads[i], e = pads[i + r];
    if (b < -n || e < -n) return InferResult::fail("a pad crops more than the dim");
    const int64_t cropped = n + std::min<int64_t>(b, 0) + std::min<int64_t>(e, 0);
    if (cropped < 0) return InferResult::fail("pads crop more than the dim");
    if (b > (int64_t{1} << 40) || e > (int64_t{1} << 40)) return InferResult::fail("pads are too large");
    const bool grows = b > 0 || e > 0;
    if (*mode != PadMode::Constant && grows && cropped == 0)
      return InferResult::fail("edge and reflect cannot pad an empty dim");
    if (*mode == PadMode::Reflect && (b >= cropped || e >= cropped))
      return InferResult::fail("reflect pads must be smaller than the (cropped) dim");
    if (*mode == PadMode::Wrap && (b < 0 || e < 0 || b > n || e > n))
      return InferResult::fail("wrap pads must be in [0, dim] (crops are not modelled)");
    out[i] = cropped + std::max<int64_t>(b, 0) + std::max<int64_t>(e, 0);
  }
  return {{TensorType{x.dtype, out}}, {}};
}

void padKernel(KernelArgs& args) {
  const Tensor& in = *args.inputs[0];
  Tensor& out = args.outputs[0];
  const PadMode mode = *modeOf(args.attrs);
  std::string err;
  const bool hasAxes = args.inputs.size() > 3 && args.inputs[3];
  const auto pads = *fullPads(intsOf(*args.inputs[1]), hasAxes ? args.inputs[3] : nullptr, in.type.shape.size(), err);
  const double value = args.inputs.size() > 2 && args.inputs[2] ? args.inputs[2]->data[0] : 0.0;
  const Shape& shape = in.type.shape;
  const size_t r = shape.size();
  if (out.numel() == 0) return;
  if (r == 0) {
    out.data[0] = in.data[0];
    return;
  }
  // Where index k of a dim of n elements reads from (-1: the constant).
  const auto source = [mode](int64_t k, int64_t n) -> int64_t {
    if (k >= 0 && k < n) return k;
    if (mode == PadMode::Constant) return -1;
    if (mode == PadMode::Edge) k = std::clamp<int64_t>(k, 0, n - 1);
    if (mode == PadMode::Wrap) k = (k % n + n) % n;
    // Reflect without repeating the border; loops only for pads inference rejects.
    while (mode == PadMode::Reflect && (k < 0 || k >= n)) k = n == 1 ? 0 : k < 0 ? -k : 2 * (n - 1) - k;
    return k;
  };
  const auto strides = stridesOf(shape);
  // Row by row: the outer dims give a row's start once, the innermost dim is a plain loop.
  const size_t last = r - 1;
  Shape rows = out.type.shape;
  rows[last] = 1;
  std::vector<int64_t> index(r, 0);
  size_t flat = 0;
  do {
    int64_t start = 0;
    bool outside = false;
    for (size_t i = 0; i < last && !outside; ++i) {
      const int64_t k = source(index[i] - pads[i], shape[i]);
      outside = k < 0;
      start += k * strides[i];
    }
    for (int64_t j = 0; j < out.type.shape[last]; ++j) {
      const int64_t k = outside ? -1 : source(j - pads[last], shape[last]);
      out.data[flat++] = k < 0 ? value : in.data[static_cast<size_t>(start + k)];
    }
  } while (nextIndex(index, rows));
}

}  // namespace

const OpSpec& opPad() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Pad";
    s.sinceVersion = 13;
    s.minInputs = 2;
    s.maxInputs = 4;
    s.dtypes = kAllTypes;
    s.minRank = 1;
    s.constantInputs = 0b1010;
    s.attrs = {stringAttr("mode", {"constant", "reflect", "edge", "wrap"})};
    s.sampleAttrs = padAttrs;
    s.nextInput = padNext;
    s.infer = inferPad;
    s.reference = padKernel;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
