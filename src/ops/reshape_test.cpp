// reshape_test.cpp - hand-computed cases for the data-preserving shape ops: Reshape,
// Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Expand, Tile.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;
using Ints = std::vector<int64_t>;

TEST(Reshape, ZeroCopiesAndMinusOneInfers) {
  const Tensor x = iota({2, 3, 4});
  const Tensor shape = I64({0, -1});
  expectTensor(run("Reshape", {&x, &shape}), {2, 12}, x.data);
  const Tensor copyMiddle = I64({4, 0, 2});
  EXPECT_EQ(run("Reshape", {&x, &copyMiddle}).type.shape, (Shape{4, 3, 2}));
}

TEST(Reshape, AllowzeroAndInvalidShapes) {
  const Tensor x = iota({2, 3, 4});
  const Tensor zeroAndMinus = I64({0, -1});
  EXPECT_FALSE(inferOp("Reshape", {&x, &zeroAndMinus}, attrsOf({{"allowzero", int64_t{1}}})).ok());
  const Tensor twoMinus = I64({-1, -1});
  EXPECT_FALSE(inferOp("Reshape", {&x, &twoMinus}).ok());
  const Tensor wrongCount = I64({5, 5});
  EXPECT_FALSE(inferOp("Reshape", {&x, &wrongCount}).ok());
  const Tensor zeroPastRank = I64({2, 3, 2, 0});
  EXPECT_FALSE(inferOp("Reshape", {&x, &zeroPastRank}).ok());
  const Tensor int32Shape = T(DType::Int32, {2}, {6, 4});
  EXPECT_FALSE(inferOp("Reshape", {&x, &int32Shape}).ok());
  // allowzero = 1 with no zero behaves as usual.
  const Tensor plain = I64({6, -1});
  EXPECT_EQ(run("Reshape", {&x, &plain}, attrsOf({{"allowzero", int64_t{1}}})).type.shape, (Shape{6, 4}));
}

TEST(Transpose, RejectsUnknownAttributes) {
  const Tensor x = iota({2, 3});
  EXPECT_FALSE(inferOp("Transpose", {&x}, attrsOf({{"axis", int64_t{0}}})).ok());
}

TEST(Flatten, AxisRange) {
  const Tensor x = iota({2, 3, 4});
  EXPECT_EQ(run("Flatten", {&x}).type.shape, (Shape{2, 12}));
  EXPECT_EQ(run("Flatten", {&x}, attrsOf({{"axis", int64_t{-1}}})).type.shape, (Shape{6, 4}));
  EXPECT_EQ(run("Flatten", {&x}, attrsOf({{"axis", int64_t{0}}})).type.shape, (Shape{1, 24}));
  EXPECT_EQ(run("Flatten", {&x}, attrsOf({{"axis", int64_t{3}}})).type.shape, (Shape{24, 1}));
  EXPECT_FALSE(inferOp("Flatten", {&x}, attrsOf({{"axis", int64_t{4}}})).ok());
  EXPECT_FALSE(inferOp("Flatten", {&x}, attrsOf({{"axis", std::string("1")}})).ok());
}

TEST(Squeeze, AxesOptionalAndChecked) {
  const Tensor x = iota({1, 3, 1, 2});
  const Tensor minusTwo = I64({-2});
  EXPECT_EQ(run("Squeeze", {&x, &minusTwo}).type.shape, (Shape{1, 3, 2}));
  EXPECT_EQ(run("Squeeze", {&x}).type.shape, (Shape{3, 2}));
  const Tensor notOne = I64({1});
  EXPECT_FALSE(inferOp("Squeeze", {&x, &notOne}).ok());
  const Tensor repeated = I64({0, -4});
  EXPECT_FALSE(inferOp("Squeeze", {&x, &repeated}).ok());
}

TEST(Unsqueeze, NegativeAxesCountInTheResult) {
  const Tensor x = iota({3, 4});
  const Tensor axes = I64({-1, 0});
  expectTensor(run("Unsqueeze", {&x, &axes}), {1, 3, 4, 1}, x.data);
  const Tensor repeated = I64({0, 0});
  EXPECT_FALSE(inferOp("Unsqueeze", {&x, &repeated}).ok());
  const Tensor outOfRange = I64({3});
  EXPECT_FALSE(inferOp("Unsqueeze", {&x, &outOfRange}).ok());
}

