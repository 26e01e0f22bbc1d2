// recurrent.cpp - RNN, GRU and LSTM (opset 14): one-layer recurrent cells over a sequence,
// forward, reverse or bidirectional, in layout 0 (X: seq x batch x input) or 1 (batch x
// seq x input).
//
// Operands: X, W (gates x hidden by input, per direction), R (the same by hidden), then
// the optional B (W and R biases), sequence_lens (int32, one length per batch entry),
// initial_h, and for LSTM initial_c and P (peepholes i, o, f). Results: Y (every step's
// hidden state, zeros past a sequence's length), Y_h (the last state) and for LSTM Y_c; all
// optional. Gate orders as ONNX: GRU z, r, h; LSTM i, o, f, c.
//
// activations (f for RNN; f, g for GRU; f, g, h for LSTM; per direction) may be any of the
// eleven ONNX lists. activation_alpha/activation_beta are consumed in order by the
// activations that take them (as ONNX Runtime reads them). Whether an activation that
// takes no alpha still consumes an entry is read differently by engines, so nnfuzz writes
// the lists only when every activation takes one; Affine, ThresholdedRelu and ScaledTanh
// have no agreed default, so inference wants their values given. clip bounds every gate's
// pre-activation; whether it bounds LSTM's h input (the cell state) too is read both ways
// (ONNX Runtime does not), so a cell state beyond clip is unstable. input_forget couples
// the LSTM forget gate to 1 - input gate. The only discontinuity is ThresholdedRelu's
// threshold: a pre-activation within a hair of it is unstable (and so is a Softplus input
// where float32 log(1 + exp(x)) overflows).
#include <algorithm>
#include <cmath>

#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

enum class Cell { Rnn, Gru, Lstm };

struct CellShape {
  int gates;        // weight blocks per direction in W and R
  int activations;  // per direction
  int inputs;       // operand slots
  int outputs;
};

constexpr CellShape shapeOf(Cell c) {
  switch (c) {
    case Cell::Rnn: return {1, 1, 6, 2};
    case Cell::Gru: return {3, 2, 6, 2};
    case Cell::Lstm: return {4, 3, 8, 3};
  }
  return {};
}

// ---- activations ----

struct ActivationInfo {
  std::string_view name;
  bool takesAlpha, takesBeta;
  double alpha, beta;  // defaults; NaN where engines disagree (must be given)
};

constexpr double kNoDefault = std::numeric_limits<double>::quiet_NaN();
constexpr double kSoftplusLimit = 30.0;

const ActivationInfo kActivations[] = {
    {"Relu", false, false, 0, 0},
    {"Tanh", false, false, 0, 0},
    {"Sigmoid", false, false, 0, 0},
    {"Affine", true, true, kNoDefault, 0.0},
    {"LeakyRelu", true, false, 0.01, 0},
    {"ThresholdedRelu", true, false, kNoDefault, 0},
    {"ScaledTanh", true, true, kNoDefault, kNoDefault},
    {"HardSigmoid", true, true, 0.2, 0.5},
    {"Elu", true, false, 1.0, 0},
    {"Softsign", false, false, 0, 0},
    {"Softplus", false, false, 0, 0},
};

const ActivationInfo* findActivation(std::string_view name) {
  for (const ActivationInfo& a : kActivations)
    if (a.name == name) return &a;
  return nullptr;
}

struct Activation {
  const ActivationInfo* info = nullptr;
  double alpha = 0, beta = 0;
};

double activate(const Activation& a, double x) {
  const std::string_view n = a.info->name;
  if (n == "Relu") return std::max(0.0, x);
  if (n == "Tanh") return std::tanh(x);
  if (n == "Sigmoid") return 1.0 / (1.0 + std::exp(-x));
  if (n == "Affine") return a.alpha * x + a.beta;
  if (n == "LeakyRelu") return x >= 0 ? x : a.alpha * x;
  if (n == "ThresholdedRelu") return x > a.alpha ? x : 0.0;
  if (n == "ScaledTanh") return a.alpha * std::tanh(a.beta * x);
  if (n == "HardSigmoid") return std::clamp(a.alpha * x + a.beta, 0.0, 1.0);
  if (n == "Elu") return x >= 0 ? x : a.alpha * (std::exp(x) - 1.0);
  if (n == "Softsign") return x / (1.0 + std::abs(x));
  return std::log1p(std::exp(x));  // Softplus
}

