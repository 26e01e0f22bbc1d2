// binary_arith_test.cpp - broadcasting, integer Div/Mod semantics, Pow's mixed dtypes,
// variadic Max/Min/Mean/Sum and PRelu's unidirectional slope.
#include "ops/op_test_util.h"
#include "ops/instantiate.h"

namespace nnfuzz {
namespace {

using namespace optest;

TEST(BinaryArith, BroadcastBothWays) {
  const Tensor a = F({2, 1}, {1, 2});
  const Tensor b = F({3}, {10, 20, 30});
  const Tensor s = run("Add", {&a, &b});
  EXPECT_EQ(s.type.shape, (Shape{2, 3}));
  expectNear(s, {11, 21, 31, 12, 22, 32});
  const Tensor scalar = F({}, {2});
  const Tensor d = run("Sub", {&scalar, &a});  // the second operand has the higher rank
  EXPECT_EQ(d.type.shape, (Shape{2, 1}));
  expectNear(d, {1, 0});
  const Tensor c = F({4}, {1, 2, 3, 4});
  EXPECT_FALSE(inferOp("Mul", {&b, &c}).ok());
  const Tensor i = T(DType::Int32, {3}, {1, 2, 3});
  EXPECT_FALSE(inferOp("Add", {&b, &i}).ok());
}

TEST(BinaryArith, IntegerWrapAndTruncation) {
  const Tensor a = T(DType::UInt8, {2}, {3, 200});
  const Tensor b = T(DType::UInt8, {2}, {5, 100});
  expectNear(run("Sub", {&a, &b}), {254, 100});
  expectNear(run("Add", {&a, &b}), {8, 44});
  const Tensor x = T(DType::Int32, {4}, {7, -7, 7, -7});
  const Tensor y = T(DType::Int32, {4}, {2, 2, -2, -2});
  expectNear(run("Div", {&x, &y}), {3, -3, -3, 3});
}

TEST(BinaryArith, ModSigns) {
  const Tensor x = T(DType::Int64, {4}, {7, -7, 7, -7});
  const Tensor y = T(DType::Int64, {4}, {3, 3, -3, -3});
  expectNear(run("Mod", {&x, &y}), {1, 2, -2, -1});  // Python %: divisor's sign
  Attributes fmod;
  fmod.setInt("fmod", 1);
  expectNear(run("Mod", {&x, &y}, fmod), {1, -1, 1, -1});  // C fmod: dividend's sign
  const Tensor fx = F({2}, {5.5, -5.5}), fy = F({2}, {2, 2});
  expectNear(run("Mod", {&fx, &fy}, fmod), {1.5, -1.5});
  EXPECT_FALSE(inferOp("Mod", {&fx, &fy}).ok());  // floats need fmod=1
  Attributes two;
  two.setInt("fmod", 2);
  EXPECT_FALSE(inferOp("Mod", {&x, &y}, two).ok());
  const Tensor edge = F({1}, {3.9999}), four = F({1}, {2});
  EXPECT_TRUE(unstable("Mod", {&edge, &four}, fmod));
  EXPECT_FALSE(unstable("Mod", {&fx, &fy}, fmod));
}

TEST(BinaryArith, PowMixedTypes) {
  const Tensor base = F({3}, {2, 4, 0.5});
  const Tensor e = T(DType::Int8, {1}, {2});
  const Tensor r = run("Pow", {&base, &e});
  EXPECT_EQ(r.type.dtype, DType::Float32);
  expectNear(r, {4, 16, 0.25});
  const Tensor ib = T(DType::Int32, {3}, {2, -3, 5});
  const Tensor fe = F({1}, {3});
  expectNear(run("Pow", {&ib, &fe}), {8, -27, 125});
  const Tensor half = F({1}, {0.5});
  const Tensor four = T(DType::Int32, {1}, {4});
  EXPECT_TRUE(unstable("Pow", {&four, &half}));  // 4^0.5 truncated: 2 or 1
  EXPECT_TRUE(unstable("Pow", {&ib, &half}));     // negative base, fractional exponent
  const Tensor b8 = T(DType::Int8, {1}, {2});
  EXPECT_FALSE(inferOp("Pow", {&b8, &e}).ok());  // Pow-15 bases: float, double, int32, int64
  const Tensor flag = T(DType::Bool, {1}, {1});
  EXPECT_FALSE(inferOp("Pow", {&base, &flag}).ok());
}

TEST(Variadic, ArityAndBroadcast) {
  const Tensor a = F({2, 1}, {1, 5});
  const Tensor b = F({3}, {0, 3, 6});
  const Tensor c = F({}, {2});
  expectNear(run("Max", {&a, &b, &c}), {2, 3, 6, 5, 5, 6});
  expectNear(run("Min", {&a, &b, &c}), {0, 1, 1, 0, 2, 2});
  expectNear(run("Sum", {&a, &b, &c}), {3, 6, 9, 7, 10, 13});
  expectNear(run("Mean", {&a, &b}), {0.5, 2, 3.5, 2.5, 4, 5.5});
  expectNear(run("Sum", {&a}), {1, 5});
  EXPECT_FALSE(inferOp("Sum", {&a, nullptr, &c}).ok());
  const Tensor i = T(DType::Int8, {1}, {1});
  EXPECT_FALSE(inferOp("Mean", {&i}).ok());
  EXPECT_TRUE(inferOp("Max", {&i, &i, &i, &i, &i, &i}).ok());  // any arity, not only the generated <= 4
}

TEST(PRelu, SlopeBroadcastsUnidirectionally) {
  const Tensor x = F({2, 3}, {-1, -2, 3, -4, 5, -6});
  const Tensor slope = F({3}, {0.5, 1, 2});
  expectNear(run("PRelu", {&x, &slope}), {-0.5, -2, 3, -2, 5, -12});
  const Tensor col = F({2, 1}, {0, 10});
  expectNear(run("PRelu", {&x, &col}), {0, 0, 3, -40, 5, -60});
  const Tensor big = F({1, 2, 3}, {1, 1, 1, 1, 1, 1});
  EXPECT_FALSE(inferOp("PRelu", {&x, &big}).ok());
  const Tensor grow = F({3}, {1, 1, 1}), one = F({1}, {-1});
  EXPECT_FALSE(inferOp("PRelu", {&one, &grow}).ok());
}

// The second operand's sampler reaches higher ranks, grown dims, and leaves shapes alone.
TEST(BinaryArith, SamplerReachesEveryBroadcastForm) {
  Limits limits;
  limits.dtypes = {kAllDTypes, kAllDTypes + 7};
  Rng rng(5);
  int higherRank = 0, grown = 0, lower = 0;
  for (int i = 0; i < 2000; ++i) {
    Instantiation inst = instantiateOp(*findOp("Add"), rng, limits, nullptr, 0.0);
    ASSERT_TRUE(inst.ok()) << inst.error;
    const TensorType& a = inst.operands[0].type;
    const TensorType& b = inst.operands[1].type;
    higherRank += b.rank() > a.rank();
    lower += b.rank() < a.rank();
    grown += inst.outputTypes[0].shape != a.shape && b.rank() <= a.rank();
  }
  EXPECT_GT(higherRank, 20);
  EXPECT_GT(grown, 20);
  EXPECT_GT(lower, 20);
}

}  // namespace
}  // namespace nnfuzz
