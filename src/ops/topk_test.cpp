// topk_test.cpp - TopK: largest/smallest along any axis, ties lower index first, sorted
// only, K checks, and near ties in the k + 1 best values being unstable.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

std::vector<Tensor> runTopK(const Tensor& x, int64_t k, const Attributes& attrs = {}) {
  const Tensor kt = int64Tensor({k});
  InferResult r = inferOp("TopK", {&x, &kt}, attrs);
  EXPECT_TRUE(r.ok()) << r.error;
  if (!r.ok()) return {};
  return evaluate(*findOp("TopK"), {&x, &kt}, attrs, r.types);
}

TEST(TopK, LargestSmallestAndAxis) {
  const Tensor x = F({2, 3}, {1, 9, 4, 7, 2, 8});
  auto out = runTopK(x, 2);
  expectValues(out[0], {2, 2}, {9, 4, 8, 7});
  expectValues(out[1], {2, 2}, {1, 2, 2, 0});
  EXPECT_EQ(out[1].type.dtype, DType::Int64);
  out = runTopK(x, 1, A([](Attributes& a) {
                  a.setInt("axis", 0);
                  a.setInt("largest", 0);
                }));
  expectValues(out[0], {1, 3}, {1, 2, 4});
  expectValues(out[1], {1, 3}, {0, 1, 0});
}

TEST(TopK, TiesGoLowerIndexFirst) {
  const Tensor x = T(DType::Int32, {4}, {3, 5, 3, 5});
  auto out = runTopK(x, 3);
  expectValues(out[0], {3}, {5, 5, 3});
  expectValues(out[1], {3}, {1, 3, 0});
  const Tensor kt = int64Tensor({3});
  EXPECT_FALSE(unstable("TopK", {&x, &kt}));  // integer ties are exact
  const Tensor f = F({4}, {3, 5, 3.0001, 1});
  const Tensor k1 = int64Tensor({1}), k2 = int64Tensor({2});
  EXPECT_FALSE(unstable("TopK", {&f, &k1}));  // 5 stands clear of the cut
  EXPECT_TRUE(unstable("TopK", {&f, &k2}));   // 3 vs 3.0001 decides the second place
}

TEST(TopK, RejectsBadK) {
  const Tensor x = F({3}, {1, 2, 3});
  const Tensor big = int64Tensor({4}), two = int64Tensor({1, 1});
  EXPECT_FALSE(inferOp("TopK", {&x, &big}).ok());
  EXPECT_FALSE(inferOp("TopK", {&x, &two}).ok());
  const Tensor one = int64Tensor({1});
  EXPECT_FALSE(inferOp("TopK", {&x, &one}, A([](Attributes& a) { a.setInt("sorted", 0); })).ok());
  EXPECT_EQ(inferOp("TopK", {&x, &one}).types.size(), 2u);
}

}  // namespace
}  // namespace nnfuzz