std::vector<std::string> defaultActivations(Cell c) {
  switch (c) {
    case Cell::Rnn: return {"Tanh"};
    case Cell::Gru: return {"Sigmoid", "Tanh"};
    case Cell::Lstm: return {"Sigmoid", "Tanh", "Tanh"};
  }
  return {};
}

int numDirections(const Attributes& attrs) { return attrs.getString("direction", "forward") == "bidirectional" ? 2 : 1; }

// The activations of every direction (forward's first), or an error.
std::vector<Activation> readActivations(Cell c, const Attributes& attrs, std::string& err) {
  const int dirs = numDirections(attrs);
  std::vector<std::string> names = attrs.getStrings("activations");
  if (!attrs.has("activations"))
    for (int d = 0; d < dirs; ++d)
      for (const std::string& n : defaultActivations(c)) names.push_back(n);
  if (names.size() != static_cast<size_t>(shapeOf(c).activations * dirs)) {
    err = "activations must list " + std::to_string(shapeOf(c).activations) + " per direction";
    return {};
  }
  const std::vector<double> alphas = attrs.getFloats("activation_alpha"), betas = attrs.getFloats("activation_beta");
  size_t nextAlpha = 0, nextBeta = 0;
  std::vector<Activation> out;
  for (const std::string& n : names) {
    Activation a;
    a.info = findActivation(n);
    if (!a.info) {
      err = "unknown activation " + n;
      return {};
    }
    if (a.info->takesAlpha) a.alpha = nextAlpha < alphas.size() ? alphas[nextAlpha++] : a.info->alpha;
    if (a.info->takesBeta) a.beta = nextBeta < betas.size() ? betas[nextBeta++] : a.info->beta;
    if (std::isnan(a.alpha) || std::isnan(a.beta)) {
      err = n + " needs its alpha and beta given (engines disagree on the defaults)";
      return {};
    }
    out.push_back(a);
  }
  return out;
}

// ---- sampling ----

// Activation lists nnfuzz writes: plain ones without parameter lists, or lists where every
// activation takes an alpha (and, with betas, a beta), so the reading is unambiguous.
const std::vector<std::string_view> kPlain{"Relu", "Tanh", "Sigmoid", "Softsign", "Softplus", "LeakyRelu", "HardSigmoid", "Elu"};
const std::vector<std::string_view> kAlphaOnly{"LeakyRelu", "ThresholdedRelu", "Elu", "HardSigmoid"};
const std::vector<std::string_view> kAlphaBeta{"Affine", "ScaledTanh", "HardSigmoid"};

void sampleActivations(Cell c, OpDraft& d, int dirs) {
  Rng& rng = *d.rng;
  const size_t n = static_cast<size_t>(shapeOf(c).activations * dirs);
  if (rng.bernoulli(0.6)) {
    if (rng.bernoulli(0.2)) {  // the defaults written out
      std::vector<std::string> names;
      for (int k = 0; k < dirs; ++k)
        for (const std::string& a : defaultActivations(c)) names.push_back(a);
      d.attrs.setStrings("activations", names);
    }
    return;
  }
  const int mode = static_cast<int>(rng.uniformInt(0, 2));
  const auto& pool = mode == 0 ? kPlain : mode == 1 ? kAlphaOnly : kAlphaBeta;
  std::vector<std::string> names(n);
  for (auto& s : names) s = std::string(rng.pick(pool));
  d.attrs.setStrings("activations", names);
  if (mode == 0) return;
  std::vector<double> alphas(n), betas(n);
  for (auto& a : alphas) a = rng.uniformReal(0.1, 1.0);
  for (auto& b : betas) b = rng.uniformReal(0.2, 0.8);
  d.attrs.setFloats("activation_alpha", alphas);
  if (mode == 2) d.attrs.setFloats("activation_beta", betas);
}

template <Cell C>
void sampleRecurrent(OpDraft& d) {
  Rng& rng = *d.rng;
  d.attrs.setInt("hidden_size", rng.uniformInt(1, std::min<int64_t>(4, d.limits->maxDim)));
  const double r = rng.uniformReal(0, 1);
  if (r < 0.5) {
    if (rng.bernoulli(0.3)) d.attrs.setString("direction", "forward");
  } else {
    d.attrs.setString("direction", r < 0.75 ? "reverse" : "bidirectional");
  }
  if (rng.bernoulli(0.3)) d.attrs.setInt("layout", rng.bernoulli(0.8) ? 1 : 0);
  sampleActivations(C, d, numDirections(d.attrs));
  if (rng.bernoulli(0.2)) d.attrs.setFloat("clip", rng.uniformReal(0.5, 3.0));
  if (C == Cell::Gru && rng.bernoulli(0.5)) d.attrs.setInt("linear_before_reset", rng.uniformInt(0, 1));
  if (C == Cell::Lstm && rng.bernoulli(0.15)) d.attrs.setInt("input_forget", rng.uniformInt(0, 1));
}

