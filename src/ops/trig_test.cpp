// trig_test.cpp - the trigonometric/hyperbolic family (values against <cmath>, domains
// that keep results finite and well conditioned), Shrink (both branches, the dead zone,
// instability at ±lambd), IsInf/IsNaN and Dropout in inference (and training with ratio 0).
#include <cmath>
#include <limits>

#include "ops/instantiate.h"
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

TEST(Trig, ValuesMatchTheMathLibrary) {
  const Tensor x = F({3}, {-0.5, 0.25, 0.75});
  expectValues(run("Tan", {&x}), {3}, {std::tan(-0.5), std::tan(0.25), std::tan(0.75)});
  expectValues(run("Asin", {&x}), {3}, {std::asin(-0.5), std::asin(0.25), std::asin(0.75)});
  expectValues(run("Acos", {&x}), {3}, {std::acos(-0.5), std::acos(0.25), std::acos(0.75)});
  expectValues(run("Atanh", {&x}), {3}, {std::atanh(-0.5), std::atanh(0.25), std::atanh(0.75)});
  expectValues(run("Sinh", {&x}), {3}, {std::sinh(-0.5), std::sinh(0.25), std::sinh(0.75)});
  const Tensor above = F({2}, {1.5, 3});
  expectValues(run("Acosh", {&above}), {2}, {std::acosh(1.5), std::acosh(3.0)});
  expectValues(run("Cosh", {&above}), {2}, {std::cosh(1.5), std::cosh(3.0)});
  expectValues(run("Asinh", {&above}), {2}, {std::asinh(1.5), std::asinh(3.0)});
  expectValues(run("Atan", {&above}), {2}, {std::atan(1.5), std::atan(3.0)});
  const Tensor ints = T(DType::Int32, {1}, {1});
  EXPECT_FALSE(inferOp("Tan", {&ints}).ok());  // floats only
}

TEST(Trig, DomainsStayInsideTheFunctionsDomains) {
  struct Case {
    const char* op;
    double lo, hi;  // open interval the function is finite and tame on
  };
  for (const Case c : {Case{"Asin", -1, 1}, Case{"Acos", -1, 1}, Case{"Atanh", -1, 1}, Case{"Acosh", 1, 100},
                       Case{"Tan", -M_PI / 2, M_PI / 2}}) {
    const ValueRange r = firstRangeOf(*findOp(c.op), DType::Float32);
    EXPECT_GT(r.lo, c.lo) << c.op;
    EXPECT_LT(r.hi, c.hi) << c.op;
    const Tensor edges = F({2}, {r.lo, r.hi});
    for (double y : run(c.op, {&edges}).data) EXPECT_LT(std::abs(y), 10.0) << c.op;
  }
}

TEST(Shrink, BranchesAndDeadZone) {
  const Tensor x = F({5}, {-2, -0.5, 0, 0.4, 2});
  Attributes a = A([](Attributes& t) {
    t.setFloat("lambd", 1.0);
    t.setFloat("bias", 0.5);
  });
  expectValues(run("Shrink", {&x}, a), {5}, {-1.5, 0, 0, 0, 1.5});
  expectValues(run("Shrink", {&x}), {5}, {-2, 0, 0, 0, 2});  // lambd 0.5: -0.5 is not below -0.5
  const Tensor ints = T(DType::Int8, {3}, {-3, 0, 3});
  expectValues(run("Shrink", {&ints}, A([](Attributes& t) { t.setFloat("bias", 1); })), {3}, {-2, 0, 2});
  EXPECT_TRUE(unstable("Shrink", {&x}));  // -0.5 sits on -lambd
  EXPECT_FALSE(unstable("Shrink", {&x}, a));
  EXPECT_FALSE(inferOp("Shrink", {&x}, A([](Attributes& t) { t.setInt("lambd", 1); })).ok());
  EXPECT_FALSE(inferOp("Shrink", {&x}, A([](Attributes& t) { t.setFloat("alpha", 1); })).ok());
}

TEST(Shrink, IntegerInputsGetIntegralBias) {
  Limits limits;
  limits.dtypes = {DType::Int32};
  Rng rng(5);
  for (int i = 0; i < 50; ++i) {
    Instantiation inst = instantiateOp(*findOp("Shrink"), rng, limits, nullptr, 0.0);
    ASSERT_TRUE(inst.ok()) << inst.error;
    const double bias = inst.attrs.getFloat("bias", 0);
    EXPECT_EQ(bias, std::round(bias));
  }
}

TEST(FloatClass, IsInfAndIsNaN) {
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor x = F({4}, {-inf, 1, inf, std::nan("")});
  const Tensor all = run("IsInf", {&x});
  EXPECT_EQ(all.type.dtype, DType::Bool);
  expectValues(all, {4}, {1, 0, 1, 0});
  expectValues(run("IsInf", {&x}, A([](Attributes& t) { t.setInt("detect_positive", 0); })), {4}, {1, 0, 0, 0});
  expectValues(run("IsInf", {&x}, A([](Attributes& t) { t.setInt("detect_negative", 0); })), {4}, {0, 0, 1, 0});
  expectValues(run("IsNaN", {&x}), {4}, {0, 0, 0, 1});
  EXPECT_FALSE(inferOp("IsInf", {&x}, A([](Attributes& t) { t.setInt("detect_negative", 2); })).ok());
}

TEST(Dropout, InferenceIsIdentityWithAnAllTrueMask) {
  const Tensor x = F({2, 2}, {1, -2, 3, -4});
  const Tensor ratio = T(DType::Float32, {}, {0.5}), zero = T(DType::Float32, {}, {0});
  const Tensor off = T(DType::Bool, {}, {0});
  const Tensor on = T(DType::Bool, {}, {1});
  expectValues(run("Dropout", {&x, &ratio, &off}), {2, 2}, {1, -2, 3, -4});
  expectValues(run("Dropout", {&x, nullptr, &off}), {2, 2}, {1, -2, 3, -4});
  EXPECT_FALSE(inferOp("Dropout", {&x, &ratio, &on}).ok());  // training mode draws a random mask
  EXPECT_FALSE(inferOp("Dropout", {&x, nullptr, &on}).ok());  // (the default ratio is 0.5)
  // Training with a ratio of 0 drops nothing: deterministic.
  const InferResult r = inferOp("Dropout", {&x, &zero, &on});
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.types.size(), 2u);
  EXPECT_EQ(r.types[1], (TensorType{DType::Bool, {2, 2}}));
  const auto outs = evaluate(*findOp("Dropout"), {&x, &zero, &on}, {}, r.types);
  expectValues(outs[0], {2, 2}, {1, -2, 3, -4});
  expectValues(outs[1], {2, 2}, {1, 1, 1, 1});
  const Tensor bad = T(DType::Float32, {}, {1.0});
  EXPECT_FALSE(inferOp("Dropout", {&x, &bad}).ok());
  int training = 0;
  sample("Dropout", 200, [&](const Instantiation& inst) {
    ASSERT_EQ(inst.outputTypes.size(), 2u);
    if (inst.operands.size() > 2 && !inst.operands[2].omitted) {
      ASSERT_TRUE(inst.operands[2].constant.has_value());
      if (inst.operands[2].constant->data[0] == 0) return;
      ++training;
      ASSERT_TRUE(!inst.operands[1].omitted && inst.operands[1].constant.has_value());
      EXPECT_EQ(inst.operands[1].constant->data[0], 0.0);
    }
  });
  EXPECT_GT(training, 0);
}

}  // namespace
}  // namespace nnfuzz
