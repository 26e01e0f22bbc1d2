// resize_test.cpp - hand-computed Resize cases: each coordinate transformation, nearest
// rounding at ties, linear and cubic weights, exclude_outside, tf_crop_and_resize with
// extrapolation, output sizes from scales, validity and the instability check.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

Attributes modes(const char* mode, const char* ctm, const char* nearest = "round_prefer_floor") {
  return attrsOf({{"mode", std::string(mode)},
                  {"coordinate_transformation_mode", std::string(ctm)},
                  {"nearest_mode", std::string(nearest)}});
}

TEST(Resize, NearestAsymmetricFloor) {
  const Tensor x = F({2}, {1, 2});
  const Tensor scales = F32s({2});
  // x_ori = x / 2 = 0, 0.5, 1, 1.5.
  expectTensor(run("Resize", {&x, nullptr, &scales}, modes("nearest", "asymmetric", "floor")), {4}, {1, 1, 2, 2});
  expectTensor(run("Resize", {&x, nullptr, &scales}, modes("nearest", "asymmetric", "ceil")), {4}, {1, 2, 2, 2});
  // The tie at 0.5 is exact for a power-of-two scale: stable.
  EXPECT_FALSE(unstable("Resize", {&x, nullptr, &scales}, modes("nearest", "asymmetric")));
}

TEST(Resize, NearestTiesFollowTheRoundingMode) {
  const Tensor x = F({2}, {1, 2});
  const Tensor sizes = I64({3});
  // half_pixel with scale 1.5: x_ori = -1/6, 0.5, 7/6.
  expectTensor(run("Resize", {&x, nullptr, nullptr, &sizes}, modes("nearest", "half_pixel")), {3}, {1, 1, 2});
  expectTensor(run("Resize", {&x, nullptr, nullptr, &sizes}, modes("nearest", "half_pixel", "round_prefer_ceil")), {3},
               {1, 2, 2});
  // ... but computed through 1 / 1.5 it is not exact everywhere: unstable.
  EXPECT_TRUE(unstable("Resize", {&x, nullptr, nullptr, &sizes}, modes("nearest", "half_pixel")));
}

TEST(Resize, NearestFloorAtIntegersOfAThirdScale) {
  const Tensor x = F({2}, {1, 2});
  const Tensor three = F32s({3});
  // x / 3 hits 1 exactly at x = 3, where floor flips if computed as 0.99999.
  EXPECT_TRUE(unstable("Resize", {&x, nullptr, &three}, modes("nearest", "asymmetric", "floor")));
  EXPECT_FALSE(unstable("Resize", {&x, nullptr, &three}, modes("nearest", "asymmetric", "round_prefer_floor")));
}

TEST(Resize, LinearHalfPixelClampsAtTheEdges) {
  const Tensor x = F({2}, {1, 2});
  const Tensor scales = F32s({2});
  // x_ori = -0.25, 0.25, 0.75, 1.25.
  expectTensor(run("Resize", {&x, nullptr, &scales}, modes("linear", "half_pixel")), {4}, {1, 1.25, 1.75, 2});
}

TEST(Resize, LinearAlignCorners) {
  const Tensor x = F({3}, {0, 2, 4});
  const Tensor sizes = I64({5});
  expectTensor(run("Resize", {&x, nullptr, nullptr, &sizes}, modes("linear", "align_corners")), {5}, {0, 1, 2, 3, 4});
}