struct Dims {
  int64_t seq, batch, input, hidden, dirs;
  bool batchFirst;
};

Dims dimsOf(const Shape& x, const Attributes& attrs) {
  const bool batchFirst = attrs.getInt("layout", 0) == 1;
  return {batchFirst ? x[1] : x[0], batchFirst ? x[0] : x[1], x[2], attrs.getInt("hidden_size", 1), numDirections(attrs),
          batchFirst};
}

// initial_h / initial_c and Y_h / Y_c: [dirs, batch, hidden] (layout 1: [batch, dirs, hidden]).
Shape stateShape(const Dims& m) {
  return m.batchFirst ? Shape{m.batch, m.dirs, m.hidden} : Shape{m.dirs, m.batch, m.hidden};
}

template <Cell C>
InputPattern recurrentOperand(const OpDraft& d) {
  Rng& rng = *d.rng;
  const size_t k = d.inputTypes.size();
  const Dims m = dimsOf(d.first().shape, d.attrs);
  const DType t = d.first().dtype;
  const int64_t gh = shapeOf(C).gates * m.hidden;
  const ValueRange weights{-1.0, 1.0, 0.0};
  switch (k) {
    case 1: return InputPattern::exactly({t, {m.dirs, gh, m.input}}, weights);
    case 2: return InputPattern::exactly({t, {m.dirs, gh, m.hidden}}, weights);
    case 3: return rng.bernoulli(0.3) ? InputPattern::omitted() : InputPattern::exactly({t, {m.dirs, 2 * gh}}, weights);
    case 4: {
      if (rng.bernoulli(0.5)) return InputPattern::omitted();
      const TensorType lens{DType::Int32, {m.batch}};
      if (rng.bernoulli(0.5)) {
        Tensor c(lens);
        for (double& v : c.data) v = static_cast<double>(rng.uniformInt(1, m.seq));
        return InputPattern::constantTensor(std::move(c));
      }
      return InputPattern::exactly(lens, ValueRange{1.0, static_cast<double>(m.seq), 0.0});
    }
    case 5:
    case 6:
      return rng.bernoulli(0.4) ? InputPattern::omitted() : InputPattern::exactly({t, stateShape(m)}, defaultRange(t));
    default:
      return rng.bernoulli(0.5) ? InputPattern::omitted() : InputPattern::exactly({t, {m.dirs, 3 * m.hidden}}, weights);
  }
}

// ---- inference ----

