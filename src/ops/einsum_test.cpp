// einsum_test.cpp - Einsum: the equation families the sampler builds (matmul, batched,
// transpose, reductions, diagonal, outer and inner products, implicit outputs, ellipsis)
// against hand-computed values, and the forms inference refuses.
#include "ops/nn_test_util.h"

namespace nnfuzz {
namespace {

using namespace nntest;

Attributes eq(const std::string& e) {
  return A([&](Attributes& a) { a.setString("equation", e); });
}

TEST(Einsum, Families) {
  const Tensor a = F({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = F({3, 2}, {1, 0, 0, 1, 1, 1});
  expectValues(run("Einsum", {&a, &b}, eq("ij,jk->ik")), {2, 2}, {4, 5, 10, 11});
  expectValues(run("Einsum", {&a}, eq("ij->ji")), {3, 2}, {1, 4, 2, 5, 3, 6});
  expectValues(run("Einsum", {&a}, eq("ij->i")), {2}, {6, 15});
  expectValues(run("Einsum", {&a}, eq("ij->")), {}, {21});
  expectValues(run("Einsum", {&a}, eq("ji")), {3, 2}, {1, 4, 2, 5, 3, 6});  // implicit: letters sorted
  const Tensor v = F({2}, {1, 2}), w = F({3}, {1, 0, -1});
  expectValues(run("Einsum", {&v, &w}, eq("i,j->ij")), {2, 3}, {1, 0, -1, 2, 0, -2});
  expectValues(run("Einsum", {&v, &v}, eq("i, i")), {}, {5});  // spaces are allowed
  const Tensor sq = F({2, 2}, {1, 2, 3, 4});
  expectValues(run("Einsum", {&sq}, eq("ii->i")), {2}, {1, 4});
  expectValues(run("Einsum", {&sq}, eq("ii")), {}, {5});  // implicit trace
  const Tensor batch = F({2, 1, 2}, {1, 2, 3, 4}), col = F({2, 2, 1}, {1, 1, 2, -1});
  expectValues(run("Einsum", {&batch, &col}, eq("bij,bjk->bik")), {2, 1, 1}, {3, 2});
  expectValues(run("Einsum", {&batch, &col}, eq("...ij,...jk->...ik")), {2, 1, 1}, {3, 2});
}

TEST(Einsum, RefusedForms) {
  const Tensor a = F({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_FALSE(inferOp("Einsum", {&a}, eq("ijk->i")).ok());  // rank mismatch
  EXPECT_FALSE(inferOp("Einsum", {&a}, eq("ii->i")).ok());   // diagonal of unequal dims
  EXPECT_FALSE(inferOp("Einsum", {&a}, eq("ij->ik")).ok());  // k in no input
  EXPECT_FALSE(inferOp("Einsum", {&a}, eq("ij->ii")).ok());
  EXPECT_FALSE(inferOp("Einsum", {&a, &a}, eq("ij->ij")).ok());  // terms != inputs
  const Tensor b = F({1, 3}, {1, 2, 3});
  EXPECT_FALSE(inferOp("Einsum", {&a, &b}, eq("...j,...j->...j")).ok());  // ellipsis dims 2 vs 1
  EXPECT_FALSE(inferOp("Einsum", {&a}, eq("i-j")).ok());
}

TEST(Einsum, SamplerStaysSmall) {
  sample("Einsum", 200, [](const Instantiation& inst) {
    EXPECT_TRUE(inst.attrs.has("equation"));
    for (const Operand& op : inst.operands) EXPECT_LE(op.type.numel(), 1 << 14);
  });
}

}  // namespace
}  // namespace nnfuzz
