// loss.cpp - NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opset 13), the losses
// inference graphs keep from training exports. Input [N, C] or [N, C, d1, ...], integer
// targets [N, d1, ...] holding classes in [0, C) (or `ignore_index`, whose elements count
// for nothing), optional per-class weights [C]. Per element: loss = -x[n, t, d...] * w[t]
// (w = 1 without weights); `reduction` none keeps them, sum adds them, mean (default)
// divides the sum by the sum of the weights applied (ignored elements count 0).
// SoftmaxCrossEntropyLoss applies the loss to log_softmax(scores) along axis 1 and also
// returns that log_prob.
//
// A target outside [0, C) that is not ignore_index is undefined (ONNX Runtime rejects it):
// generated targets stay in range (their value domain), and the kernel refuses the others,
// so a reduced or mutated case that shrinks C under its targets is dropped, not compared.
// A mean over nothing but ignored elements is 0 / 0 and unstable.
#include <cmath>

#include "ops/nn_util.h"
#include "support/error.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

inline constexpr std::string_view kReductions[] = {"none", "sum", "mean"};

TensorType sampleScores(Rng& rng, const Limits& limits, DType dtype) {
  const int rank = static_cast<int>(rng.uniformInt(2, std::max(2, std::min(4, limits.maxRank))));
  return {dtype, sampleShape(rng, limits, rank)};
}

void sampleLoss(OpDraft& d) {
  Rng& rng = *d.rng;
  if (rng.bernoulli(0.7)) d.attrs.setString("reduction", std::string(rng.pick(std::vector<std::string_view>(std::begin(kReductions), std::end(kReductions)))));
  if (rng.bernoulli(0.3)) d.attrs.setInt("ignore_index", rng.uniformInt(-1, d.first().shape[1] - 1));
}

Shape targetShape(const Shape& x) {
  Shape t = x;
  t.erase(t.begin() + 1);
  return t;
}

// Targets (classes, ignore_index included when it is negative), then weights now and then.
InputPattern lossOperand(const OpDraft& d) {
  const TensorType& x = d.first();
  const int64_t classes = x.shape[1];
  if (d.inputTypes.size() == 1) {
    const DType dtype = d.rng->bernoulli(0.3) ? DType::Int32 : DType::Int64;
    const double lo = std::min<double>(0, static_cast<double>(d.attrs.getInt("ignore_index", 0)));
    return InputPattern::exactly(TensorType{dtype, targetShape(x.shape)}, ValueRange{lo, static_cast<double>(classes - 1), 0});
  }
  if (d.rng->bernoulli(0.4)) return InputPattern::omitted();
  return InputPattern::exactly(TensorType{x.dtype, {classes}}, ValueRange{0.25, 2.0, 0});
}

InferResult inferLoss(const InferArgs& a, bool withLogProb) {
  std::string err = unknownAttr(a.attrs, {"ignore_index", "reduction"});
  int64_t ignore = 0;
  if (!err.empty() || !readInt(a.attrs, "ignore_index", INT64_MIN, INT64_MAX, 0, ignore, err)) return InferResult::fail(err);
  const std::string reduction = a.attrs.getString("reduction", "mean");
  if (std::find(std::begin(kReductions), std::end(kReductions), reduction) == std::end(kReductions))
    return InferResult::fail("reduction must be none, sum or mean");
  const TensorType& x = *a.inputs[0];
  if (a.inputs.size() < 2 || !a.inputs[1]) return InferResult::fail("the target is required");
  const TensorType& t = *a.inputs[1];
  if (t.dtype != DType::Int32 && t.dtype != DType::Int64) return InferResult::fail("the target must be int32 or int64");
  if (t.shape != targetShape(x.shape)) return InferResult::fail("the target must be the input's shape without axis 1");
  if (a.inputs.size() > 2 && a.inputs[2]) {
    const TensorType& w = *a.inputs[2];
    if (w.dtype != x.dtype || w.shape != Shape{x.shape[1]}) return InferResult::fail("the weights must be [C] of the input's dtype");
  }
  std::vector<TensorType> out{TensorType{x.dtype, reduction == "none" ? t.shape : Shape{}}};
  if (withLogProb) out.push_back(x);
  return {out, {}};
}

