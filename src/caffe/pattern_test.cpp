// pattern_test.cpp - runs of ONNX nodes written as one Caffe layer (pattern.h): each run
// becomes the layer with its parameters, and what Caffe computes from those parameters
// (its forward pass restated here from the layer sources' formulas) equals nnfuzz's
// reference on the ONNX run. A run that another node reads inside is not fused.
#include <cmath>
#include <functional>

#include <gtest/gtest.h>

#include "caffe/export.h"
#include "interp/interpreter.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

const nnfuzz::caffe::LayerParameter& lastLayer(const CaffeModel& m) { return m.weights.layer(m.weights.layer_size() - 1); }

Tensor ramp(const Shape& shape, double from, double step) {
  Tensor t(TensorType{DType::Float32, shape});
  for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = from + step * static_cast<double>(i);
  return t;
}

/// The ONNX run's result on `x` from the reference, against Caffe's formula per element.
void expectElementwise(const Graph& g, const Tensor& x, const std::function<double(double)>& caffe) {
  const Tensor y = runGraph(g, {x}).at(0);
  ASSERT_EQ(y.numel(), x.numel());
  for (size_t i = 0; i < x.data.size(); ++i) EXPECT_NEAR(y.data[i], caffe(x.data[i]), 1e-4 * (1 + std::abs(y.data[i]))) << i;
}

TEST(CaffePatterns, PowerExpLogTakeAllThreeParameters) {
  const Graph power = parseGraph(R"(graph {
  %0 = input f32[2,3]
  %1 = weight f32[1] [0.5]
  %2 = Mul(%0, %1) : f32[2,3]
  %3 = weight f32[1] [2.0]
  %4 = Add(%2, %3) : f32[2,3]
  %5 = weight f32[1] [1.5]
  %6 = Pow(%4, %5) : f32[2,3]
  return %6
})");
  const CaffeModel pm = exportCaffe(power);
  ASSERT_EQ(pm.weights.layer_size(), 2) << deployText(pm);
  const auto& pp = lastLayer(pm).power_param();
  EXPECT_EQ(lastLayer(pm).type(), "Power");
  expectElementwise(power, ramp({2, 3}, -1, 0.5),
                    [&](double x) { return std::pow(pp.shift() + pp.scale() * x, pp.power()); });

  const Graph exp = parseGraph(R"(graph {
  %0 = input f32[2,3]
  %1 = weight f32[1] [-0.5]
  %2 = Mul(%0, %1) : f32[2,3]
  %3 = weight f32[1] [0.25]
  %4 = Add(%2, %3) : f32[2,3]
  %5 = weight f32[1] [0.6931472]
  %6 = Mul(%4, %5) : f32[2,3]
  %7 = Exp(%6) : f32[2,3]
  return %7
})");
  const CaffeModel em = exportCaffe(exp);
  ASSERT_EQ(em.weights.layer_size(), 2) << deployText(em);
  const auto& ep = lastLayer(em).exp_param();
  EXPECT_EQ(lastLayer(em).type(), "Exp");
  EXPECT_NEAR(ep.base(), 2.0, 1e-5);
  // exp_layer.cpp: outer_scale = base^shift, inner_scale = ln(base) * scale.
  expectElementwise(exp, ramp({2, 3}, -1, 0.5), [&](double x) {
    return std::pow(ep.base(), ep.shift()) * std::exp(std::log(ep.base()) * ep.scale() * x);
  });

  const Graph log = parseGraph(R"(graph {
  %0 = input f32[2,3]
  %1 = weight f32[1] [2.0]
  %2 = Mul(%0, %1) : f32[2,3]
  %3 = weight f32[1] [3.0]
  %4 = Add(%2, %3) : f32[2,3]
  %5 = Log(%4) : f32[2,3]
  %6 = weight f32[1] [0.4342945]
  %7 = Mul(%5, %6) : f32[2,3]
  return %7
})");
  const CaffeModel lm = exportCaffe(log);
  ASSERT_EQ(lm.weights.layer_size(), 2) << deployText(lm);
  const auto& lp = lastLayer(lm).log_param();
  EXPECT_EQ(lastLayer(lm).type(), "Log");
  EXPECT_NEAR(lp.base(), 10.0, 1e-4);
  expectElementwise(log, ramp({2, 3}, -1, 0.5),
                    [&](double x) { return std::log(lp.shift() + lp.scale() * x) / std::log(lp.base()); });
}

