// activation_test.cpp - hand-computed activations, attribute defaults and explicit values,
// and the checks on attributes.
#include <cmath>

#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

Attributes alpha(double a) {
  Attributes at;
  at.setFloat("alpha", a);
  return at;
}

TEST(Activation, LeakyReluWithAlphaAboveOneIsNotMax) {
  const Tensor x = F({4}, {-1, 3, 0, -0.5});
  // max(x, 2x) would give 3 -> 6; LeakyRelu keeps positives.
  expectNear(run("LeakyRelu", {&x}, alpha(2)), {-2, 3, 0, -1});
  expectNear(run("LeakyRelu", {&x}, alpha(-0.5)), {0.5, 3, 0, 0.25});
  expectNear(run("LeakyRelu", {&x}), {-0.01, 3, 0, -0.005});
}

TEST(Activation, EluSeluCelu) {
  const Tensor x = F({3}, {-1, 0, 2});
  const double em1 = std::exp(-1.0) - 1.0;
  expectNear(run("Elu", {&x}), {em1, 0, 2});
  expectNear(run("Elu", {&x}, alpha(-2)), {-2 * em1, 0, 2});
  expectNear(run("Selu", {&x}), {1.0507010 * 1.6732632 * em1, 0, 1.0507010 * 2});
  Attributes ag = alpha(2);
  ag.setFloat("gamma", 3);
  expectNear(run("Selu", {&x}, ag), {3 * 2 * em1, 0, 6});
  const Tensor y = F({2}, {-2, 1.5});
  expectNear(run("Celu", {&y}, alpha(2)), {2 * em1, 1.5});
  expectNear(run("Celu", {&y}), {std::exp(-2.0) - 1.0, 1.5});
}

TEST(Activation, HardSigmoidAndHardSwish) {
  const Tensor x = F({4}, {-4, 0, 1, 4});
  expectNear(run("HardSigmoid", {&x}), {0, 0.5, 0.7, 1});
  Attributes ab = alpha(-0.5);
  ab.setFloat("beta", 0.25);
  expectNear(run("HardSigmoid", {&x}, ab), {1, 0.25, 0, 0});
  const Tensor y = F({4}, {-3, 1, 3, 4});
  expectNear(run("HardSwish", {&y}), {0, 1.0 * (1.0 / 6 + 0.5), 3, 4});
}

TEST(Activation, ThresholdedReluIsStrictAndUnstableAtAlpha) {
  const Tensor x = F({4}, {1, 1.5, 0.5, -3});
  expectNear(run("ThresholdedRelu", {&x}), {0, 1.5, 0, 0});
  expectNear(run("ThresholdedRelu", {&x}, alpha(-4)), {1, 1.5, 0.5, -3});
  EXPECT_TRUE(unstable("ThresholdedRelu", {&x}));
  EXPECT_FALSE(unstable("ThresholdedRelu", {&x}, alpha(0.75)));
}

TEST(Activation, SmoothOnes) {
  const Tensor x = F({3}, {-1, 0, 2});
  expectNear(run("Sigmoid", {&x}), {1 / (1 + std::exp(1.0)), 0.5, 1 / (1 + std::exp(-2.0))});
  expectNear(run("Tanh", {&x}), {std::tanh(-1.0), 0, std::tanh(2.0)});
  expectNear(run("Softplus", {&x}), {std::log1p(std::exp(-1.0)), std::log(2.0), std::log1p(std::exp(2.0))});
  expectNear(run("Softsign", {&x}), {-0.5, 0, 2.0 / 3});
}

TEST(Activation, ReluOnIntegers) {
  const Tensor x = T(DType::Int8, {3}, {-5, 0, 7});
  const Tensor r = run("Relu", {&x});
  EXPECT_EQ(r.type.dtype, DType::Int8);
  expectNear(r, {0, 0, 7});
  const Tensor u = T(DType::UInt8, {1}, {3});
  EXPECT_FALSE(inferOp("Relu", {&u}).ok());
}

TEST(Activation, AttributeChecks) {
  const Tensor x = F({2}, {1, 2});
  EXPECT_FALSE(inferOp("Celu", {&x}, alpha(0)).ok());
  Attributes wrong;
  wrong.setInt("alpha", 1);
  EXPECT_FALSE(inferOp("LeakyRelu", {&x}, wrong).ok());
  wrong.setString("gamma", "x");
  wrong.setFloat("alpha", 1);
  EXPECT_FALSE(inferOp("Selu", {&x}, wrong).ok());
  const Tensor d = T(DType::Float64, {2}, {1, 2});
  EXPECT_FALSE(inferOp("Celu", {&d}).ok());  // Celu-12 is float32 only
  EXPECT_TRUE(inferOp("Elu", {&d}).ok());
}

}  // namespace
}  // namespace nnfuzz
