// value_shape_test.cpp - operators whose result shape or contents hinge on integer values:
// OneHot (negative and out-of-range indices, axis), BitShift (bits dropped on the left),
// and the value-dependent Compress, NonZero and Unique, which need constant operands.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

Tensor i64(Shape s, std::vector<double> v) { return T(DType::Int64, std::move(s), std::move(v)); }

TEST(OneHot, NegativeOutOfRangeAndAxis) {
  const Tensor idx = i64({4}, {0, -1, 3, -4}), depth = i64({}, {3}), values = F({2}, {-1, 5});
  expectValues(run("OneHot", {&idx, &depth, &values}), {4, 3}, {5, -1, -1, -1, -1, 5, -1, -1, -1, -1, -1, -1});
  const Attributes axis0 = A([](Attributes& a) { a.setInt("axis", 0); });
  expectValues(run("OneHot", {&idx, &depth, &values}, axis0), {3, 4}, {5, -1, -1, -1, -1, -1, -1, -1, -1, 5, -1, -1});
  const Tensor fidx = F({2}, {1.5, 2.3});
  EXPECT_FALSE(unstable("OneHot", {&fidx, &depth, &values}));
  const Tensor near = F({1}, {1.9999});
  EXPECT_TRUE(unstable("OneHot", {&near, &depth, &values}));
  const Tensor zero = i64({}, {0});
  EXPECT_FALSE(inferOp("OneHot", {&idx, &zero, &values}).ok());
}

TEST(BitShift, LeftDropsHighBits) {
  const Tensor x = T(DType::UInt8, {3}, {200, 3, 255}), y = T(DType::UInt8, {3}, {1, 2, 7});
  const Attributes left = A([](Attributes& a) { a.setString("direction", "LEFT"); });
  const Attributes right = A([](Attributes& a) { a.setString("direction", "RIGHT"); });
  expectValues(run("BitShift", {&x, &y}, left), {3}, {144, 12, 128});
  expectValues(run("BitShift", {&x, &y}, right), {3}, {100, 0, 1});
  EXPECT_FALSE(inferOp("BitShift", {&x, &y}).ok());  // direction is required
}

TEST(Compress, AxisFlatAndShortCondition) {
  const Tensor x = F({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor c = T(DType::Bool, {2}, {0, 1});
  const Attributes axis1 = A([](Attributes& a) { a.setInt("axis", 1); });
  expectValues(run("Compress", {&x, &c}, axis1), {2, 1}, {2, 5});  // the third column is dropped too
  const Attributes axis0 = A([](Attributes& a) { a.setInt("axis", 0); });
  expectValues(run("Compress", {&x, &c}, axis0), {1, 3}, {4, 5, 6});
  const Tensor flat = T(DType::Bool, {5}, {1, 0, 0, 1, 1});
  expectValues(run("Compress", {&x, &flat}), {3}, {1, 4, 5});
  const Tensor tooLong = T(DType::Bool, {3}, {1, 1, 1});
  EXPECT_FALSE(inferOp("Compress", {&x, &tooLong}, axis0).ok());
  // A condition that is not a constant leaves the result's length unknown.
  const InferResult r = inferNode(*findOp("Compress"), OperandTypes{&x.type, &c.type}, OperandConstants{nullptr, nullptr}, axis0);
  EXPECT_FALSE(r.ok());
}

TEST(NonZero, IndicesOfNonZeros) {
  const Tensor x = F({2, 2}, {1, 0, 0, -3});
  expectValues(run("NonZero", {&x}), {2, 2}, {0, 1, 0, 1});
  const InferResult r = inferNode(*findOp("NonZero"), OperandTypes{&x.type}, OperandConstants{nullptr}, {});
  EXPECT_FALSE(r.ok());
}

TEST(Unique, SortedUnsortedAndAxis) {
  const Tensor x = F({5}, {2, 1, 1, 3, 2});
  InferResult r = inferOp("Unique", {&x});
  ASSERT_TRUE(r.ok()) << r.error;
  auto out = evaluate(*findOp("Unique"), {&x}, {}, r.types);
  expectValues(out[0], {3}, {1, 2, 3});
  expectValues(out[1], {3}, {1, 0, 3});
  expectValues(out[2], {5}, {1, 0, 0, 2, 1});
  expectValues(out[3], {3}, {2, 2, 1});
  const Attributes unsorted = A([](Attributes& a) { a.setInt("sorted", 0); });
  out = evaluate(*findOp("Unique"), {&x}, unsorted, inferOp("Unique", {&x}, unsorted).types);
  expectValues(out[0], {3}, {2, 1, 3});
  expectValues(out[2], {5}, {0, 1, 1, 2, 0});
  const Tensor m = F({3, 2}, {1, 0, 0, 1, 1, 0});
  const Attributes axis0 = A([](Attributes& a) { a.setInt("axis", 0); });
  out = evaluate(*findOp("Unique"), {&m}, axis0, inferOp("Unique", {&m}, axis0).types);
  expectValues(out[0], {2, 2}, {0, 1, 1, 0});
  expectValues(out[3], {2}, {1, 2});
}

}  // namespace
}  // namespace nnfuzz