template <Cell C>
InferResult inferRecurrent(const InferArgs& a) {
  std::string err = C == Cell::Rnn   ? unknownAttr(a.attrs, {"activation_alpha", "activation_beta", "activations", "clip",
                                                             "direction", "hidden_size", "layout"})
                    : C == Cell::Gru ? unknownAttr(a.attrs, {"activation_alpha", "activation_beta", "activations", "clip",
                                                             "direction", "hidden_size", "layout", "linear_before_reset"})
                                     : unknownAttr(a.attrs, {"activation_alpha", "activation_beta", "activations", "clip",
                                                             "direction", "hidden_size", "input_forget", "layout"});
  int64_t hidden = 0, layout = 0, flag = 0;
  double clip = 0;
  if (!err.empty() || !readInt(a.attrs, "hidden_size", 1, INT64_MAX, 0, hidden, err) ||
      !readInt(a.attrs, "layout", 0, 1, 0, layout, err) || !readFloat(a.attrs, "clip", 1.0, clip, err) ||
      !readInt(a.attrs, "linear_before_reset", 0, 1, 0, flag, err) || !readInt(a.attrs, "input_forget", 0, 1, 0, flag, err))
    return InferResult::fail(err);
  if (!a.attrs.has("hidden_size")) return InferResult::fail("hidden_size is required");
  if (!(clip > 0)) return InferResult::fail("clip must be positive");
  const std::string direction = a.attrs.getString("direction", "forward");
  if (a.attrs.hasWrongKind<std::string>("direction") ||
      (direction != "forward" && direction != "reverse" && direction != "bidirectional"))
    return InferResult::fail("direction must be forward, reverse or bidirectional");
  if (a.attrs.hasWrongKind<std::vector<std::string>>("activations") ||
      a.attrs.hasWrongKind<std::vector<double>>("activation_alpha") || a.attrs.hasWrongKind<std::vector<double>>("activation_beta"))
    return InferResult::fail("activations must be strings, activation_alpha and activation_beta floats");
  readActivations(C, a.attrs, err);
  if (!err.empty()) return InferResult::fail(err);

  const TensorType& x = *a.inputs[0];
  const Dims m = dimsOf(x.shape, a.attrs);
  const int64_t gh = shapeOf(C).gates * m.hidden;
  const Shape want[] = {{}, {m.dirs, gh, m.input}, {m.dirs, gh, m.hidden}, {m.dirs, 2 * gh}, {m.batch},
                        stateShape(m), stateShape(m), {m.dirs, 3 * m.hidden}};
  const char* names[] = {"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"};
  for (size_t k = 1; k < a.inputs.size(); ++k) {
    if (!a.inputs[k]) {
      if (k <= 2) return InferResult::fail(std::string(names[k]) + " is required");
      continue;
    }
    const DType dt = k == 4 ? DType::Int32 : x.dtype;
    if (a.inputs[k]->dtype != dt || a.inputs[k]->shape != want[k])
      return InferResult::fail(std::string(names[k]) + " must be " + toString(TensorType{dt, want[k]}));
  }
  if (a.inputs.size() > 4 && a.constants[4])
    for (double v : a.constants[4]->data)
      if (v < 1 || v > static_cast<double>(m.seq)) return InferResult::fail("a sequence length is out of [1, seq_length]");
  const Shape y = m.batchFirst ? Shape{m.batch, m.seq, m.dirs, m.hidden} : Shape{m.seq, m.dirs, m.batch, m.hidden};
  std::vector<TensorType> out{{x.dtype, y}, {x.dtype, stateShape(m)}};
  if (C == Cell::Lstm) out.push_back({x.dtype, stateShape(m)});
  return {out, {}};
}

// ---- reference ----

