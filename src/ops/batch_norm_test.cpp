// batch_norm_test.cpp - BatchNormalization (inference mode, per-channel statistics,
// T1/T2 dtype pairs), InstanceNormalization (and its tiny-variance instability) and
// LpNormalization (p 1 and 2, any axis, all-zero lines).
#include <cmath>

#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

TEST(BatchNormalization, PerChannel) {
  const Tensor x = F({1, 2, 1}, {1, 2});
  const Tensor scale = F({2}, {2, 1}), b = F({2}, {0, 1}), mean = F({2}, {0, 1}), var = F({2}, {1, 4});
  expectValues(run("BatchNormalization", {&x, &scale, &b, &mean, &var},
                   A([](Attributes& a) { a.setFloat("epsilon", 0); })),
               {1, 2, 1}, {2, 1.5});
  // The default epsilon 1e-5 enters the root.
  expectValues(run("BatchNormalization", {&x, &scale, &b, &mean, &var}), {1, 2, 1},
               {2 / std::sqrt(1 + 1e-5), 1 + 1 / std::sqrt(4 + 1e-5)}, 1e-7);
}

TEST(BatchNormalization, DtypePairsAndTrainingMode) {
  const Tensor x = F({2, 2}, {1, 2, 3, 4});
  const Tensor s = F({2}, {1, 1}), b = F({2}, {0, 0});
  const Tensor m64 = T(DType::Float64, {2}, {0, 0}), v64 = T(DType::Float64, {2}, {1, 1});
  EXPECT_TRUE(inferOp("BatchNormalization", {&x, &s, &b, &m64, &v64}).ok());  // T2 may differ from T
  EXPECT_FALSE(inferOp("BatchNormalization", {&x, &s, &b, &s, &v64}).ok());   // mean and var share T2
  EXPECT_FALSE(inferOp("BatchNormalization", {&x, &s, &b, &s, &s},
                       A([](Attributes& a) { a.setInt("training_mode", 1); })).ok());
  const Tensor s3 = F({3}, {1, 1, 1});
  EXPECT_FALSE(inferOp("BatchNormalization", {&x, &s3, &b, &s, &s}).ok());
  EXPECT_FALSE(inferOp("BatchNormalization", {&x, &s, &b, &s, &s}, A([](Attributes& a) { a.setInt("epsilon", 1); }))
                   .ok());
}

TEST(InstanceNormalization, PerInstanceStatistics) {
  const Tensor x = F({2, 1, 2}, {1, 3, 5, 5});
  const Tensor scale = F({1}, {2}), b = F({1}, {1});
  // Instance 0: mean 2, variance 1; instance 1: constant, so only the bias remains.
  const double r = 1 / std::sqrt(1 + 1e-5);
  expectValues(run("InstanceNormalization", {&x, &scale, &b}), {2, 1, 2}, {1 - 2 * r, 1 + 2 * r, 1, 1});
  const Tensor one = F({1, 1, 2}, {1, 3});
  expectValues(run("InstanceNormalization", {&one, &scale, &b}, A([](Attributes& a) { a.setFloat("epsilon", 0.0); })),
               {1, 1, 2}, {-1, 3});
  const Tensor near = F({1, 1, 2}, {1, 1.001});
  EXPECT_TRUE(unstable("InstanceNormalization", {&near, &scale, &b}));
  EXPECT_FALSE(unstable("InstanceNormalization", {&x, &scale, &b}));
  const Tensor flat = F({1, 2}, {1, 2});
  EXPECT_FALSE(inferOp("InstanceNormalization", {&flat, &scale, &b}).ok());
}

TEST(LpNormalization, AxesAndOrders) {
  const Tensor x = F({2, 2}, {3, 4, 0, 0});
  expectValues(run("LpNormalization", {&x}), {2, 2}, {0.6, 0.8, 0, 0});  // the zero line stays zero
  const Tensor y = F({2, 2}, {3, 4, 1, 0});
  expectValues(run("LpNormalization", {&y}, A([](Attributes& a) {
                 a.setInt("axis", 0);
                 a.setInt("p", 1);
               })),
               {2, 2}, {0.75, 1, 0.25, 0});
  const Tensor tiny = F({1, 2}, {1e-4, 0});
  EXPECT_TRUE(unstable("LpNormalization", {&tiny}));
  EXPECT_FALSE(inferOp("LpNormalization", {&x}, A([](Attributes& a) { a.setInt("p", 3); })).ok());
  EXPECT_FALSE(inferOp("LpNormalization", {&x}, A([](Attributes& a) { a.setInt("axis", 2); })).ok());
}

}  // namespace
}  // namespace nnfuzz
