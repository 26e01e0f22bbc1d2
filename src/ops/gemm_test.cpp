// gemm_test.cpp - Gemm (transposes, alpha/beta, C broadcasting) and MatMul (1-D operands
// on either side, batch broadcasting), with the shape checks that reject bad operands.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

TEST(Gemm, TransposesAlphaBetaAndRowBroadcast) {
  const Tensor a = F({2, 2}, {1, 2, 3, 4});
  const Tensor b = F({2, 2}, {1, 0, 0, 1});
  const Tensor c = F({2}, {10, 20});
  // 2 * A^T * I + 0.5 * [10 20]
  expectValues(run("Gemm", {&a, &b, &c}, A([](Attributes& x) {
                 x.setInt("transA", 1);
                 x.setInt("transB", 1);
                 x.setFloat("alpha", 2);
                 x.setFloat("beta", 0.5);
               })),
               {2, 2}, {7, 16, 9, 18});
}

TEST(Gemm, NonSquareAndColumnBroadcast) {
  const Tensor a = F({1, 3}, {1, 2, 3});
  const Tensor b = F({2, 3}, {1, 1, 1, 0, 1, 0});
  const Tensor col = F({1, 1}, {100});
  expectValues(run("Gemm", {&a, &b, &col}, A([](Attributes& x) { x.setInt("transB", 1); })), {1, 2}, {106, 102});
  EXPECT_FALSE(inferOp("Gemm", {&a, &b}).ok());  // 1x3 times 2x3
  const Tensor bad = F({3}, {1, 2, 3});
  EXPECT_FALSE(inferOp("Gemm", {&a, &b, &bad}, A([](Attributes& x) { x.setInt("transB", 1); })).ok());
  const Tensor i = T(DType::Int32, {2, 3}, {1, 1, 1, 0, 1, 0});
  EXPECT_FALSE(inferOp("Gemm", {&a, &i}, A([](Attributes& x) { x.setInt("transB", 1); })).ok());
}

TEST(Gemm, IntegerExact) {
  const Tensor a = T(DType::Int64, {1, 2}, {3, -4});
  const Tensor b = T(DType::Int64, {2, 1}, {5, 6});
  expectValues(run("Gemm", {&a, &b}, A([](Attributes& x) { x.setFloat("alpha", -2); })), {1, 1}, {18});
}

TEST(MatMul, VectorOperands) {
  const Tensor v = F({2}, {1, 2});
  const Tensor m = F({2, 3}, {1, 2, 3, 4, 5, 6});
  expectValues(run("MatMul", {&v, &m}), {3}, {9, 12, 15});
  const Tensor sq = F({2, 2}, {1, 2, 3, 4});
  const Tensor ones = F({2}, {1, 1});
  expectValues(run("MatMul", {&sq, &ones}), {2}, {3, 7});
  expectValues(run("MatMul", {&v, &ones}), {}, {3});
}

TEST(MatMul, BatchBroadcast) {
  const Tensor a = F({2, 1, 2}, {1, 2, 3, 4});
  const Tensor col = F({2, 1}, {1, 1});
  expectValues(run("MatMul", {&a, &col}), {2, 1, 1}, {3, 7});
  const Tensor row = F({1, 1, 2}, {1, 2});
  const Tensor cols = F({3, 2, 1}, {1, 0, 0, 1, 1, 1});
  expectValues(run("MatMul", {&row, &cols}), {3, 1, 1}, {1, 2, 3});
  // Batch dims broadcast both ways: [2,1] with [3] gives [2,3].
  const Tensor lhs = F({2, 1, 1, 1}, {1, 2});
  const Tensor rhs = F({3, 1, 1}, {1, 10, 100});
  expectValues(run("MatMul", {&lhs, &rhs}), {2, 3, 1, 1}, {1, 10, 100, 2, 20, 200});
  const Tensor bad = F({3, 2, 1}, {1, 1, 1, 1, 1, 1});
  EXPECT_FALSE(inferOp("MatMul", {&a, &bad}).ok());  // batch 2 vs 3
  const Tensor inner = F({3, 1}, {1, 1, 1});
  EXPECT_FALSE(inferOp("MatMul", {&a, &inner}).ok());  // K 2 vs 3
}

}  // namespace
}  // namespace nnfuzz
