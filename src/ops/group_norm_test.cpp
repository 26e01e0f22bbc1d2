// group_norm_test.cpp - GroupNormalization-21: per-group statistics, per-channel scale and
// bias, rejections (divisibility, per-group scale of version 18), tiny-variance
// instability and a sampler sweep.
#include <cmath>

#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

Attributes groups(int64_t g, double eps = 1e-9) {
  return A([&](Attributes& a) {
    a.setInt("num_groups", g);
    a.setFloat("epsilon", eps);
  });
}

TEST(GroupNormalization, GroupsThenChannels) {
  // N 1, C 4, 2 spatial; two groups of two channels.
  const Tensor x = F({1, 4, 2}, {1, 3, 3, 1, 10, 10, 20, 20});
  const Tensor scale = F({4}, {1, 2, 3, 4});
  const Tensor bias = F({4}, {0, 0, 1, -1});
  // Group 0: mean 2, var 1 -> [-1, 1, 1, -1]; group 1: mean 15, var 25 -> [-1, -1, 1, 1].
  expectValues(run("GroupNormalization", {&x, &scale, &bias}, groups(2)), {1, 4, 2}, {-1, 1, 2, -2, -2, -2, 3, 3}, 1e-6);
  // One group per channel: InstanceNormalization.
  expectValues(run("GroupNormalization", {&x, &scale, &bias}, groups(4)), {1, 4, 2}, {-1, 1, 2, -2, 1, 1, -1, -1}, 1e-6);
  // The default epsilon counts.
  const Tensor y = run("GroupNormalization", {&x, &scale, &bias}, A([](Attributes& a) { a.setInt("num_groups", 2); }));
  EXPECT_NEAR(y.data[1], 1 / std::sqrt(1 + 1e-5), 1e-7);
}

TEST(GroupNormalization, Rejects) {
  const Tensor x = F({1, 4, 2}, std::vector<double>(8, 1));
  const Tensor c4 = F({4}, {1, 1, 1, 1});
  const Tensor g2 = F({2}, {1, 1});
  EXPECT_FALSE(inferOp("GroupNormalization", {&x, &c4, &c4}, groups(3)).ok());
  EXPECT_FALSE(inferOp("GroupNormalization", {&x, &g2, &g2}, groups(2)).ok()) << "version 18's per-group scale";
  EXPECT_FALSE(inferOp("GroupNormalization", {&x, &c4, &c4}).ok()) << "num_groups is required";
  EXPECT_FALSE(inferOp("GroupNormalization", {&x, &c4, &c4}, A([](Attributes& a) {
                 a.setInt("num_groups", 2);
                 a.setInt("stash_type", 11);
               })).ok());
}

TEST(GroupNormalization, TinyVarianceIsUnstable) {
  const Tensor scale = F({2}, {1, 1});
  const Tensor flat = F({1, 2, 2}, {100, 100.0001, 5, 7});
  EXPECT_TRUE(unstable("GroupNormalization", {&flat, &scale, &scale}, groups(2)));
  const Tensor fine = F({1, 2, 2}, {1, 3, 5, 7});
  EXPECT_FALSE(unstable("GroupNormalization", {&fine, &scale, &scale}, groups(2)));
}

TEST(GroupNormalization, SamplerIsSound) {
  int split = 0;
  sample("GroupNormalization", 300, [&](const Instantiation& inst) {
    const int64_t g = inst.attrs.getInt("num_groups", 0), c = inst.operands[0].type.shape[1];
    EXPECT_EQ(c % g, 0);
    split += g > 1 && g < c;
  });
  EXPECT_GT(split, 0) << "groups of several channels occur";
}

}  // namespace
}  // namespace nnfuzz
