// reduce_test.cpp - the Reduce family (ReduceSum's axes input and noop_with_empty_axes,
// the others' axes attribute, keepdims, integer truncation, overflow instability),
// Softmax/LogSoftmax along any axis, and ArgMax/ArgMin tie breaking and instability.
#include <cmath>
#include <set>

#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

const Tensor kOneToSix = F({2, 3}, {1, 2, 3, 4, 5, 6});

TEST(ReduceSum, AxesInputAndNoop) {
  const Tensor axis1 = int64Tensor({1});
  expectValues(run("ReduceSum", {&kOneToSix, &axis1}, A([](Attributes& a) { a.setInt("keepdims", 0); })), {2},
               {6, 15});
  const Tensor negative = int64Tensor({-2});
  expectValues(run("ReduceSum", {&kOneToSix, &negative}), {1, 3}, {5, 7, 9});
  expectValues(run("ReduceSum", {&kOneToSix}), {1, 1}, {21});  // no axes: all of them
  expectValues(run("ReduceSum", {&kOneToSix}, A([](Attributes& a) { a.setInt("noop_with_empty_axes", 1); })), {2, 3},
               {1, 2, 3, 4, 5, 6});
  const Tensor none = int64Tensor({});
  expectValues(run("ReduceSum", {&kOneToSix, &none}, A([](Attributes& a) { a.setInt("noop_with_empty_axes", 1); })),
               {2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_FALSE(inferOp("ReduceSum", {&kOneToSix}, A([](Attributes& a) { a.setInts("axes", {0}); })).ok());
  const Tensor twice = int64Tensor({1, -1});
  EXPECT_FALSE(inferOp("ReduceSum", {&kOneToSix, &twice}).ok());
  const Tensor outside = int64Tensor({2});
  EXPECT_FALSE(inferOp("ReduceSum", {&kOneToSix, &outside}).ok());
}

TEST(Reduce, AxesAttributeFamily) {
  auto axis = [](int64_t a, int keep) {
    return A([=](Attributes& x) {
      x.setInts("axes", {a});
      x.setInt("keepdims", keep);
    });
  };
  expectValues(run("ReduceMean", {&kOneToSix}, axis(0, 1)), {1, 3}, {2.5, 3.5, 4.5});
  expectValues(run("ReduceMax", {&kOneToSix}, axis(-1, 0)), {2}, {3, 6});
  expectValues(run("ReduceMin", {&kOneToSix}, axis(1, 0)), {2}, {1, 4});
  expectValues(run("ReduceProd", {&kOneToSix}, axis(1, 0)), {2}, {6, 120});
  const Tensor signs = F({2, 2}, {-1, 2, -3, 4});
  expectValues(run("ReduceL1", {&signs}, axis(0, 0)), {2}, {4, 6});
  expectValues(run("ReduceL2", {&signs}, axis(1, 0)), {2}, {std::sqrt(5.0), 5});
  expectValues(run("ReduceSumSquare", {&signs}, axis(1, 0)), {2}, {5, 25});
  expectValues(run("ReduceLogSum", {&kOneToSix}, axis(1, 0)), {2}, {std::log(6.0), std::log(15.0)});
  const Tensor big = F({2}, {1000, 1000});
  expectValues(run("ReduceLogSumExp", {&big}), {1}, {1000 + std::log(2.0)}, 1e-3);  // no overflow
  expectValues(run("ReduceMax", {&kOneToSix}, A([](Attributes& x) { x.setInt("keepdims", 0); })), {}, {6});
  EXPECT_FALSE(inferOp("ReduceMean", {&kOneToSix, &big}).ok());  // axes is an attribute at opset 17
  EXPECT_FALSE(inferOp("ReduceMean", {&kOneToSix}, A([](Attributes& x) { x.setInts("axes", {0, 0}); })).ok());
  EXPECT_FALSE(inferOp("ReduceMean", {&kOneToSix}, A([](Attributes& x) { x.setInt("axes", 0); })).ok());
  EXPECT_FALSE(inferOp("ReduceMean", {&kOneToSix}, A([](Attributes& x) { x.setInt("keepdims", 2); })).ok());
}

TEST(Reduce, IntegerSemantics) {
  const Tensor x = T(DType::Int32, {2, 2}, {-1, -2, 7, 0});
  auto rows = A([](Attributes& a) {
    a.setInts("axes", {1});
    a.setInt("keepdims", 0);
  });
  expectValues(run("ReduceMean", {&x}, rows), {2}, {-1, 3});  // -1.5 and 3.5 truncate toward zero
  const Tensor ones = T(DType::Int64, {2}, {1, 1});
  expectValues(run("ReduceL2", {&ones}), {1}, {1});  // sqrt 2 truncates
  const Tensor i8 = T(DType::Int8, {3}, {-128, 5, 127});
  expectValues(run("ReduceMin", {&i8}), {1}, {-128});
  EXPECT_FALSE(inferOp("ReduceSum", {&i8}).ok());  // ReduceSum-13 takes no 8-bit types
  const Tensor twos = T(DType::Int32, {40}, std::vector<double>(40, 2));
  EXPECT_TRUE(unstable("ReduceProd", {&twos}));  // 2^40 overflows int32
  const Tensor few = T(DType::Int32, {20}, std::vector<double>(20, 2));
  EXPECT_FALSE(unstable("ReduceProd", {&few}));
}

TEST(ReduceSampling, ReachesTheAttributeSpace) {
  std::set<std::string> seen;
  sample("ReduceSum", 300, [&](const Instantiation& inst) {
    seen.insert(inst.operands.size() == 2 ? "axes" : "no axes");
    if (inst.attrs.getInt("noop_with_empty_axes", 0) == 1 && inst.operands.size() == 1) seen.insert("noop");
    if (inst.attrs.getInt("keepdims", 1) == 0) seen.insert("dropped");
  });
  for (const char* want : {"axes", "no axes", "noop", "dropped"}) EXPECT_TRUE(seen.count(want)) << want;
}

TEST(Softmax, AnyAxis) {
  const Tensor x = F({2, 2}, {0, 0, 1, 3});
  const double e2 = 1 / (1 + std::exp(-2.0));
  expectValues(run("Softmax", {&x}), {2, 2}, {0.5, 0.5, 1 - e2, e2});
  const double e1 = 1 / (1 + std::exp(-1.0)), e3 = 1 / (1 + std::exp(-3.0));
  expectValues(run("Softmax", {&x}, A([](Attributes& a) { a.setInt("axis", 0); })), {2, 2}, {1 - e1, 1 - e3, e1, e3});
  const Tensor big = F({2}, {1000, 1000});
  expectValues(run("LogSoftmax", {&big}), {2}, {-std::log(2.0), -std::log(2.0)});
  EXPECT_FALSE(inferOp("Softmax", {&x}, A([](Attributes& a) { a.setInt("axis", 2); })).ok());
}

TEST(ArgMax, TiesKeepdimsAndAxes) {
  const Tensor x = T(DType::Int32, {2, 3}, {1, 3, 3, 2, 2, 0});
  const Tensor first = run("ArgMax", {&x}, A([](Attributes& a) { a.setInt("axis", 1); }));
  EXPECT_EQ(first.type.dtype, DType::Int64);
  expectValues(first, {2, 1}, {1, 0});
  expectValues(run("ArgMax", {&x}, A([](Attributes& a) {
                 a.setInt("axis", -1);
                 a.setInt("select_last_index", 1);
                 a.setInt("keepdims", 0);
               })),
               {2}, {2, 1});
  expectValues(run("ArgMin", {&x}), {1, 3}, {0, 1, 1});
  expectValues(run("ArgMin", {&x}, A([](Attributes& a) { a.setInt("axis", 1); })), {2, 1}, {0, 2});
  EXPECT_FALSE(inferOp("ArgMax", {&x}, A([](Attributes& a) { a.setInt("axis", 2); })).ok());
}

TEST(ArgMax, NearAndExactFloatTiesAreUnstable) {
  const Tensor near = F({2}, {1.0, 1.0004});
  const Tensor exact = F({2}, {1.0, 1.0});
  const Tensor apart = F({2}, {1.0, 1.1});
  const Tensor tieBelowTheBest = F({3}, {2.0, 1.0, 1.0});
  const Tensor intTie = Tensor({DType::Int64, {2}}, {3, 3});
  EXPECT_TRUE(unstable("ArgMax", {&near}));
  EXPECT_TRUE(unstable("ArgMin", {&near}));
  EXPECT_TRUE(unstable("ArgMax", {&exact})) << "a SUT's float rounding can break an exact tie";
  EXPECT_FALSE(unstable("ArgMax", {&apart}));
  EXPECT_FALSE(unstable("ArgMax", {&tieBelowTheBest}));
  EXPECT_TRUE(unstable("ArgMin", {&tieBelowTheBest}));
  EXPECT_FALSE(unstable("ArgMax", {&intTie})) << "integer ties are exact";
}

TEST(Hardmax, OneAtTheFirstLargestAlongTheAxis) {
  const Tensor x = F({2, 3}, {1, 5, 2, 7, 0, 7});
  expectValues(run("Hardmax", {&x}), {2, 3}, {0, 1, 0, 1, 0, 0});  // the first of tied 7s
  expectValues(run("Hardmax", {&x}, A([](Attributes& a) { a.setInt("axis", 0); })), {2, 3}, {0, 1, 0, 1, 0, 1});
  EXPECT_TRUE(unstable("Hardmax", {&x}));  // a tie
  const Tensor clear = F({2, 3}, {1, 5, 2, 7, 0, 6});
  EXPECT_FALSE(unstable("Hardmax", {&clear}));
  EXPECT_FALSE(inferOp("Hardmax", {&x}, A([](Attributes& a) { a.setInt("axis", 2); })).ok());
}

}  // namespace
}  // namespace nnfuzz