TEST(Resize, CubicWeightsAndExcludeOutside) {
  const Tensor x = F({4}, {1, 2, 4, 8});
  const Tensor scales = F32s({2});
  // Asymmetric: x_ori = x / 2. At ratio 0.5 with A = -0.75 the taps weigh
  // -0.09375, 0.59375, 0.59375, -0.09375.
  const Tensor y = run("Resize", {&x, nullptr, &scales}, modes("cubic", "asymmetric"));
  ASSERT_EQ(y.type.shape, (Shape{8}));
  EXPECT_NEAR(y.data[0], 1, 1e-6);
  EXPECT_NEAR(y.data[1], -0.09375 * 1 + 0.59375 * 1 + 0.59375 * 2 - 0.09375 * 4, 1e-6);  // tap -1 clamps to 0
  EXPECT_NEAR(y.data[3], -0.09375 * 1 + 0.59375 * 2 + 0.59375 * 4 - 0.09375 * 8, 1e-6);
  Attributes ex = modes("cubic", "asymmetric");
  ex.set("exclude_outside", int64_t{1});
  const Tensor z = run("Resize", {&x, nullptr, &scales}, ex);
  EXPECT_NEAR(z.data[1], (0.59375 * 1 + 0.59375 * 2 - 0.09375 * 4) / (0.59375 + 0.59375 - 0.09375), 1e-6);
  ex.set("cubic_coeff_a", -0.5);
  // A = -0.5 at ratio 0.5: -0.0625, 0.5625, 0.5625, -0.0625 (tap -1 excluded).
  const Tensor w = run("Resize", {&x, nullptr, &scales}, ex);
  EXPECT_NEAR(w.data[1], (0.5625 * 1 + 0.5625 * 2 - 0.0625 * 4) / (0.5625 + 0.5625 - 0.0625), 1e-6);
}

TEST(Resize, PytorchHalfPixelLengthOneReadsTheFirstElement) {
  const Tensor x = F({4}, {1, 2, 4, 8});
  const Tensor sizes = I64({1});
  expectTensor(run("Resize", {&x, nullptr, nullptr, &sizes}, modes("cubic", "pytorch_half_pixel")), {1}, {1});
}

TEST(Resize, TfCropAndResizeWithExtrapolation) {
  const Tensor x = F({5}, {0, 10, 20, 30, 40});
  const Tensor sizes = I64({3});
  const Tensor roi = F32s({0.25, 0.75});
  // x_ori = x * 0.5 * 4 / 2 + 0.25 * 4 = x + 1.
  expectTensor(run("Resize", {&x, &roi, nullptr, &sizes}, modes("linear", "tf_crop_and_resize")), {3}, {10, 20, 30});
  const Tensor shifted = F32s({-0.25, 0.25});
  Attributes a = modes("linear", "tf_crop_and_resize");
  a.set("extrapolation_value", 7.0);
  // x_ori = x - 1: the first lies outside.
  expectTensor(run("Resize", {&x, &shifted, nullptr, &sizes}, a), {3}, {7, 0, 10});
  EXPECT_FALSE(inferOp("Resize", {&x, nullptr, nullptr, &sizes}, a).ok());  // roi is needed
}

TEST(Resize, OutputSizeFloorsScaleTimesDim) {
  const Tensor x = iota({1, 1, 3});
  const Tensor scales = F32s({1, 1, 1.7});
  EXPECT_EQ(run("Resize", {&x, nullptr, &scales}).type.shape, (Shape{1, 1, 5}));
}

TEST(Resize, RejectsBadOperands) {
  const Tensor x = iota({2, 2});
  const Tensor scales = F32s({1, 2}), sizes = I64({2, 4});
  EXPECT_FALSE(inferOp("Resize", {&x, nullptr, &scales, &sizes}).ok());  // both
  const Tensor none = F32s({});
  EXPECT_FALSE(inferOp("Resize", {&x, nullptr, &none}).ok());  // neither
  const Tensor shortSizes = I64({4});
  EXPECT_FALSE(inferOp("Resize", {&x, nullptr, nullptr, &shortSizes}).ok());
  const Tensor zero = F32s({1, 0});
  EXPECT_FALSE(inferOp("Resize", {&x, nullptr, &zero}).ok());
  EXPECT_FALSE(inferOp("Resize", {&x, nullptr, &scales}, modes("bilinear", "half_pixel")).ok());
  EXPECT_FALSE(inferOp("Resize", {&x, nullptr, &scales}, modes("linear", "half_pixel_symmetrical")).ok());
  Attributes antialias = modes("nearest", "half_pixel");
  antialias.setInt("antialias", 1);  // defined for linear and cubic only
  EXPECT_FALSE(inferOp("Resize", {&x, nullptr, &scales}, antialias).ok());
}

