// qconv_test.cpp - ConvInteger (zero points per tensor and per output channel, int32
// sums) and QLinearConv (bias, per-channel scales, requantization and its instability),
// both on Conv's geometry.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

TEST(ConvInteger, SubtractsZeroPoints) {
  const Tensor x = T(DType::UInt8, {1, 1, 3}, {10, 20, 30});
  const Tensor w = T(DType::UInt8, {2, 1, 2}, {1, 2, 3, 4});
  expectValues(run("ConvInteger", {&x, &w}), {1, 2, 2}, {50, 80, 110, 180});
  const Tensor xzp = T(DType::UInt8, {}, {10});
  const Tensor wzp = T(DType::UInt8, {2}, {1, 3});  // per output channel
  // x - 10 = [0, 10, 20]; channel 0 taps [0, 1], channel 1 taps [0, 1].
  expectValues(run("ConvInteger", {&x, &w, &xzp, &wzp}), {1, 2, 2}, {10, 20, 10, 20});
  const Tensor y = run("ConvInteger", {&x, &w, &xzp, &wzp});
  EXPECT_EQ(y.type.dtype, DType::Int32);
  const Tensor badZp = T(DType::UInt8, {3}, {0, 0, 0});
  EXPECT_FALSE(inferOp("ConvInteger", {&x, &w, &xzp, &badZp}).ok());
  const Tensor s8x = T(DType::Int8, {1, 1, 3}, {1, 2, 3});
  EXPECT_FALSE(inferOp("ConvInteger", {&s8x, &w}).ok());  // int8 x takes int8 w only
}

TEST(QLinearConv, BiasScalesAndRequantization) {
  const Tensor x = T(DType::UInt8, {1, 1, 2}, {12, 14});
  const Tensor w = T(DType::Int8, {2, 1, 1}, {2, -2});
  auto f = [](double v) { return T(DType::Float32, {}, {v}); };
  const Tensor xs = f(0.5), ys = f(1.0);
  const Tensor ws = T(DType::Float32, {2}, {1.0, 0.25});
  const Tensor xzp = T(DType::UInt8, {}, {10}), wzp = T(DType::Int8, {2}, {0, 0}), yzp = T(DType::UInt8, {}, {100});
  const Tensor bias = T(DType::Int32, {2}, {1, 0});
  // Sums: channel 0: 2*(x-10) = [4, 8] + 1 -> [5, 9] * 0.5 = [2.5, 4.5]; channel 1: -2*(x-10) = [-4, -8] * 0.125.
  const Tensor y = run("QLinearConv", {&x, &xs, &xzp, &w, &ws, &wzp, &ys, &yzp, &bias});
  EXPECT_EQ(y.type.dtype, DType::UInt8);
  expectValues(y, {1, 2, 2}, {102, 104, 100, 99});  // 2.5 -> 2, 4.5 -> 4, -0.5 -> -0, -1
  EXPECT_TRUE(unstable("QLinearConv", {&x, &xs, &xzp, &w, &ws, &wzp, &ys, &yzp, &bias}));
  const Tensor shifted = T(DType::Int32, {2}, {2, 0});
  EXPECT_TRUE(unstable("QLinearConv", {&x, &xs, &xzp, &w, &ws, &wzp, &ys, &yzp, &shifted}));  // channel 1 still at -0.5
  const Tensor wrongBias = T(DType::Int32, {3}, {0, 0, 0});
  EXPECT_FALSE(inferOp("QLinearConv", {&x, &xs, &xzp, &w, &ws, &wzp, &ys, &yzp, &wrongBias}).ok());
  EXPECT_FALSE(inferOp("QLinearConv", {&x, &xs, &xzp, &w, &ws, &wzp, &ys}).ok());
}

}  // namespace
}  // namespace nnfuzz