TEST(CaffePatterns, ARunReadInsideIsNotFused) {
  // The Add's result is also a graph output: no layer would write it inside one Power.
  const CaffeModel m = exportCaffe(parseGraph(R"(graph {
  %0 = input f32[2,3]
  %1 = weight f32[1] [0.5]
  %2 = Mul(%0, %1) : f32[2,3]
  %3 = weight f32[1] [2.0]
  %4 = Add(%2, %3) : f32[2,3]
  %5 = weight f32[1] [1.5]
  %6 = Pow(%4, %5) : f32[2,3]
  return %6, %4
})"));
  EXPECT_EQ(m.weights.layer_size(), 4);  // Input and three Power layers, one per node
  // ArgMax alone (its int64 result read elsewhere) has no Caffe form.
  EXPECT_NE(caffeProblem(parseGraph(R"(graph {
  %0 = input f32[2,3]
  %1 = ArgMax(%0) {axis=1, keepdims=1} : i64[2,1]
  %2 = Cast(%1) {to=1} : f32[2,1]
  %3 = Cast(%1) {to=1} : f32[2,1]
  return %2, %3
})")), "");
}

TEST(CaffePatterns, ReductionWithCoeffAndArgMaxAsFloat) {
  const Graph red = parseGraph(R"(graph {
  %0 = input f32[2,3,4]
  %1 = ReduceSumSquare(%0) {axes=[1,2], keepdims=0} : f32[2]
  %2 = weight f32[1] [0.25]
  %3 = Mul(%1, %2) : f32[2]
  return %3
})");
  const CaffeModel rm = exportCaffe(red);
  ASSERT_EQ(rm.weights.layer_size(), 2);
  const auto& rp = lastLayer(rm).reduction_param();
  EXPECT_EQ(rp.operation(), nnfuzz::caffe::ReductionParameter::SUMSQ);
  EXPECT_EQ(rp.axis(), 1);
  const Tensor x = ramp({2, 3, 4}, -1, 0.1);
  const Tensor y = runGraph(red, {x}).at(0);
  for (int i = 0; i < 2; ++i) {  // reduction_layer.cpp: coeff * sum of squares over axes >= axis
    double s = 0;
    for (int j = 0; j < 12; ++j) s += x.data[static_cast<size_t>(i * 12 + j)] * x.data[static_cast<size_t>(i * 12 + j)];
    EXPECT_NEAR(y.data[static_cast<size_t>(i)], rp.coeff() * s, 1e-4);
  }

  const Graph arg = parseGraph(R"(graph {
  %0 = input f32[2,3,2]
  %1 = ArgMax(%0) {axis=-2, keepdims=1} : i64[2,1,2]
  %2 = Cast(%1) {to=1} : f32[2,1,2]
  return %2
})");
  const CaffeModel am = exportCaffe(arg);
  ASSERT_EQ(am.weights.layer_size(), 2);
  EXPECT_EQ(lastLayer(am).type(), "ArgMax");
  EXPECT_EQ(lastLayer(am).argmax_param().axis(), 1);
  EXPECT_FALSE(lastLayer(am).argmax_param().out_max_val());
  const Tensor ax(TensorType{DType::Float32, {2, 3, 2}}, {1, 9, 5, 2, 3, 4, 0, 1, 7, 8, 6, 0});
  EXPECT_EQ(runGraph(arg, {ax}).at(0).data, (std::vector<double>{1, 0, 1, 1}));  // the index, as a float
}

