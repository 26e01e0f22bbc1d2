// WeightedTable (support/rng.h) draws what Rng::weighted draws from the same state.
#include <gtest/gtest.h>

#include "support/rng.h"

namespace nnfuzz {
namespace {

TEST(WeightedTable, DrawsWhatTheSequentialScanDraws) {
  Rng weights(7);
  for (int table = 0; table < 50; ++table) {
    std::vector<double> w(static_cast<size_t>(weights.uniformInt(1, 70)));
    for (double& x : w) x = weights.bernoulli(0.2) ? 0.0 : weights.uniformReal(0.0, 3.0);
    w[static_cast<size_t>(weights.uniformInt(0, static_cast<int64_t>(w.size()) - 1))] = 1.0;  // a positive sum
    const WeightedTable drawn(w);
    Rng a(static_cast<uint64_t>(table)), b(static_cast<uint64_t>(table));
    for (int k = 0; k < 2000; ++k) {
      const size_t expected = a.weighted(w);
      const size_t got = drawn.draw(b);
      ASSERT_EQ(got, expected) << "table " << table << ", draw " << k;
      ASSERT_GT(w[got], 0.0);
    }
  }
}

TEST(WeightedTable, NeverDrawsAZeroWeight) {
  const std::vector<double> w{0.0, 2.0, 0.0, 0.0, 1.0, 0.0};
  const WeightedTable drawn(w);
  Rng rng(3);
  std::vector<int> counts(w.size(), 0);
  for (int k = 0; k < 3000; ++k) ++counts[drawn.draw(rng)];
  EXPECT_EQ(counts[0] + counts[2] + counts[3] + counts[5], 0);
  EXPECT_NEAR(counts[1] / 3000.0, 2.0 / 3.0, 0.05);
}

}  // namespace
}  // namespace nnfuzz
