// cumsum_trilu_test.cpp - hand-computed CumSum (exclusive, reverse, negative axis) and
// Trilu (upper/lower, k past the corners) cases.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

TEST(CumSum, ExclusiveAndReverse) {
  const Tensor x = F({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor last = T(DType::Int32, {}, {-1});
  expectTensor(run("CumSum", {&x, &last}), {2, 3}, {1, 3, 6, 4, 9, 15});
  expectTensor(run("CumSum", {&x, &last}, attrsOf({{"exclusive", int64_t{1}}})), {2, 3}, {0, 1, 3, 0, 4, 9});
  expectTensor(run("CumSum", {&x, &last}, attrsOf({{"reverse", int64_t{1}}})), {2, 3}, {6, 5, 3, 15, 11, 6});
  expectTensor(run("CumSum", {&x, &last}, attrsOf({{"reverse", int64_t{1}}, {"exclusive", int64_t{1}}})), {2, 3},
               {5, 3, 0, 11, 6, 0});
  const Tensor first = T(DType::Int64, {}, {0});
  expectTensor(run("CumSum", {&x, &first}), {2, 3}, {1, 2, 3, 5, 7, 9});
  const Tensor outOfRange = T(DType::Int64, {}, {2});
  EXPECT_FALSE(inferOp("CumSum", {&x, &outOfRange}).ok());
  const Tensor floatAxis = F({}, {0});
  EXPECT_FALSE(inferOp("CumSum", {&x, &floatAxis}).ok());
}

TEST(Trilu, UpperLowerAndOffsets) {
  const Tensor x = F({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  expectTensor(run("Trilu", {&x}), {3, 3}, {1, 2, 3, 0, 5, 6, 0, 0, 9});
  const Tensor one = T(DType::Int64, {}, {1});
  expectTensor(run("Trilu", {&x, &one}), {3, 3}, {0, 2, 3, 0, 0, 6, 0, 0, 0});
  const Tensor minusOne = T(DType::Int64, {}, {-1});
  expectTensor(run("Trilu", {&x, &minusOne}, attrsOf({{"upper", int64_t{0}}})), {3, 3}, {0, 0, 0, 4, 0, 0, 7, 8, 0});
  const Tensor far = T(DType::Int64, {}, {-5});
  expectTensor(run("Trilu", {&x, &far}), {3, 3}, x.data);
  const Tensor int32k = T(DType::Int32, {}, {0});
  EXPECT_FALSE(inferOp("Trilu", {&x, &int32k}).ok());
}

}  // namespace
}  // namespace nnfuzz