// Runs the cell; records in *gap the smallest relative distance of a ThresholdedRelu input
// to its threshold (0 for an LSTM cell state beyond clip or a huge Softplus input): below
// the margin is unstable.
template <Cell C>
void runRecurrent(KernelArgs& a, double* gap) {
  const Tensor& x = *a.inputs[0];
  const Dims m = dimsOf(x.type.shape, a.attrs);
  auto in = [&](size_t k) -> const Tensor* { return k < a.inputs.size() ? a.inputs[k] : nullptr; };
  const Tensor &w = *in(1), &r = *in(2);
  const Tensor *b = in(3), *lens = in(4), *h0 = in(5), *c0 = in(6), *p = in(7);
  std::string err;
  const std::vector<Activation> acts = readActivations(C, a.attrs, err);
  const bool clipped = a.attrs.has("clip");
  const double clip = a.attrs.getFloat("clip", 0);
  const bool linearBeforeReset = a.attrs.getInt("linear_before_reset", 0) == 1;
  const bool coupled = a.attrs.getInt("input_forget", 0) == 1;
  const std::string direction = a.attrs.getString("direction", "forward");
  const int nAct = shapeOf(C).activations;
  const int64_t H = m.hidden, I = m.input, G = shapeOf(C).gates;

  auto probe = [&](const Activation& f, double v) {
    if (!gap) return;
    if (f.info->name == "ThresholdedRelu") *gap = std::min(*gap, std::abs(v - f.alpha) / std::max(1.0, std::abs(f.alpha)));
    // log(1 + exp(x)) in float32 overflows from x ~ 88 (ONNX Runtime's formula): keep far off.
    if (f.info->name == "Softplus" && v > kSoftplusLimit) *gap = 0;
  };
  auto act = [&](int dir, int which, double v) {
    if (clipped) v = std::clamp(v, -clip, clip);
    const Activation& f = acts[static_cast<size_t>(dir * nAct + which)];
    probe(f, v);
    return activate(f, v);
  };
  auto xAt = [&](int64_t t, int64_t n, int64_t i) {
    return x.data[static_cast<size_t>((m.batchFirst ? n * m.seq + t : t * m.batch + n) * I + i)];
  };
  auto stateAt = [&](int64_t d, int64_t n) { return m.batchFirst ? (n * m.dirs + d) * H : (d * m.batch + n) * H; };
  auto yAt = [&](int64_t t, int64_t d, int64_t n) {
    return m.batchFirst ? ((n * m.seq + t) * m.dirs + d) * H : ((t * m.dirs + d) * m.batch + n) * H;
  };

  std::vector<double> h(static_cast<size_t>(H)), c(static_cast<size_t>(H)), xw(static_cast<size_t>(G * H)),
      hr(static_cast<size_t>(G * H)), next(static_cast<size_t>(H)), reset(static_cast<size_t>(H));
  for (int64_t d = 0; d < m.dirs; ++d) {
    const bool reverse = direction == "reverse" || d == 1;
    const double* W = w.data.data() + d * G * H * I;
    const double* R = r.data.data() + d * G * H * H;
    auto bias = [&](int64_t j, bool recurrent) {  // Wb (or Rb) of row j
      return b ? b->data[static_cast<size_t>(d * 2 * G * H + (recurrent ? G * H : 0) + j)] : 0.0;
    };
    auto peep = [&](int64_t gate, int64_t j) { return p ? p->data[static_cast<size_t>(d * 3 * H + gate * H + j)] : 0.0; };
    for (int64_t n = 0; n < m.batch; ++n) {
      const int64_t len = lens ? std::clamp<int64_t>(static_cast<int64_t>(lens->data[static_cast<size_t>(n)]), 0, m.seq) : m.seq;
      for (int64_t j = 0; j < H; ++j) {
        h[static_cast<size_t>(j)] = h0 ? h0->data[static_cast<size_t>(stateAt(d, n) + j)] : 0.0;
        c[static_cast<size_t>(j)] = c0 ? c0->data[static_cast<size_t>(stateAt(d, n) + j)] : 0.0;
      }
      for (int64_t s = 0; s < len; ++s) {
        const int64_t t = reverse ? len - 1 - s : s;
        for (int64_t row = 0; row < G * H; ++row) {  // X W^T + Wb and H R^T + Rb, per gate row
          double accX = bias(row, false), accH = bias(row, true);
          for (int64_t i = 0; i < I; ++i) accX += xAt(t, n, i) * W[row * I + i];
          for (int64_t i = 0; i < H; ++i) accH += h[static_cast<size_t>(i)] * R[row * H + i];
          xw[static_cast<size_t>(row)] = accX;
          hr[static_cast<size_t>(row)] = accH;
        }
        auto pre = [&](int64_t gate, int64_t j) { return xw[static_cast<size_t>(gate * H + j)] + hr[static_cast<size_t>(gate * H + j)]; };
        const int dir = static_cast<int>(d);
        if (C == Cell::Gru)  // the reset gate first: the candidate reads all of it
          for (int64_t j = 0; j < H; ++j) reset[static_cast<size_t>(j)] = act(dir, 0, pre(1, j));
        for (int64_t j = 0; j < H; ++j) {
          const auto J = static_cast<size_t>(j);
          if (C == Cell::Rnn) {
            next[J] = act(dir, 0, pre(0, j));
          } else if (C == Cell::Gru) {
            const double z = act(dir, 0, pre(0, j));
            double recurrent = hr[static_cast<size_t>(2 * H + j)];  // H R_h^T + Rb_h
            if (linearBeforeReset) {
              recurrent *= reset[J];
            } else {  // (r . H) R_h^T + Rb_h
              recurrent = bias(2 * H + j, true);
              for (int64_t i = 0; i < H; ++i)
                recurrent += reset[static_cast<size_t>(i)] * h[static_cast<size_t>(i)] * R[(2 * H + j) * H + i];
            }
            const double candidate = act(dir, 1, xw[static_cast<size_t>(2 * H + j)] + recurrent);
            next[J] = (1 - z) * candidate + z * h[J];
          } else {
            const double ig = act(dir, 0, pre(0, j) + peep(0, j) * c[J]);
            const double fg = coupled ? 1 - ig : act(dir, 0, pre(2, j) + peep(2, j) * c[J]);
            const double cg = act(dir, 1, pre(3, j));
            c[J] = fg * c[J] + ig * cg;
            const double og = act(dir, 0, pre(1, j) + peep(1, j) * c[J]);
            // h reads the cell state unclipped (as ONNX Runtime); engines that clip it
            // differ only where |C| > clip, which is unstable.
            if (gap && clipped && std::abs(c[J]) > clip) *gap = 0;
            const Activation& hAct = acts[static_cast<size_t>(dir * nAct + 2)];
            probe(hAct, c[J]);
            next[J] = og * activate(hAct, c[J]);
          }
        }
        h = next;
        for (int64_t j = 0; j < H; ++j) a.outputs[0].data[static_cast<size_t>(yAt(t, d, n) + j)] = h[static_cast<size_t>(j)];
      }
      // A zero length leaves zeros (as ONNX Runtime); lengths are kept >= 1 when generating.
      for (int64_t j = 0; j < H; ++j) {
        const auto at = static_cast<size_t>(stateAt(d, n) + j);
        a.outputs[1].data[at] = len > 0 ? h[static_cast<size_t>(j)] : 0.0;
        if (C == Cell::Lstm) a.outputs[2].data[at] = len > 0 ? c[static_cast<size_t>(j)] : 0.0;
      }
    }
  }
}