// Writes the loss of log-probabilities `logp` (laid out as the input) into out.
void lossOf(const std::vector<double>& logp, const Shape& shape, const Tensor& target, const Tensor* weight,
            const Attributes& attrs, Tensor& out) {
  const int64_t n = shape[0], classes = shape[1], inner = product(shape, 2);
  const bool hasIgnore = attrs.has("ignore_index");
  const int64_t ignore = attrs.getInt("ignore_index", 0);
  const std::string reduction = attrs.getString("reduction", "mean");
  double sum = 0, weights = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < inner; ++k) {
      const auto at = static_cast<size_t>(i * inner + k);
      const auto t = static_cast<int64_t>(target.data[at]);
      double loss = 0;
      if (!(hasIgnore && t == ignore) && (t < 0 || t >= classes))
        throw Error("target " + std::to_string(t) + " is out of range for " + std::to_string(classes) + " classes");
      if (!(hasIgnore && t == ignore)) {
        const double w = weight ? weight->data[static_cast<size_t>(t)] : 1.0;
        loss = -logp[static_cast<size_t>((i * classes + t) * inner + k)] * w;
        weights += w;
      }
      sum += loss;
      if (reduction == "none") out.data[at] = loss;
    }
  if (reduction == "sum") out.data[0] = sum;
  if (reduction == "mean") out.data[0] = sum / weights;
}

const Tensor* weightOf(const KernelArgs& a) { return a.inputs.size() > 2 ? a.inputs[2] : nullptr; }

void nllKernel(KernelArgs& a) { lossOf(a.inputs[0]->data, a.inputs[0]->type.shape, *a.inputs[1], weightOf(a), a.attrs, a.outputs[0]); }

std::vector<double> logSoftmax(const Tensor& x) {
  std::vector<double> out(x.data.size());
  forEachLine(x.type.shape, 1, [&](int64_t start, int64_t stride, int64_t len, int64_t) {
    double peak = -INFINITY, sum = 0;
    for (int64_t c = 0; c < len; ++c) peak = std::max(peak, x.data[static_cast<size_t>(start + c * stride)]);
    for (int64_t c = 0; c < len; ++c) sum += std::exp(x.data[static_cast<size_t>(start + c * stride)] - peak);
    for (int64_t c = 0; c < len; ++c)
      out[static_cast<size_t>(start + c * stride)] = x.data[static_cast<size_t>(start + c * stride)] - peak - std::log(sum);
  });
  return out;
}

void sceKernel(KernelArgs& a) {
  const std::vector<double> logp = logSoftmax(*a.inputs[0]);
  lossOf(logp, a.inputs[0]->type.shape, *a.inputs[1], weightOf(a), a.attrs, a.outputs[0]);
  if (a.outputs.size() > 1) a.outputs[1].data = logp;
}

// A mean whose applied weights sum to 0 (every element ignored).
bool lossUnstable(const KernelArgs& a) {
  if (a.attrs.getString("reduction", "mean") != "mean") return false;
  const Tensor* w = weightOf(a);
  const int64_t classes = a.inputs[0]->type.shape[1];
  const bool hasIgnore = a.attrs.has("ignore_index");
  const int64_t ignore = a.attrs.getInt("ignore_index", 0);
  double weights = 0;
  for (double v : a.inputs[1]->data) {
    const auto t = static_cast<int64_t>(v);
    if (!(hasIgnore && t == ignore) && t >= 0 && t < classes) weights += w ? w->data[static_cast<size_t>(t)] : 1.0;
  }
  return weights < kStabilityMargin;
}

OpSpec lossSpec(std::string_view name, bool withLogProb) {
  OpSpec t;
  t.name = name;
  t.sinceVersion = 13;
  t.minInputs = 2;
  t.maxInputs = 3;
  t.dtypes = kFloatTypes;
  t.minRank = 2;
  t.maxRank = 8;  // [N, C, d1, ..., d6]: the node tests go to d5
  AttrSpec reduction;
  reduction.name = "reduction";
  reduction.kind = AttrKind::String;
  reduction.choices = {"none", "sum", "mean"};
  t.attrs = {reduction, intAttr("ignore_index", -1, 4)};
  t.acceptsFirst = [](const TensorType& x, const Limits&) { return x.rank() >= 2; };
  t.sampleFirst = sampleScores;
  t.sampleAttrs = sampleLoss;
  t.nextInput = lossOperand;
  t.infer = withLogProb ? +[](const InferArgs& a) { return inferLoss(a, true); } : +[](const InferArgs& a) { return inferLoss(a, false); };
  t.reference = withLogProb ? sceKernel : nllKernel;
  t.unstable = lossUnstable;
  return t;
}

}  // namespace

const OpSpec& opNegativeLogLikelihoodLoss() {
  static const OpSpec s = lossSpec("NegativeLogLikelihoodLoss", false);
  return s;
}

const OpSpec& opSoftmaxCrossEntropyLoss() {
  static const OpSpec s = lossSpec("SoftmaxCrossEntropyLoss", true);
  return s;
}

}  // namespace nnfuzz