// Opset 18's antialias: downscaling widens the filter by 1/scale (numbers from onnx.reference).
TEST(Resize, AntialiasWidensTheFilterWhenDownscaling) {
  const Tensor x = F({8}, {1, 2, 4, 8, 3, 5, 9, 7});
  const Tensor half = F32s({0.5}), three = I64({3});
  auto with = [](const char* mode, int exclude = 0) {
    Attributes a = modes(mode, "half_pixel");
    a.setInt("antialias", 1);
    a.setInt("exclude_outside", exclude);
    return a;
  };
  expectTensor(run("Resize", {&x, nullptr, &half}, with("linear")), {4}, {1.75, 5.125, 5.125, 7.5});
  expectTensor(run("Resize", {&x, nullptr, nullptr, &three}, with("linear")), {3}, {2.465116262435913, 5.166666507720947, 7.0});
  expectTensor(run("Resize", {&x, nullptr, &half}, with("cubic")), {4}, {1.427734375, 5.435546875, 5.001953125, 7.810546875});
  expectTensor(run("Resize", {&x, nullptr, &half}, with("cubic", 1)), {4},
               {1.4553014039993286, 5.3589253425598145, 5.036468505859375, 7.862785816192627});
  // Upscaling keeps the plain weights.
  const Tensor two = F32s({2}), y = F({2}, {1, 2});
  expectTensor(run("Resize", {&y, nullptr, &two}, with("linear")), {4}, {1, 1.25, 1.75, 2});
}

// Opset 18's axes and keep_aspect_ratio_policy, opset 19's half_pixel_symmetric.
TEST(Resize, AxesKeptAspectAndSymmetricHalfPixel) {
  const Tensor x = F({1, 4}, {1, 2, 3, 4});
  const Tensor sizes = I64({3, 8});
  Attributes keep = modes("nearest", "asymmetric");
  keep.setString("keep_aspect_ratio_policy", "not_larger");  // scale min(3/1, 8/4) = 2
  const InferResult kept = inferOp("Resize", {&x, nullptr, nullptr, &sizes}, keep);
  ASSERT_TRUE(kept.ok()) << kept.error;
  EXPECT_EQ(kept.types[0].shape, (Shape{2, 8}));
  keep.setString("keep_aspect_ratio_policy", "not_smaller");  // scale 3
  EXPECT_EQ(inferOp("Resize", {&x, nullptr, nullptr, &sizes}, keep).types[0].shape, (Shape{3, 12}));
  const Tensor one = I64({8});
  Attributes axes = modes("nearest", "asymmetric");
  axes.setInts("axes", {-1});
  EXPECT_EQ(inferOp("Resize", {&x, nullptr, nullptr, &one}, axes).types[0].shape, (Shape{1, 8}));
  EXPECT_FALSE(inferOp("Resize", {&x, nullptr, nullptr, &sizes}, axes).ok());  // two sizes, one axis
  // half_pixel_symmetric: 5 / 2 -> 2 outputs of a 2.5 length: offset 2.5 * (1 - 2 / 2.5) = 0.5.
  const Tensor line = F({5}, {0, 10, 20, 30, 40});
  const Tensor half = F32s({0.5});
  const Tensor y = run("Resize", {&line, nullptr, &half}, modes("linear", "half_pixel_symmetric"));
  // x_ori = 0.5 + (i + 0.5) * 2 - 0.5: 1 and 3.
  expectTensor(y, {2}, {10, 30});
}

TEST(Resize, IntegerDataRoundsHalfToEven) {
  const Tensor x = T(DType::Int32, {2}, {1, 2});
  const Tensor sizes = I64({3});
  // align_corners: x_ori = 0, 0.5, 1 -> 1, 1.5, 2 -> 1, 2, 2.
  expectTensor(run("Resize", {&x, nullptr, nullptr, &sizes}, modes("linear", "align_corners")), {3}, {1, 2, 2});
}

}  // namespace
}  // namespace nnfuzz
