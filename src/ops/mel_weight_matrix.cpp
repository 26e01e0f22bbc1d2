// mel_weight_matrix.cpp - MelWeightMatrix (opset 17): the [dft_length / 2 + 1, num_mel_bins]
// matrix of triangular filters that maps a one-sided spectrum to mel bands. All five
// inputs are scalar constants (num_mel_bins, dft_length, sample_rate as int32/int64,
// lower_edge_hertz and upper_edge_hertz as float), so the shape is static.
//
// As ONNX's reference: num_mel_bins + 2 points spaced evenly in mel between the edges
// (the step divides by num_mel_bins + 2, so the last point lies below upper_edge_hertz),
// each point's bin floor((dft_length + 1) * hz / sample_rate); filter i rises from point i
// to point i + 1 and falls to point i + 2 (a filter whose rise is empty is 1 at its centre).
// A point within a hair of a bin boundary is unstable (float32 engines may floor it the
// other way). Edges whose points fall beyond the spectrum are rejected; integer output
// types too (they truncate fractions of [0, 1]).
#include <cmath>

#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

struct MelArgs {
  int64_t mels = 0, length = 0;
  double rate = 0, lower = 0, upper = 0;
};

double hzToMel(double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); }
double melToHz(double mel) { return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0); }

// (dft_length + 1) * hz / sample_rate of each of the num_mel_bins + 2 points, unfloored.
std::vector<double> pointBins(const MelArgs& m) {
  const double lo = hzToMel(m.lower), step = (hzToMel(m.upper) - lo) / static_cast<double>(m.mels + 2);
  std::vector<double> out;
  for (int64_t i = 0; i < m.mels + 2; ++i)
    out.push_back(static_cast<double>(m.length + 1) * melToHz(static_cast<double>(i) * step + lo) / m.rate);
  return out;
}

MelArgs melArgs(std::span<const Tensor* const> c) {
  return {shapeops::saturatingInt(c[0]->data[0]), shapeops::saturatingInt(c[1]->data[0]), c[2]->data[0], c[3]->data[0],
          c[4]->data[0]};
}

Tensor sampleMels(Rng& rng, const Limits& limits) {
  return Tensor(TensorType{rng.bernoulli(0.25) ? DType::Int32 : DType::Int64, {}}, {static_cast<double>(rng.uniformInt(1, limits.maxDim))});
}

void sampleMelAttrs(OpDraft& d) {
  if (d.rng->bernoulli(0.4)) d.attrs.setInt("output_datatype", onnxElemType(d.rng->bernoulli(0.5) ? DType::Float32 : DType::Float64));
}

// dft_length and sample_rate in num_mel_bins' dtype; the edges float32, the upper one below
// a Nyquist frequency shrunk so the last point's bin stays inside the spectrum.
InputPattern melOperand(const OpDraft& d) {
  Rng& rng = *d.rng;
  const DType intType = d.first().dtype;
  auto scalar = [](DType t, double v) { return InputPattern::constantTensor(Tensor(TensorType{t, {}}, {v})); };
  switch (d.inputTypes.size()) {
    case 1:
      return scalar(intType, static_cast<double>(rng.uniformInt(4, 8 * d.limits->maxDim)));
    case 2: {
      static constexpr double kRates[] = {8000, 16000, 22050, 44100, 48000};
      return scalar(intType, rng.bernoulli(0.7) ? rng.pick(std::vector<double>(std::begin(kRates), std::end(kRates)))
                                                 : static_cast<double>(rng.uniformInt(100, 48000)));
    }
    case 3:
      return scalar(DType::Float32, static_cast<float>(rng.bernoulli(0.3) ? 0.0 : rng.uniformReal(0, d.constants[2]->data[0] / 8)));
    default: {
      const double rate = d.constants[2]->data[0], lower = d.constants[3]->data[0];
      const auto length = static_cast<double>(d.constants[1]->data[0]);
      const double nyquist = rate / 2 * length / (length + 1);
      return scalar(DType::Float32, static_cast<float>(rng.uniformReal(lower + (nyquist - lower) * 0.2, nyquist * 0.999)));
    }
  }
}