TEST(CaffePatterns, CropTakesAnEarlierBlobOfItsSize) {
  const char* text = R"(graph {
  %0 = input f32[1,2,6,6]
  %1 = MaxPool(%0) {kernel_shape=[2,2], strides=[2,2]} : f32[1,2,3,3]
  %2 = weight i64[2] [1, 2]
  %3 = weight i64[2] [4, 5]
  %4 = weight i64[2] [2, 3]
  %5 = Slice(%0, %2, %3, %4) : f32[1,2,3,3]
  return %5, %1
})";
  const Graph g = parseGraph(text);
  const CaffeModel m = exportCaffe(g);
  const auto& crop = lastLayer(m);
  EXPECT_EQ(crop.type(), "Crop");
  ASSERT_EQ(crop.bottom_size(), 2);
  EXPECT_EQ(crop.bottom(1), m.weights.layer(1).top(0));  // the pooled map gives the size
  EXPECT_EQ(crop.crop_param().axis(), 2);
  ASSERT_EQ(crop.crop_param().offset_size(), 2);
  EXPECT_EQ(crop.crop_param().offset(0), 1u);
  EXPECT_EQ(crop.crop_param().offset(1), 2u);
  // crop_layer.cpp: out[n][c][h][w] = in[n][c][h + 1][w + 2].
  const Tensor x = ramp({1, 2, 6, 6}, 0, 1);
  const Tensor y = runGraph(g, {x}).at(0);
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 3; ++h)
      for (int w = 0; w < 3; ++w)
        EXPECT_EQ(y.data[static_cast<size_t>((c * 3 + h) * 3 + w)], x.data[static_cast<size_t>((c * 6 + h + 1) * 6 + w + 2)]);
  // Without a blob of the cropped size before it, the Slice has no Caffe form.
  EXPECT_NE(caffeProblem(parseGraph(R"(graph {
  %0 = input f32[1,2,6,5]
  %1 = weight i64[1] [1]
  %2 = weight i64[1] [4]
  %3 = weight i64[1] [3]
  %4 = Slice(%0, %1, %2, %3) : f32[1,2,6,3]
  return %4
})")), "");
}

TEST(CaffePatterns, LrnWithinChannelIsItsFormula) {
  const Graph g = parseGraph(R"(graph {
  %0 = input f32[1,2,3,4]
  %1 = Mul(%0, %0) : f32[1,2,3,4]
  %2 = AveragePool(%1) {count_include_pad=1, kernel_shape=[3,3], pads=[1,1,1,1], strides=[1,1]} : f32[1,2,3,4]
  %3 = weight f32[1] [0.5]
  %4 = Mul(%2, %3) : f32[1,2,3,4]
  %5 = weight f32[1] [1.0]
  %6 = Add(%4, %5) : f32[1,2,3,4]
  %7 = weight f32[1] [-0.75]
  %8 = Pow(%6, %7) : f32[1,2,3,4]
  %9 = Mul(%0, %8) : f32[1,2,3,4]
  return %9
})");
  const CaffeModel m = exportCaffe(g);
  ASSERT_EQ(m.weights.layer_size(), 2) << deployText(m);
  const auto& p = lastLayer(m).lrn_param();
  EXPECT_EQ(p.norm_region(), nnfuzz::caffe::LRNParameter::WITHIN_CHANNEL);
  EXPECT_EQ(p.local_size(), 3u);
  // lrn_layer.cpp: x * (1 + alpha / size^2 * (sum of squares in the padded window))^-beta.
  const Tensor x = ramp({1, 2, 3, 4}, -1.2, 0.1);
  const Tensor y = runGraph(g, {x}).at(0);
  for (int c = 0; c < 2; ++c)
    for (int h = 0; h < 3; ++h)
      for (int w = 0; w < 4; ++w) {
        double sum = 0;
        for (int dh = -1; dh <= 1; ++dh)
          for (int dw = -1; dw <= 1; ++dw)
            if (h + dh >= 0 && h + dh < 3 && w + dw >= 0 && w + dw < 4) {
              const double v = x.data[static_cast<size_t>((c * 3 + h + dh) * 4 + w + dw)];
              sum += v * v;
            }
        const size_t i = static_cast<size_t>((c * 3 + h) * 4 + w);
        EXPECT_NEAR(y.data[i], x.data[i] * std::pow(1 + p.alpha() / 9 * sum, -p.beta()), 1e-5);
      }
}

TEST(CaffePatterns, BiasFromAxisAndScaleOtherwise) {
  const CaffeModel m = exportCaffe(parseGraph(R"(graph {
  %0 = input f32[2,3,4]
  %1 = weight f32[3,1] [1.0, 2.0, 3.0]
  %2 = Add(%0, %1) : f32[2,3,4]
  %3 = weight f32[1,3,1] [1.0, 2.0, 3.0]
  %4 = Add(%2, %3) : f32[2,3,4]
  return %4
})"));
  const auto& bias = m.weights.layer(1);
  EXPECT_EQ(bias.type(), "Bias");
  EXPECT_EQ(bias.bias_param().axis(), 1);
  EXPECT_EQ(bias.bias_param().num_axes(), 1);
  EXPECT_EQ(bias.blobs(0).shape().dim_size(), 1);
  EXPECT_EQ(m.weights.layer(2).type(), "Scale");  // a leading 1: Caffe's Scale with bias_term
}

}  // namespace
}  // namespace nnfuzz
