// grid_sample_test.cpp - GridSample: the three modes, align_corners, the three padding
// modes at a corner outside the image, rejections and nearest's half-pixel instability.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

Attributes gs(const std::string& mode, const std::string& padding, int64_t align) {
  return A([&](Attributes& a) {
    a.setString("mode", mode);
    a.setString("padding_mode", padding);
    a.setInt("align_corners", align);
  });
}

TEST(GridSample, ModesAndCorners) {
  const Tensor x = F({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor grid = F({1, 1, 3, 2}, {-1, -1, 1, 1, 0, 0});
  // align_corners: -1 and 1 are the corner pixels' centres.
  expectValues(run("GridSample", {&x, &grid}, gs("bilinear", "zeros", 1)), {1, 1, 1, 3}, {1, 4, 2.5});
  // Without: -1 is the outer edge, half a pixel out: zeros reads a quarter of pixel (0, 0),
  // border and reflection the whole pixel.
  expectValues(run("GridSample", {&x, &grid}, gs("bilinear", "zeros", 0)), {1, 1, 1, 3}, {0.25, 1, 2.5});
  expectValues(run("GridSample", {&x, &grid}, gs("bilinear", "border", 0)), {1, 1, 1, 3}, {1, 4, 2.5});
  expectValues(run("GridSample", {&x, &grid}, gs("bilinear", "reflection", 0)), {1, 1, 1, 3}, {1, 4, 2.5});
  expectValues(run("GridSample", {&x, &grid}), {1, 1, 1, 3}, {0.25, 1, 2.5});  // defaults: bilinear, zeros, 0
  const Tensor near = F({1, 1, 1, 2}, {0.2, -0.6});  // pixel (0.6, 0.2) with align_corners
  expectValues(run("GridSample", {&x, &near}, gs("nearest", "zeros", 1)), {1, 1, 1, 1}, {2});
  // Bicubic weights sum to 1: a constant image stays constant (border keeps taps inside).
  const Tensor flat = F({1, 1, 3, 3}, {3, 3, 3, 3, 3, 3, 3, 3, 3});
  const Tensor pts = F({1, 1, 2, 2}, {0.3, -0.7, 1.1, 0.05});
  expectValues(run("GridSample", {&flat, &pts}, gs("bicubic", "border", 0)), {1, 1, 1, 2}, {3, 3});
}

TEST(GridSample, ReflectionFoldsFarPoints) {
  const Tensor x = F({1, 1, 1, 3}, {1, 2, 3});
  // Without align_corners the pixels span [-0.5, 2.5]: grid 2 is x = 4, mirrored at 2.5 to 1.
  const Tensor far = F({1, 1, 1, 2}, {2, 0});
  expectValues(run("GridSample", {&x, &far}, gs("bilinear", "reflection", 0)), {1, 1, 1, 1}, {2.0});
}

TEST(GridSample, RejectsAndHalfPixelsAreUnstable) {
  const Tensor x = F({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor bad = F({1, 1, 1, 3}, {0, 0, 0});
  EXPECT_FALSE(inferOp("GridSample", {&x, &bad}).ok());
  const Tensor grid = F({1, 1, 1, 2}, {0, 0});
  EXPECT_FALSE(inferOp("GridSample", {&x, &grid}, A([](Attributes& a) { a.setString("mode", "linear"); })).ok());
  EXPECT_FALSE(inferOp("GridSample", {&x, &grid}, A([](Attributes& a) { a.setString("padding_mode", "wrap"); })).ok());
  const Tensor other = F({2, 1, 1, 2}, {0, 0, 0, 0});
  EXPECT_FALSE(inferOp("GridSample", {&x, &other}).ok());
  // Grid 0 is pixel 0.5 with align_corners on two pixels: a rounding tie.
  EXPECT_TRUE(unstable("GridSample", {&x, &grid}, gs("nearest", "zeros", 1)));
  EXPECT_FALSE(unstable("GridSample", {&x, &grid}, gs("bilinear", "zeros", 1)));
  const Tensor off = F({1, 1, 1, 2}, {0.3, 0.3});
  EXPECT_FALSE(unstable("GridSample", {&x, &off}, gs("nearest", "zeros", 1)));
}

}  // namespace
}  // namespace nnfuzz
