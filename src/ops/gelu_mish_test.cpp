// gelu_mish_test.cpp - Mish and Gelu (both approximations) at known points, the
// saturated tails, and Gelu's attribute checks.
#include <cmath>

#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

TEST(Mish, KnownPointsAndTails) {
  const Tensor x = T(DType::Float64, {4}, {0, 1, -1, 30});
  // mish(1) = tanh(ln(1 + e)); mish(-1) = -tanh(ln(1 + 1/e)); large x: x.
  expectValues(run("Mish", {&x}), {4}, {0, std::tanh(std::log1p(std::exp(1.0))), -std::tanh(std::log1p(std::exp(-1.0))), 30},
               1e-12);
  const Tensor far = T(DType::Float64, {1}, {-40});
  EXPECT_NEAR(run("Mish", {&far}).data[0], 0.0, 1e-15);
}

TEST(Gelu, ExactAndTanhForms) {
  const Tensor x = T(DType::Float64, {3}, {-1, 0, 2});
  const auto exact = [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); };
  expectValues(run("Gelu", {&x}), {3}, {exact(-1), 0, exact(2)}, 1e-12);
  const Attributes none = A([](Attributes& a) { a.setString("approximate", "none"); });
  expectValues(run("Gelu", {&x}, none), {3}, {exact(-1), 0, exact(2)}, 1e-12);
  const auto approx = [](double v) { return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v))); };
  const Tensor y = run("Gelu", {&x}, A([](Attributes& a) { a.setString("approximate", "tanh"); }));
  expectValues(y, {3}, {approx(-1), 0, approx(2)}, 1e-12);
  EXPECT_GT(std::abs(y.data[0] - exact(-1)), 1e-5) << "the two forms differ";
}

TEST(Gelu, RejectsUnknownForms) {
  const Tensor x = F({1}, {1});
  EXPECT_FALSE(inferOp("Gelu", {&x}, A([](Attributes& a) { a.setString("approximate", "erf"); })).ok());
  EXPECT_FALSE(inferOp("Gelu", {&x}, A([](Attributes& a) { a.setInt("approximate", 1); })).ok());
  EXPECT_FALSE(inferOp("Gelu", {&x}, A([](Attributes& a) { a.setFloat("alpha", 1); })).ok());
  int tanhForm = 0;
  sample("Gelu", 200, [&](const Instantiation& inst) { tanhForm += inst.attrs.getString("approximate", "none") == "tanh"; });
  EXPECT_GT(tanhForm, 50);
  EXPECT_LT(tanhForm, 150);
}

}  // namespace
}  // namespace nnfuzz