template <Cell C>
void recurrentKernel(KernelArgs& a) {
  runRecurrent<C>(a, nullptr);
}

template <Cell C>
bool recurrentUnstable(const KernelArgs& a) {
  std::string err;
  bool risky = C == Cell::Lstm && a.attrs.has("clip");
  for (const Activation& f : readActivations(C, a.attrs, err))
    risky = risky || f.info->name == "ThresholdedRelu" || f.info->name == "Softplus";
  if (!risky) return false;
  std::vector<Tensor> scratch;
  for (const Tensor& o : a.outputs) scratch.emplace_back(o.type);
  KernelArgs again{a.inputs, a.attrs, scratch};
  double gap = 1.0;
  runRecurrent<C>(again, &gap);
  return gap < kStabilityMargin;
}

// Each step multiplies the input by W and the state by R, for every sequence and batch row.
double recurrenceWork(const WorkArgs& a) {
  const TensorType &x = *a.inputs[0], &w = *a.inputs[1], &r = *a.inputs[2];
  const double rows = elementCount(x) / static_cast<double>(std::max<int64_t>(x.shape.back(), 1));
  return rows * (elementCount(w) + elementCount(r));
}

template <Cell C>
OpSpec recurrentSpec(std::string_view name) {
  OpSpec t;
  t.name = name;
  t.sinceVersion = 14;
  t.minInputs = 3;
  t.maxInputs = shapeOf(C).inputs;
  t.dtypes = kFloatTypes;
  t.minRank = t.maxRank = 3;
  t.optionalOutputs = C == Cell::Lstm ? 0b111u : 0b11u;
  std::vector<std::string_view> names;
  for (const ActivationInfo& a : kActivations) names.push_back(a.name);
  t.attrs = {{"activation_alpha", AttrKind::Floats, 0.1, 1.0, 1, 6, {}},
             {"activation_beta", AttrKind::Floats, 0.2, 0.8, 1, 6, {}},
             {"activations", AttrKind::Strings, 0, 0, shapeOf(C).activations, 2 * shapeOf(C).activations, names},
             floatAttr("clip", 0.5, 3.0),
             {"direction", AttrKind::String, 0, 0, 0, 0, {"forward", "reverse", "bidirectional"}},
             intAttr("hidden_size", 1, 4),
             intAttr("layout", 0, 1)};
  if (C == Cell::Gru) t.attrs.push_back(intAttr("linear_before_reset", 0, 1));
  if (C == Cell::Lstm) t.attrs.push_back(intAttr("input_forget", 0, 1));
  t.sampleAttrs = sampleRecurrent<C>;
  t.nextInput = recurrentOperand<C>;
  t.infer = inferRecurrent<C>;
  t.reference = recurrentKernel<C>;
  t.work = recurrenceWork;
  t.unstable = recurrentUnstable<C>;
  return t;
}

}  // namespace

const OpSpec& opRNN() {
  static const OpSpec s = recurrentSpec<Cell::Rnn>("RNN");
  return s;
}

const OpSpec& opGRU() {
  static const OpSpec s = recurrentSpec<Cell::Gru>("GRU");
  return s;
}

const OpSpec& opLSTM() {
  static const OpSpec s = recurrentSpec<Cell::Lstm>("LSTM");
  return s;
}

}  // namespace nnfuzz
