// einsum_test.cpp - Einsum: the equation families the sampler builds (matmul, batched,
// transpose, reductions, diagonal, outer and inner products, implicit outputs, ellipsis)
// against hand-computed values, and the forms inference refuses.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

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

// The false alarm dcf-515dd0a4: in "a,b,cb,bdc->d" the sum over a = [-1, -0, 1] factors out,
// so every result is exactly 0 and ONNX Runtime gives 0; the reference summed the terms in
// another order and kept a residue near 1e-9 (of terms summing to 8e7 in magnitude), which
// the next Einsum multiplied into a 0.0097 "error". A cancelling result is unstable ...
TEST(Einsum, CancellationIsUnstable) {
  const Tensor a = F({3}, {-1, -0.0, 1});
  const Tensor b = F({4}, {0.1f, 3.3f, 7.7f, 1000.3f});
  const Tensor c = F({2, 4}, {0.7f, -1.9f, 2.3f, 0.01f, 1.1f, 1.3f, -0.3f, 1.7f});
  const Attributes factored = eq("a,b,cb->c");
  EXPECT_TRUE(unstable("Einsum", {&a, &b, &c}, factored));
  // ... and so is one within 1e-5 of its terms' magnitude, in any contraction.
  const Tensor u = F({1, 3}, {1, 1, 1}), v = F({3, 1}, {1000, -1000.0078125f, 0.0078125f + 1e-5f});
  EXPECT_TRUE(unstable("Einsum", {&u, &v}, eq("ij,jk->ik")));
  // Terms that do not cancel are stable, and so are terms that are all 0 (an exact 0).
  const Tensor w = F({3, 1}, {1, 2, 3});
  EXPECT_FALSE(unstable("Einsum", {&u, &w}, eq("ij,jk->ik")));
  const Tensor zeros = F({3}, {0, 0, 0});
  EXPECT_FALSE(unstable("Einsum", {&zeros, &b, &c}, factored));
  // Exact integer-valued operands cancel exactly in any order: their 0 is trusted ...
  const Tensor ib = F({4}, {1, 2, 3, 4}), ic = F({2, 4}, {3, -1, 2, 5, 1, 1, 1, 1});
  EXPECT_FALSE(unstable("Einsum", {&a, &ib, &ic}, factored));
  // ... but not when one of them is itself a rounded result (a Softmax's 1.0, a Sum's 0).
  Tensor roundedB = ib;
  roundedB.exact = false;
  EXPECT_TRUE(unstable("Einsum", {&a, &roundedB, &ic}, factored));
  // Integer dtypes are exact.
  const Tensor ia = T(DType::Int64, {3}, {-1, 0, 1}), ib64 = T(DType::Int64, {4}, {1, 2, 3, 4});
  EXPECT_FALSE(unstable("Einsum", {&ia, &ib64}, eq("a,b->")));
}

TEST(Einsum, SamplerStaysSmall) {
  sample("Einsum", 200, [](const Instantiation& inst) {
    EXPECT_TRUE(inst.attrs.has("equation"));
    for (const Operand& op : inst.operands) EXPECT_LE(op.type.numel(), 1 << 14);
  });
}

}  // namespace
}  // namespace nnfuzz