TEST(Transpose, DefaultReversesAndPermMoves) {
  const Tensor x = iota({2, 3});
  expectTensor(run("Transpose", {&x}), {3, 2}, {0, 3, 1, 4, 2, 5});
  const Tensor y = iota({2, 3, 4});
  const Tensor t = run("Transpose", {&y}, attrsOf({{"perm", Ints{1, 2, 0}}}));
  ASSERT_EQ(t.type.shape, (Shape{3, 4, 2}));
  // out[i, j, k] = in[k, i, j]: out[1, 2, 1] = in[1, 1, 2] = 12 + 4 + 2.
  EXPECT_EQ(t.data[(1 * 4 + 2) * 2 + 1], 18);
  EXPECT_FALSE(inferOp("Transpose", {&y}, attrsOf({{"perm", Ints{0, 0, 1}}})).ok());
  EXPECT_FALSE(inferOp("Transpose", {&y}, attrsOf({{"perm", Ints{0, 1}}})).ok());
}

TEST(Concat, JoinsAlongNegativeAxis) {
  const Tensor a = F({2, 1}, {1, 2});
  const Tensor b = F({2, 2}, {3, 4, 5, 6});
  expectTensor(run("Concat", {&a, &b}, attrsOf({{"axis", int64_t{-1}}})), {2, 3}, {1, 3, 4, 2, 5, 6});
  EXPECT_FALSE(inferOp("Concat", {&a, &b}).ok());  // axis is required
  EXPECT_FALSE(inferOp("Concat", {&a, &b}, attrsOf({{"axis", int64_t{0}}})).ok());
  const Tensor c = T(DType::Int32, {2, 1}, {1, 2});
  EXPECT_FALSE(inferOp("Concat", {&a, &c}, attrsOf({{"axis", int64_t{1}}})).ok());
}

TEST(Split, SizesFromTheSplitInput) {
  const Tensor x = iota({5});
  const Tensor split = I64({2, 3});
  auto outs = runAll("Split", {&x, &split});
  ASSERT_EQ(outs.size(), 2u);
  expectTensor(outs[0], {2}, {0, 1});
  expectTensor(outs[1], {3}, {2, 3, 4});
  const Tensor y = iota({2, 4});
  const Tensor cols = I64({1, 3});
  outs = runAll("Split", {&y, &cols}, attrsOf({{"axis", int64_t{-1}}}));
  ASSERT_EQ(outs.size(), 2u);
  expectTensor(outs[0], {2, 1}, {0, 4});
  expectTensor(outs[1], {2, 3}, {1, 2, 3, 5, 6, 7});
  const Tensor badSum = I64({1, 1});
  EXPECT_FALSE(inferOp("Split", {&x, &badSum}).ok());
  EXPECT_EQ(runAll("Split", {&x}).size(), 1u);
}

TEST(Expand, BroadcastsBothWays) {
  const Tensor x = F({3, 1}, {1, 2, 3});
  const Tensor shape = I64({2, 1, 4});
  const Tensor e = run("Expand", {&x, &shape});
  ASSERT_EQ(e.type.shape, (Shape{2, 3, 4}));
  EXPECT_EQ(e.data[4], 2);   // [0, 1, 0]
  EXPECT_EQ(e.data[23], 3);  // [1, 2, 3]
  const Tensor bad = I64({2});
  const Tensor three = iota({3});
  EXPECT_FALSE(inferOp("Expand", {&three, &bad}).ok());
}

TEST(Tile, RepeatsEachDim) {
  const Tensor x = F({2, 2}, {1, 2, 3, 4});
  const Tensor repeats = I64({1, 2});
  expectTensor(run("Tile", {&x, &repeats}), {2, 4}, {1, 2, 1, 2, 3, 4, 3, 4});
  const Tensor wrongLength = I64({2});
  EXPECT_FALSE(inferOp("Tile", {&x, &wrongLength}).ok());
  const Tensor negative = I64({1, -1});
  EXPECT_FALSE(inferOp("Tile", {&x, &negative}).ok());
}

}  // namespace
}  // namespace nnfuzz
