// det_reverse_test.cpp - Det (values against hand-computed determinants, pivoting, batch
// dims, instability of near-singular matrices) and ReverseSequence (both axis orders,
// lengths from constants).
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

TEST(Det, ValuesPivotingAndBatches) {
  const Tensor m = F({2, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0});  // -2, and a swap needing a pivot: -1
  expectValues(run("Det", {&m}), {2}, {-2, -1});
  const Tensor m3 = F({3, 3}, {2, 0, 1, 1, 3, 2, 1, 1, 2});
  expectValues(run("Det", {&m3}), {}, {6});  // 2*(6-2) - 0 + 1*(1-3)
  const Tensor notSquare = F({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_FALSE(inferOp("Det", {&notSquare}).ok());
}

TEST(Det, NearSingularIsUnstable) {
  const Tensor singular = F({2, 2}, {1, 2, 2, 4});
  EXPECT_TRUE(unstable("Det", {&singular}));
  const Tensor nearly = F({2, 2}, {1, 2, 2, 4.001});
  EXPECT_TRUE(unstable("Det", {&nearly}));
  const Tensor fine = F({2, 2}, {2, 1, 1, 2});
  EXPECT_FALSE(unstable("Det", {&fine}));
  const Tensor zeros = F({2, 2}, {0, 0, 0, 0});  // exact 0 with nothing to cancel
  EXPECT_FALSE(unstable("Det", {&zeros}));
}

TEST(ReverseSequence, BothAxisOrders) {
  // time_axis 0, batch_axis 1 (the defaults): columns are sequences.
  const Tensor x = F({3, 2}, {1, 10, 2, 20, 3, 30});
  const Tensor lens = int64Tensor({3, 2});
  expectValues(run("ReverseSequence", {&x, &lens}), {3, 2}, {3, 20, 2, 10, 1, 30});
  const Tensor rows = F({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor rowLens = int64Tensor({1, 3});
  expectValues(run("ReverseSequence", {&rows, &rowLens}, A([](Attributes& a) {
                 a.setInt("batch_axis", 0);
                 a.setInt("time_axis", 1);
               })),
               {2, 3}, {1, 2, 3, 6, 5, 4});
  EXPECT_FALSE(inferOp("ReverseSequence", {&x, &lens}, A([](Attributes& a) { a.setInt("time_axis", 1); })).ok());
  const Tensor tooLong = int64Tensor({4, 1});
  EXPECT_FALSE(inferOp("ReverseSequence", {&x, &tooLong}).ok());
  const Tensor wrongCount = int64Tensor({1});
  EXPECT_FALSE(inferOp("ReverseSequence", {&x, &wrongCount}).ok());
}

}  // namespace
}  // namespace nnfuzz
