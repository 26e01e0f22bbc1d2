// affine_grid_test.cpp - AffineGrid: the identity theta gives GridSample's base grid
// (with and without align_corners, 2-D and 3-D), a translation, the degenerate dim of 1,
// rejections and a sampler sweep.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

Attributes align(int64_t v) {
  return A([&](Attributes& a) { a.setInt("align_corners", v); });
}

TEST(AffineGrid, IdentityIsTheBaseGrid) {
  const Tensor identity = F({1, 2, 3}, {1, 0, 0, 0, 1, 0});
  const Tensor size = T(DType::Int64, {4}, {1, 1, 2, 3});  // H 2, W 3
  // (x, y) per point, rows of W: x at pixel centres -2/3, 0, 2/3; y -1/2, 1/2.
  expectValues(run("AffineGrid", {&identity, &size}), {1, 2, 3, 2},
               {-2. / 3, -0.5, 0, -0.5, 2. / 3, -0.5, -2. / 3, 0.5, 0, 0.5, 2. / 3, 0.5});
  expectValues(run("AffineGrid", {&identity, &size}, align(1)), {1, 2, 3, 2}, {-1, -1, 0, -1, 1, -1, -1, 1, 0, 1, 1, 1});
  // A translation by (0.5, -1) on a single pixel with align_corners: the base is -1.
  const Tensor shift = F({1, 2, 3}, {1, 0, 0.5, 0, 1, -1});
  const Tensor pixel = T(DType::Int64, {4}, {1, 3, 1, 1});
  expectValues(run("AffineGrid", {&shift, &pixel}, align(1)), {1, 1, 1, 2}, {-0.5, -2});
  // ... where engines disagree: unstable with align_corners only.
  EXPECT_TRUE(unstable("AffineGrid", {&shift, &pixel}, align(1)));
  EXPECT_FALSE(unstable("AffineGrid", {&shift, &pixel}, align(0)));
  EXPECT_FALSE(unstable("AffineGrid", {&identity, &size}, align(1)));
}

TEST(AffineGrid, ThreeDimensions) {
  const Tensor identity = F({1, 3, 4}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0});
  const Tensor size = T(DType::Int64, {5}, {1, 1, 2, 1, 2});  // D 2, H 1, W 2
  expectValues(run("AffineGrid", {&identity, &size}, align(1)), {1, 2, 1, 2, 3},
               {-1, -1, -1, 1, -1, -1, -1, -1, 1, 1, -1, 1});
}

TEST(AffineGrid, Rejects) {
  const Tensor theta = F({2, 2, 3}, std::vector<double>(12, 0));
  const Tensor wrongN = T(DType::Int64, {4}, {1, 1, 2, 2}), threeD = T(DType::Int64, {5}, {2, 1, 2, 2, 2});
  EXPECT_FALSE(inferOp("AffineGrid", {&theta, &wrongN}).ok());
  EXPECT_FALSE(inferOp("AffineGrid", {&theta, &threeD}).ok());
  const Tensor square = F({2, 2, 2}, std::vector<double>(8, 0));
  const Tensor size = T(DType::Int64, {4}, {2, 1, 2, 2});
  EXPECT_FALSE(inferOp("AffineGrid", {&square, &size}).ok());
  EXPECT_FALSE(inferOp("AffineGrid", {&theta, &size}, align(2)).ok());
}

TEST(AffineGrid, SamplerIsSound) {
  int threeD = 0;
  sample("AffineGrid", 300, [&](const Instantiation& inst) {
    EXPECT_EQ(inst.outputTypes[0].shape.back(), inst.operands[0].type.shape[1]);
    threeD += inst.operands[0].type.shape[1] == 3;
    if (inst.attrs.getInt("align_corners", 0) == 1) {
      for (size_t i = 2; i < inst.operands[1].constant->data.size(); ++i) EXPECT_GE(inst.operands[1].constant->data[i], 2);
    }
  });
  EXPECT_GT(threeD, 30);
}

}  // namespace
}  // namespace nnfuzz
