// slice_pad_test.cpp - hand-computed cases for Slice (clamping, negative steps, huge
// bounds), Pad (modes, negative pads), Gather, GatherElements, DepthToSpace and
// SpaceToDepth.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;
using Ints = std::vector<int64_t>;

TEST(Slice, NegativeStartAndHugeEnd) {
  const Tensor x = iota({10});
  const Tensor starts = I64({-3}), ends = I64({4611686018427387904.0});
  expectTensor(run("Slice", {&x, &starts, &ends}), {3}, {7, 8, 9});
}

TEST(Slice, NegativeStepsClampToBothEnds) {
  const Tensor x = iota({10});
  const Tensor starts = I64({9223372036854774784.0}), ends = I64({-9223372036854775808.0}), axes = I64({0}),
               steps = I64({-1});
  expectTensor(run("Slice", {&x, &starts, &ends, &axes, &steps}), {10}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
  const Tensor s2 = I64({8}), e2 = I64({1}), st2 = I64({-3});
  expectTensor(run("Slice", {&x, &s2, &e2, nullptr, &st2}), {3}, {8, 5, 2});
}

TEST(Slice, ImportedInt64MaxSaturates) {
  // INT64_MAX read into a double is 2^63: it must still mean "to the end".
  const Tensor x = iota({4});
  const Tensor starts = I64({1}), ends = I64({9223372036854775808.0});
  expectTensor(run("Slice", {&x, &starts, &ends}), {3}, {1, 2, 3});
}

TEST(Slice, AxesAndInt32Indices) {
  const Tensor x = iota({3, 4});
  const Tensor starts = T(DType::Int32, {1}, {1}), ends = T(DType::Int32, {1}, {3}), axes = T(DType::Int32, {1}, {-1});
  expectTensor(run("Slice", {&x, &starts, &ends, &axes}), {3, 2}, {1, 2, 5, 6, 9, 10});
  const Tensor ends64 = I64({3});
  EXPECT_FALSE(inferOp("Slice", {&x, &starts, &ends64}).ok());  // mixed index dtypes
  const Tensor s = I64({0, 0}), e = I64({1, 1}), repeated = I64({1, -1});
  EXPECT_FALSE(inferOp("Slice", {&x, &s, &e, &repeated}).ok());
  const Tensor s1 = I64({0}), e1 = I64({1}), zeroStep = I64({0});
  EXPECT_FALSE(inferOp("Slice", {&x, &s1, &e1, nullptr, &zeroStep}).ok());
}

TEST(Pad, ConstantWithValue) {
  const Tensor x = F({1, 3}, {1, 2, 3});
  const Tensor pads = I64({0, 1, 0, 2});
  const Tensor value = F({}, {9});
  expectTensor(run("Pad", {&x, &pads, &value}), {1, 6}, {9, 1, 2, 3, 9, 9});
  const Tensor intValue = T(DType::Int32, {}, {9});
  EXPECT_FALSE(inferOp("Pad", {&x, &pads, &intValue}).ok());
  const Tensor shortPads = I64({0, 1});
  EXPECT_FALSE(inferOp("Pad", {&x, &shortPads}).ok());
}

TEST(Pad, EdgeAndReflect) {
  const Tensor x = F({3}, {1, 2, 3});
  const Tensor pads = I64({2, 1});
  expectTensor(run("Pad", {&x, &pads}, attrsOf({{"mode", std::string("edge")}})), {6}, {1, 1, 1, 2, 3, 3});
  const Tensor wide = I64({2, 2});
  expectTensor(run("Pad", {&x, &wide}, attrsOf({{"mode", std::string("reflect")}})), {7}, {3, 2, 1, 2, 3, 2, 1});
  const Tensor tooWide = I64({3, 0});
  EXPECT_FALSE(inferOp("Pad", {&x, &tooWide}, attrsOf({{"mode", std::string("reflect")}})).ok());
}

// Opset 19's wrap repeats the data periodically (numbers from onnx.reference); crops and
// pads longer than the dim are not modelled with it.
TEST(Pad, WrapRepeatsTheData) {
  const Attributes wrap = attrsOf({{"mode", std::string("wrap")}});
  const Tensor x = F({3}, {1, 2, 3});
  const Tensor pads = I64({2, 3});
  expectTensor(run("Pad", {&x, &pads}, wrap), {8}, {2, 3, 1, 2, 3, 1, 2, 3});
  const Tensor m = F({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor rows = I64({1, 0, 0, 2});
  expectTensor(run("Pad", {&m, &rows}, wrap), {3, 5}, {4, 5, 6, 4, 5, 1, 2, 3, 1, 2, 4, 5, 6, 4, 5});
  const Tensor crop = I64({-1, 1}), tooWide = I64({4, 0});
  EXPECT_FALSE(inferOp("Pad", {&x, &crop}, wrap).ok());
  EXPECT_FALSE(inferOp("Pad", {&x, &tooWide}, wrap).ok());
  EXPECT_FALSE(inferOp("Pad", {&x, &pads}, attrsOf({{"mode", std::string("mirror")}})).ok());
}

TEST(Pad, NegativePadsCropFirst) {
  const Tensor x = F({4}, {1, 2, 3, 4});
  const Tensor pads = I64({-1, 2});
  expectTensor(run("Pad", {&x, &pads}), {5}, {2, 3, 4, 0, 0});
  expectTensor(run("Pad", {&x, &pads}, attrsOf({{"mode", std::string("edge")}})), {5}, {2, 3, 4, 4, 4});
  // Reflect about the cropped tensor [2, 3, 4].
  expectTensor(run("Pad", {&x, &pads}, attrsOf({{"mode", std::string("reflect")}})), {5}, {2, 3, 4, 3, 2});
  const Tensor overCrop = I64({-3, -2});
  EXPECT_FALSE(inferOp("Pad", {&x, &overCrop}).ok());
}

TEST(Gather, NegativeIndicesAnyRank) {
  const Tensor x = F({3, 2}, {1, 2, 3, 4, 5, 6});
  const Tensor rows = T(DType::Int64, {1, 2}, {0, -1});
  expectTensor(run("Gather", {&x, &rows}), {1, 2, 2}, {1, 2, 5, 6});
  const Tensor last = T(DType::Int32, {}, {-1});
  expectTensor(run("Gather", {&x, &last}, attrsOf({{"axis", int64_t{1}}})), {3}, {2, 4, 6});
  const Tensor outOfRange = T(DType::Int64, {1}, {3});
  EXPECT_FALSE(inferOp("Gather", {&x, &outOfRange}).ok());
  const Tensor floatIndices = F({1}, {0});
  EXPECT_FALSE(inferOp("Gather", {&x, &floatIndices}).ok());
}

TEST(GatherElements, PicksAlongAxis) {
  const Tensor x = F({2, 2}, {1, 2, 3, 4});
  const Tensor idx = T(DType::Int64, {2, 2}, {0, 0, 1, -2});
  expectTensor(run("GatherElements", {&x, &idx}, attrsOf({{"axis", int64_t{1}}})), {2, 2}, {1, 1, 4, 3});
  const Tensor wrongRank = T(DType::Int64, {2}, {0, 1});
  EXPECT_FALSE(inferOp("GatherElements", {&x, &wrongRank}).ok());
}

TEST(DepthToSpace, DcrAndCrd) {
  const Tensor x = iota({1, 8, 1, 1});
  const Attributes dcr = attrsOf({{"blocksize", int64_t{2}}});
  expectTensor(run("DepthToSpace", {&x}, dcr), {1, 2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7});
  const Attributes crd = attrsOf({{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}});
  expectTensor(run("DepthToSpace", {&x}, crd), {1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_FALSE(inferOp("DepthToSpace", {&x}, attrsOf({{"blocksize", int64_t{3}}})).ok());
  EXPECT_FALSE(inferOp("DepthToSpace", {&x}).ok());
}

TEST(SpaceToDepth, InvertsDcr) {
  const Tensor x = iota({1, 1, 2, 2});
  const Attributes b2 = attrsOf({{"blocksize", int64_t{2}}});
  expectTensor(run("SpaceToDepth", {&x}, b2), {1, 4, 1, 1}, {0, 1, 2, 3});
  const Tensor y = iota({1, 8, 2, 3});
  const Tensor up = run("DepthToSpace", {&y}, b2);
  expectTensor(run("SpaceToDepth", {&up}, b2), {1, 8, 2, 3}, y.data);
  const Tensor odd = iota({1, 1, 3, 2});
  EXPECT_FALSE(inferOp("SpaceToDepth", {&odd}, b2).ok());
}

}  // namespace
}  // namespace nnfuzz
