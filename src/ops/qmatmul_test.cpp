// qmatmul_test.cpp - MatMulInteger (zero points per tensor and per column, exact int32
// products past the int16 range) and QLinearMatMul (requantization, saturation, the
// .5 instability, one-element parameter tensors).
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

TEST(MatMulInteger, ZeroPointsAndExactProducts) {
  const Tensor a = T(DType::UInt8, {1, 2}, {255, 255});
  const Tensor b = T(DType::Int8, {2, 2}, {-128, 127, -128, 127});
  const Tensor y = run("MatMulInteger", {&a, &b});
  EXPECT_EQ(y.type.dtype, DType::Int32);
  expectValues(y, {1, 2}, {-65280, 64770});  // beyond int16: no saturation in the reference
  const Tensor azp = T(DType::UInt8, {}, {5});
  const Tensor bzp = T(DType::Int8, {2}, {0, 7});
  expectValues(run("MatMulInteger", {&a, &b, &azp, &bzp}), {1, 2}, {250 * -128 * 2, 250 * 120 * 2});
  const Tensor s8 = T(DType::Int8, {1, 2}, {1, 1});
  const Tensor u8b = T(DType::UInt8, {2, 1}, {1, 1});
  EXPECT_FALSE(inferOp("MatMulInteger", {&s8, &u8b}).ok());  // int8 A takes int8 B only
  const Tensor wrongZp = T(DType::Int8, {}, {0});
  EXPECT_FALSE(inferOp("MatMulInteger", {&a, &b, &wrongZp}).ok());
}

TEST(QLinearMatMul, RequantizesAndSaturates) {
  const Tensor a = T(DType::UInt8, {1, 2}, {12, 14});
  const Tensor b = T(DType::UInt8, {2, 2}, {10, 20, 30, 10});
  auto f = [](double v) { return T(DType::Float32, {}, {v}); };
  auto u = [](double v) { return T(DType::UInt8, {}, {v}); };
  const Tensor as = f(0.5), bs = f(0.25), ys = f(1.0), azp = u(10), bzp = u(10), yzp = u(100);
  // (a - 10) = [2, 4]; (b - 10) = [[0, 10], [20, 0]]: products [80, 20]; * 0.125 = [10, 2.5].
  const Tensor y = run("QLinearMatMul", {&a, &as, &azp, &b, &bs, &bzp, &ys, &yzp});
  EXPECT_EQ(y.type.dtype, DType::UInt8);
  expectValues(y, {1, 2}, {110, 102});  // 2.5 rounds to even
  EXPECT_TRUE(unstable("QLinearMatMul", {&a, &as, &azp, &b, &bs, &bzp, &ys, &yzp}));
  const Tensor small = f(0.01);
  expectValues(run("QLinearMatMul", {&a, &as, &azp, &b, &bs, &bzp, &small, &yzp}), {1, 2}, {255, 255});
  const Tensor oneElement = T(DType::Float32, {1}, {0.5});
  EXPECT_TRUE(inferOp("QLinearMatMul", {&a, &oneElement, &azp, &b, &bs, &bzp, &ys, &yzp}).ok());
  EXPECT_FALSE(inferOp("QLinearMatMul", {&a, &as, &azp, &b, &bs, &bzp, &ys}).ok());
}

}  // namespace
}  // namespace nnfuzz
