// tensor_makers_test.cpp - Shape (start/end clamping) and Size; ConstantOfShape, EyeLike
// (k off the diagonal, dtype) and Range (counts, negative steps, exactness of sampled
// operands, the constant first operand drawn by the sampler).
#include <cmath>

#include "ops/instantiate.h"
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

const Tensor kCube = F({2, 3, 4}, std::vector<double>(24, 1.0));

TEST(Shape, StartAndEndClamp) {
  expectValues(run("Shape", {&kCube}), {3}, {2, 3, 4});
  expectValues(run("Shape", {&kCube}, A([](Attributes& a) { a.setInt("start", -2); })), {2}, {3, 4});
  expectValues(run("Shape", {&kCube}, A([](Attributes& a) { a.setInt("end", 10); })), {3}, {2, 3, 4});
  expectValues(run("Shape", {&kCube}, A([](Attributes& a) {
                 a.setInt("start", 1);
                 a.setInt("end", -1);
               })),
               {1}, {3});
  EXPECT_EQ(inferOp("Shape", {&kCube}, A([](Attributes& a) { a.setInt("start", 2), a.setInt("end", 1); })).types[0].shape,
            (Shape{0}));
  sample("Shape", 40, [](const Instantiation& inst) { EXPECT_GT(inst.outputTypes[0].numel(), 0); });
}

TEST(Size, CountsElements) {
  const Tensor y = run("Size", {&kCube});
  EXPECT_EQ(y.type, (TensorType{DType::Int64, {}}));
  expectValues(y, {}, {24});
}

TEST(ConstantOfShape, ZerosOfTheConstantShape) {
  const Tensor shape = int64Tensor({2, 3});
  expectValues(run("ConstantOfShape", {&shape}), {2, 3}, std::vector<double>(6, 0.0));
  const Tensor negative = int64Tensor({2, -1});
  EXPECT_FALSE(inferOp("ConstantOfShape", {&negative}).ok());
  // Not a constant: rejected.
  EXPECT_FALSE(inferNode(*findOp("ConstantOfShape"), OperandTypes{&shape.type}, OperandConstants{nullptr}, {}).ok());
  Limits limits;
  limits.dtypes = {DType::Float32, DType::Int64};
  Rng rng(3);
  for (int i = 0; i < 30; ++i) {
    Instantiation inst = instantiateOp(*findOp("ConstantOfShape"), rng, limits, nullptr, 0.0);
    ASSERT_TRUE(inst.ok()) << inst.error;
    ASSERT_TRUE(inst.operands[0].constant.has_value());
    EXPECT_EQ(static_cast<size_t>(inst.outputTypes[0].rank()), inst.operands[0].constant->data.size());
  }
}

TEST(EyeLike, DiagonalOffsetAndDtype) {
  const Tensor x = F({2, 3}, std::vector<double>(6, 5.0));
  expectValues(run("EyeLike", {&x}), {2, 3}, {1, 0, 0, 0, 1, 0});
  expectValues(run("EyeLike", {&x}, A([](Attributes& a) { a.setInt("k", 1); })), {2, 3}, {0, 1, 0, 0, 0, 1});
  expectValues(run("EyeLike", {&x}, A([](Attributes& a) { a.setInt("k", -1); })), {2, 3}, {0, 0, 0, 1, 0, 0});
  const Tensor y = run("EyeLike", {&x}, A([](Attributes& a) { a.setInt("dtype", 7); }));
  EXPECT_EQ(y.type.dtype, DType::Int64);
  const Tensor cube = F({1, 1, 1}, {1});
  EXPECT_FALSE(inferOp("EyeLike", {&cube}).ok());
  EXPECT_FALSE(inferOp("EyeLike", {&x}, A([](Attributes& a) { a.setInt("dtype", 8); })).ok());  // string
}

TEST(Range, CountsAndSteps) {
  auto s = [](DType d, double v) { return T(d, {}, {v}); };
  const Tensor a = s(DType::Int64, 1), b = s(DType::Int64, 7), c = s(DType::Int64, 2);
  expectValues(run("Range", {&a, &b, &c}), {3}, {1, 3, 5});
  const Tensor fa = s(DType::Float32, 10), fb = s(DType::Float32, 6), fc = s(DType::Float32, -1.5);
  expectValues(run("Range", {&fa, &fb, &fc}), {3}, {10, 8.5, 7});
  const Tensor zero = s(DType::Int64, 0);
  EXPECT_FALSE(inferOp("Range", {&a, &b, &zero}).ok());
  EXPECT_EQ(inferOp("Range", {&b, &a, &c}).types[0].shape, (Shape{0}));  // empty, still valid
  EXPECT_FALSE(inferOp("Range", {&a, &fb, &c}).ok());                     // mixed dtypes
  const Tensor nearly = s(DType::Float32, 6.0004);                        // (6.0004 - 0) / 1 sits by 6
  const Tensor f0 = s(DType::Float32, 0), f1 = s(DType::Float32, 1);
  EXPECT_TRUE(unstable("Range", {&f0, &nearly, &f1}));
  EXPECT_FALSE(unstable("Range", {&f0, &fb, &f1}));
}

TEST(Range, SampledOperandsGiveExactNonEmptyRanges) {
  Limits limits;
  limits.dtypes = {DType::Float32, DType::Int64};
  Rng rng(11);
  for (int i = 0; i < 200; ++i) {
    Instantiation inst = instantiateOp(*findOp("Range"), rng, limits, nullptr, 0.0);
    ASSERT_TRUE(inst.ok()) << inst.error;
    const int64_t n = inst.outputTypes[0].shape[0];
    EXPECT_GE(n, 1);
    EXPECT_LE(n, 2 * limits.maxDim);
    const double q = (inst.operands[1].constant->data[0] - inst.operands[0].constant->data[0]) /
                     inst.operands[2].constant->data[0];
    const double dist = std::abs(q - std::round(q));
    if (isFloat(inst.operands[0].type.dtype)) {
      EXPECT_TRUE(dist == 0 || dist >= 0.25) << q;
    }
  }
}

}  // namespace
}  // namespace nnfuzz
