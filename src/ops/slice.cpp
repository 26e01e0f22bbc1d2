// slice.cpp - Slice (opset 13): starts, ends, axes (optional) and steps (optional) are
// constant int32 or int64 inputs of one dtype; negative indices count from the end, out
// of range ones clamp, steps may be negative.
//
// The sampler first picks, per sliced axis, an effective start/end/step with at least one
// element, then writes each bound in one of its equivalent forms (as is, negative, or
// far out of range such as INT32_MIN or 2^63 - 1024: an exported INT64_MAX would not
// survive a trip through double, see tensor.h), which is where implementations slip.
//
// The four index operands depend on each other, but nextInput only sees earlier operand
// types, not their contents. So every call draws the whole plan from a copy of the
// generator's Rng: instantiateOp draws nothing between constant (or omitted) operands,
// hence each call sees the same state and the same plan; the last call advances the Rng.
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace shapeops;

namespace {

struct SlicePlan {
  DType tind = DType::Int64;
  bool giveAxes = false, giveSteps = false;
  std::vector<int64_t> starts, ends, axes, steps;
};

int64_t typeMax(DType t) { return t == DType::Int32 ? 2147483647 : int64_t{9223372036854774784}; }
int64_t typeMin(DType t) { return t == DType::Int32 ? -2147483648LL : std::numeric_limits<int64_t>::min(); }

// A value >= n (clamps to the end).
int64_t farAbove(Rng& rng, DType t, int64_t n) {
  const double u = rng.uniformReal(0, 1);
  if (u < 0.5) return n + rng.uniformInt(0, 3);
  if (u < 0.75) return std::max<int64_t>(n, 1000);
  return typeMax(t);
}
// A value <= -n - extra (clamps to the front, or before it for extra >= 1).
int64_t farBelow(Rng& rng, DType t, int64_t n, int64_t extra) {
  const double u = rng.uniformReal(0, 1);
  if (u < 0.5) return -n - extra - rng.uniformInt(0, 3);
  if (u < 0.75) return std::min<int64_t>(-n - extra, -1000);
  return typeMin(t);
}

SlicePlan drawPlan(Rng& rng, const OpDraft& d) {
  SlicePlan p;
  const Shape& in = d.first().shape;
  const int r = d.first().rank();
  p.tind = rng.bernoulli(0.3) ? DType::Int32 : DType::Int64;
  const int k = static_cast<int>(rng.uniformInt(1, r));
  p.giveAxes = d.arity >= 4 && rng.bernoulli(0.8);
  p.giveSteps = d.arity >= 5 && rng.bernoulli(0.85);
  std::vector<int64_t> axes = randomPermutation(rng, r);
  axes.resize(static_cast<size_t>(k));
  if (!p.giveAxes)
    for (int j = 0; j < k; ++j) axes[static_cast<size_t>(j)] = j;
  for (int64_t a : axes) {
    const int64_t n = in[static_cast<size_t>(a)];
    int64_t step = 1;
    if (p.giveSteps) {
      step = rng.bernoulli(0.4) ? 1 : rng.uniformInt(1, n + 1);
      if (rng.bernoulli(0.05)) step = typeMax(p.tind);  // one element, whatever the bounds
      if (rng.bernoulli(0.4)) step = -step;
    }
    const int64_t st = rng.uniformInt(0, n - 1);
    int64_t rawStart = st, rawEnd;
    if (step > 0) {
      const int64_t en = rng.uniformInt(st + 1, n);
      if (st == 0 && rng.bernoulli(0.25)) rawStart = farBelow(rng, p.tind, n, 0);
      else if (rng.bernoulli(0.4)) rawStart = st - n;
      if (en == n) rawEnd = rng.bernoulli(0.4) ? farAbove(rng, p.tind, n) : n;
      else rawEnd = rng.bernoulli(0.4) ? en - n : en;
    } else {
      const int64_t en = rng.uniformInt(-1, st - 1);  // -1: through the front
      if (st == n - 1 && rng.bernoulli(0.25)) rawStart = farAbove(rng, p.tind, n);
      else if (rng.bernoulli(0.4)) rawStart = st - n;
      if (en == -1) rawEnd = farBelow(rng, p.tind, n, 1);
      else rawEnd = rng.bernoulli(0.4) ? en - n : en;
    }
    p.starts.push_back(rawStart);
    p.ends.push_back(rawEnd);
    p.axes.push_back(p.giveAxes ? maybeNegative(rng, a, r) : a);
    p.steps.push_back(step);
  }
  return p;
}

InputPattern sliceNext(const OpDraft& d) {
  const size_t i = d.inputTypes.size();
  Rng local = *d.rng;
  const SlicePlan p = drawPlan(local, d);
  if (static_cast<int>(i) == d.arity - 1) *d.rng = local;
  switch (i) {
    case 1: return InputPattern::constantTensor(indexTensor(p.tind, p.starts));
    case 2: return InputPattern::constantTensor(indexTensor(p.tind, p.ends));
    case 3: return p.giveAxes ? InputPattern::constantTensor(indexTensor(p.tind, p.axes)) : InputPattern::omitted();
    default: return p.giveSteps ? InputPattern::constantTensor(indexTensor(p.tind, p.steps)) : InputPattern::omitted();
  }
}

// Per input dim: the first element taken and the step (1 where not sliced).
struct Resolved {
  std::vector<int64_t> start, step;
  Shape out;
};

uint64_t magnitude(int64_t s) { return s < 0 ? uint64_t{0} - static_cast<uint64_t>(s) : static_cast<uint64_t>(s); }

// Resolves the slice against `in`, or gives the reason it is invalid.
std::variant<Resolved, std::string> resolve(const Shape& in, std::span<const Tensor* const> operands) {
  const auto starts = intsOf(*operands[1]), ends = intsOf(*operands[2]);
  const size_t k = starts.size();
  if (ends.size() != k) return std::string("starts and ends differ in length");
  std::vector<int64_t> axes(k), steps(k, 1);
  for (size_t j = 0; j < k; ++j) axes[j] = static_cast<int64_t>(j);
  if (operands.size() > 3 && operands[3]) axes = intsOf(*operands[3]);
  if (operands.size() > 4 && operands[4]) steps = intsOf(*operands[4]);
  if (axes.size() != k || steps.size() != k) return std::string("axes or steps differ in length from starts");
  const auto norm = normalizeAxes(axes, static_cast<int>(in.size()));
  if (!norm) return std::string("axes are out of range or repeat");
  Resolved r{std::vector<int64_t>(in.size(), 0), std::vector<int64_t>(in.size(), 1), in};
  for (size_t j = 0; j < k; ++j) {
    const auto a = static_cast<size_t>((*norm)[j]);
    const int64_t n = in[a], s = steps[j];
    if (s == 0) return std::string("a step is 0");
    int64_t st = starts[j], en = ends[j];
    if (st < 0) st += n;
    if (en < 0) en += n;
    int64_t len = 0;
    if (s > 0) {
      st = std::clamp<int64_t>(st, 0, n);
      en = std::clamp<int64_t>(en, 0, n);
      if (en > st) len = 1 + static_cast<int64_t>(static_cast<uint64_t>(en - st - 1) / magnitude(s));
    } else if (n > 0) {
      st = std::clamp<int64_t>(st, 0, n - 1);
      en = std::clamp<int64_t>(en, -1, n - 1);
      if (st > en) len = 1 + static_cast<int64_t>(static_cast<uint64_t>(st - en - 1) / magnitude(s));
    }
    r.start[a] = st;
    r.step[a] = s;
    r.out[a] = len;
  }
  return r;
}

InferResult inferSlice(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {}); !e.empty()) return InferResult::fail(e);
  static const char* names[] = {"data", "starts", "ends", "axes", "steps"};
  const DType tind = args.inputs[1] ? args.inputs[1]->dtype : DType::Int64;
  for (size_t i = 1; i < args.inputs.size(); ++i) {
    if (i >= 3 && !args.inputs[i]) continue;
    if (auto e = checkIndexVector(args, i, names[i], true); !e.empty()) return InferResult::fail(e);
    if (args.inputs[i]->dtype != tind) return InferResult::fail("index inputs differ in dtype");
  }
  auto r = resolve(args.inputs[0]->shape, args.constants);
  if (auto* why = std::get_if<std::string>(&r)) return InferResult::fail(*why);
  return {{TensorType{args.inputs[0]->dtype, std::get<Resolved>(r).out}}, {}};
}

void sliceKernel(KernelArgs& args) {
  const Tensor& in = *args.inputs[0];
  Tensor& out = args.outputs[0];
  const Resolved r = std::get<Resolved>(resolve(in.type.shape, args.inputs));
  if (out.numel() == 0) return;
  const auto strides = stridesOf(in.type.shape);
  std::vector<int64_t> index(out.type.shape.size(), 0);
  int64_t flat = 0;
  do {
    int64_t off = 0;
    for (size_t i = 0; i < index.size(); ++i) off += (r.start[i] + index[i] * r.step[i]) * strides[i];
    out.data[static_cast<size_t>(flat++)] = in.data[static_cast<size_t>(off)];
  } while (nextIndex(index, out.type.shape));
}

}  // namespace

const OpSpec& opSlice() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Slice";
    s.sinceVersion = 13;
    s.minInputs = 3;
    s.maxInputs = 5;
    s.dtypes = kAllTypes;
    s.minRank = 1;
    s.constantInputs = 0b11110;
    s.nextInput = sliceNext;
    s.infer = inferSlice;
    s.reference = sliceKernel;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
