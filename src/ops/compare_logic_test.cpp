// compare_logic_test.cpp - comparisons (bool results, stability near ties), logic ops and
// Where's three-way broadcast.
#include <set>

#include "ops/op_test_util.h"
#include "ops/instantiate.h"

namespace nnfuzz {
namespace {

using namespace optest;

TEST(Compare, ResultsAreBoolAndBroadcast) {
  const Tensor a = T(DType::Int32, {2, 1}, {1, 3});
  const Tensor b = T(DType::Int32, {3}, {1, 2, 3});
  const Tensor lt = run("Less", {&a, &b});
  EXPECT_EQ(lt.type, (TensorType{DType::Bool, {2, 3}}));
  expectNear(lt, {0, 1, 1, 0, 0, 0});
  expectNear(run("LessOrEqual", {&a, &b}), {1, 1, 1, 0, 0, 1});
  expectNear(run("Greater", {&a, &b}), {0, 0, 0, 1, 1, 0});
  expectNear(run("GreaterOrEqual", {&a, &b}), {1, 0, 0, 1, 1, 1});
  expectNear(run("Equal", {&a, &b}), {1, 0, 0, 0, 0, 1});
  const Tensor t = T(DType::Bool, {2}, {1, 0});
  expectNear(run("Equal", {&t, &t}), {1, 1});
  EXPECT_FALSE(inferOp("Less", {&t, &t}).ok());  // Less takes no bools
}

TEST(Compare, FloatTiesAreUnstable) {
  const Tensor x = F({2}, {1.0, 0.30001});
  const Tensor y = F({2}, {2.0, 0.3});
  EXPECT_TRUE(unstable("Less", {&x, &y}));
  EXPECT_FALSE(unstable("Less", {&x, &x}));  // the same tensor compares exactly
  const Tensor ints = F({2}, {1, 2}), same = F({2}, {1, 3});
  EXPECT_FALSE(unstable("Equal", {&ints, &same}));  // ties of exact tensors are exact
  const Tensor frac = F({1}, {0.7});
  Tensor computed = F({1}, {0.7});
  computed.exact = false;  // say, a Softmax's result: a SUT's may be an ulp away
  EXPECT_FALSE(unstable("Equal", {&frac, &frac}));
  EXPECT_TRUE(unstable("Equal", {&frac, &computed}));
  EXPECT_TRUE(unstable("Equal", {&computed, &frac}));
  const Tensor i = T(DType::Int32, {1}, {2});
  EXPECT_FALSE(unstable("Equal", {&i, &i}));
}

TEST(Logic, TruthTables) {
  const Tensor a = T(DType::Bool, {4}, {0, 0, 1, 1});
  const Tensor b = T(DType::Bool, {4}, {0, 1, 0, 1});
  expectNear(run("And", {&a, &b}), {0, 0, 0, 1});
  expectNear(run("Or", {&a, &b}), {0, 1, 1, 1});
  expectNear(run("Xor", {&a, &b}), {0, 1, 1, 0});
  expectNear(run("Not", {&a}), {1, 1, 0, 0});
  const Tensor f = F({4}, {0, 1, 0, 1});
  EXPECT_FALSE(inferOp("And", {&a, &f}).ok());
  EXPECT_FALSE(inferOp("Not", {&f}).ok());
}

TEST(Where, BroadcastsAllThree) {
  const Tensor c = T(DType::Bool, {2, 1}, {1, 0});
  const Tensor x = T(DType::Int64, {3}, {1, 2, 3});
  const Tensor y = T(DType::Int64, {}, {-1});
  const Tensor r = run("Where", {&c, &x, &y});
  EXPECT_EQ(r.type, (TensorType{DType::Int64, {2, 3}}));
  expectNear(r, {1, 2, 3, -1, -1, -1});
  const Tensor yf = F({}, {0});
  EXPECT_FALSE(inferOp("Where", {&c, &x, &yf}).ok());
  const Tensor cf = F({2, 1}, {1, 0});
  EXPECT_FALSE(inferOp("Where", {&cf, &x, &y}).ok());
  const Tensor bad = T(DType::Int64, {4}, {1, 2, 3, 4});
  EXPECT_FALSE(inferOp("Where", {&c, &x, &bad}).ok());
}

TEST(Where, SamplerTakesEveryDType) {
  Limits limits;
  limits.dtypes = {kAllDTypes, kAllDTypes + 7};
  Rng rng(8);
  std::set<DType> seen;
  for (int i = 0; i < 300; ++i) {
    Instantiation inst = instantiateOp(*findOp("Where"), rng, limits, nullptr, 0.0);
    ASSERT_TRUE(inst.ok()) << inst.error;
    seen.insert(inst.outputTypes[0].dtype);
  }
  EXPECT_EQ(seen.size(), 7u);
}

}  // namespace
}  // namespace nnfuzz