InferResult inferMel(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"output_datatype"});
  int64_t elemType = 1;
  if (!err.empty() || !readInt(a.attrs, "output_datatype", INT64_MIN, INT64_MAX, 1, elemType, err)) return InferResult::fail(err);
  const auto dtype = dtypeFromOnnx(static_cast<int>(elemType));
  if (!dtype || !isFloat(*dtype)) return InferResult::fail("output_datatype must be float or double (integer weights truncate fractions)");
  static constexpr const char* kNames[] = {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"};
  for (size_t i = 0; i < 5; ++i) {
    if (i >= a.inputs.size() || !a.inputs[i]) return InferResult::fail("all five inputs are required");
    const TensorType& t = *a.inputs[i];
    const bool intOperand = i < 3;
    if (t.rank() != 0 || (intOperand ? !shapeops::isIndexType(t.dtype) || t.dtype != a.inputs[0]->dtype : !isFloat(t.dtype)))
      return InferResult::fail(std::string(kNames[i]) + (intOperand ? " must be an int scalar of num_mel_bins' dtype" : " must be a float scalar"));
    if (!a.constants[i]) return InferResult::fail(std::string(kNames[i]) + " must be a constant");
  }
  if (a.inputs[4]->dtype != a.inputs[3]->dtype) return InferResult::fail("the edges must share a dtype");
  const MelArgs m = melArgs(a.constants);
  if (m.mels < 1 || m.length < 1 || m.mels > (1 << 16) || m.length > (1 << 20)) return InferResult::fail("num_mel_bins and dft_length must be positive");
  if (!(m.rate > 0) || !(m.lower >= 0) || !(m.upper > m.lower)) return InferResult::fail("needs sample_rate > 0 and 0 <= lower edge < upper edge");
  const int64_t bins = m.length / 2 + 1;
  if (std::floor(pointBins(m).back()) >= static_cast<double>(bins))
    return InferResult::fail("the upper edge lies beyond the spectrum (its bin is past dft_length / 2)");
  return {{TensorType{*dtype, {bins, m.mels}}}, {}};
}

void melKernel(KernelArgs& a) {
  const MelArgs m = melArgs(a.inputs);
  std::vector<int64_t> p;
  for (double b : pointBins(m)) p.push_back(static_cast<int64_t>(std::floor(b)));
  std::vector<double>& out = a.outputs[0].data;
  auto at = [&](int64_t row, int64_t col) -> double& { return out[static_cast<size_t>(row * m.mels + col)]; };
  for (int64_t i = 0; i < m.mels; ++i) {
    const int64_t left = p[static_cast<size_t>(i)], centre = p[static_cast<size_t>(i + 1)], right = p[static_cast<size_t>(i + 2)];
    if (centre == left) at(centre, i) = 1;
    else
      for (int64_t j = left; j <= centre; ++j) at(j, i) = static_cast<double>(j - left) / static_cast<double>(centre - left);
    for (int64_t j = centre; j < right; ++j) at(j, i) = static_cast<double>(right - j) / static_cast<double>(right - centre);
  }
}

bool melUnstable(const KernelArgs& a) {
  for (double b : pointBins(melArgs(a.inputs)))
    if (b > 0 && distanceToInteger(b) < kStabilityMargin * std::max(1.0, b)) return true;
  return false;
}

}  // namespace

const OpSpec& opMelWeightMatrix() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "MelWeightMatrix";
    t.sinceVersion = 17;
    t.minInputs = t.maxInputs = 5;
    t.dtypes = {DType::Int32, DType::Int64};
    t.minRank = t.maxRank = 0;
    t.constantInputs = 0b11111;
    t.attrs = {intAttr("output_datatype", 1, 11)};
    t.sampleConstantFirst = sampleMels;
    t.sampleAttrs = sampleMelAttrs;
    t.nextInput = melOperand;
    t.infer = inferMel;
    t.reference = melKernel;
    t.unstable = melUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
