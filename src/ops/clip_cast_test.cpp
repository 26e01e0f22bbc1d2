// clip_cast_test.cpp - Clip's optional bounds, Cast's conversions and stability, CastLike,
// Identity.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

TEST(Clip, OptionalBounds) {
  const Tensor x = F({4}, {-3, -0.5, 0.5, 3});
  const Tensor lo = F({}, {-1}), hi = F({}, {1});
  expectNear(run("Clip", {&x}), {-3, -0.5, 0.5, 3});
  expectNear(run("Clip", {&x, &lo}), {-1, -0.5, 0.5, 3});
  expectNear(run("Clip", {&x, nullptr, &hi}), {-3, -0.5, 0.5, 1});
  expectNear(run("Clip", {&x, &lo, &hi}), {-1, -0.5, 0.5, 1});
}

TEST(Clip, MinAboveMaxGivesMax) {
  const Tensor x = T(DType::Int32, {3}, {-5, 0, 5});
  const Tensor lo = T(DType::Int32, {}, {2}), hi = T(DType::Int32, {}, {-1});
  expectNear(run("Clip", {&x, &lo, &hi}), {-1, -1, -1});
}

TEST(Clip, BoundsMustBeScalarsOfTheInputType) {
  const Tensor x = F({2}, {1, 2});
  const Tensor vec = F({1}, {0}), dbl = T(DType::Float64, {}, {0});
  EXPECT_FALSE(inferOp("Clip", {&x, &vec}).ok());
  EXPECT_FALSE(inferOp("Clip", {&x, nullptr, &dbl}).ok());
  const Tensor b = T(DType::Bool, {1}, {1});
  EXPECT_FALSE(inferOp("Clip", {&b}).ok());
}

Attributes to(DType d) {
  Attributes a;
  a.setInt("to", onnxElemType(d));
  return a;
}

TEST(Cast, Conversions) {
  const Tensor x = F({5}, {-1.7, -0.5, 0, 2.9, 3});
  const Tensor i8 = run("Cast", {&x}, to(DType::Int8));
  EXPECT_EQ(i8.type, (TensorType{DType::Int8, {5}}));
  expectNear(i8, {-1, 0, 0, 2, 3});  // truncation toward zero
  expectNear(run("Cast", {&x}, to(DType::Bool)), {1, 1, 0, 1, 1});
  const Tensor n = T(DType::Int32, {3}, {-3, 300, 7});
  expectNear(run("Cast", {&n}, to(DType::UInt8)), {253, 44, 7});  // integers wrap around
  const Tensor b = T(DType::Bool, {2}, {1, 0});
  expectNear(run("Cast", {&b}, to(DType::Float64)), {1, 0});
  const Tensor d = T(DType::Float64, {1}, {0.1});
  EXPECT_EQ(run("Cast", {&d}, to(DType::Float32)).data[0], static_cast<double>(0.1f));
}

TEST(Cast, Stability) {
  const Tensor nearInt = F({2}, {2.9999, 1.5});
  EXPECT_TRUE(unstable("Cast", {&nearInt}, to(DType::Int32)));
  EXPECT_FALSE(unstable("Cast", {&nearInt}, to(DType::Float64)));
  const Tensor exact = F({2}, {3, -2});
  EXPECT_FALSE(unstable("Cast", {&exact}, to(DType::Int64)));
  EXPECT_TRUE(unstable("Cast", {&exact}, to(DType::UInt8)));  // -2 does not fit: undefined in C
  const Tensor tiny = F({2}, {1e-5, 0});
  EXPECT_TRUE(unstable("Cast", {&tiny}, to(DType::Bool)));
  const Tensor ints = T(DType::Int32, {1}, {-2});
  EXPECT_FALSE(unstable("Cast", {&ints}, to(DType::UInt8)));
}

TEST(Cast, ToIsRequiredAndKnown) {
  const Tensor x = F({2}, {1, 2});
  EXPECT_FALSE(inferOp("Cast", {&x}).ok());
  Attributes f16;
  f16.setInt("to", 10);
  EXPECT_FALSE(inferOp("Cast", {&x}, f16).ok());
  Attributes wrong;
  wrong.setFloat("to", 1);
  EXPECT_FALSE(inferOp("Cast", {&x}, wrong).ok());
}

TEST(Identity, Copies) {
  const Tensor x = T(DType::UInt8, {2, 1}, {4, 200});
  const Tensor y = run("Identity", {&x});
  EXPECT_EQ(y, x);
}

TEST(CastLike, TakesTheTargetsDtypeAndNothingElse) {
  const Tensor x = F({3}, {-1.7, 0.2, 2.9});
  const Tensor like = T(DType::Int8, {2, 2}, {0, 0, 0, 0});
  const Tensor y = run("CastLike", {&x, &like});
  EXPECT_EQ(y.type, (TensorType{DType::Int8, {3}}));
  expectNear(y, {-1, 0, 2});
  EXPECT_FALSE(unstable("CastLike", {&x, &like}));
  const Tensor edge = F({1}, {2.9999});
  EXPECT_TRUE(unstable("CastLike", {&edge, &like}));  // truncation jumps at 3
  const Tensor dbl = T(DType::Float64, {}, {0});
  EXPECT_FALSE(unstable("CastLike", {&edge, &dbl}));
  Attributes to;
  to.setInt("to", 1);
  EXPECT_FALSE(inferOp("CastLike", {&x, &like}, to).ok());
}

}  // namespace
}  // namespace nnfuzz
