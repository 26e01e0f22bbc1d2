// roi_pool_test.cpp - RoiAlign (avg/max, both coordinate modes, samples off the map,
// batch indices) and MaxRoiPool (bins, empty bins), rejections and unstable regions.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

Attributes align(const std::string& mode, const std::string& ctm, int64_t ratio) {
  return A([&](Attributes& a) {
    a.setString("mode", mode);
    a.setString("coordinate_transformation_mode", ctm);
    a.setInt("sampling_ratio", ratio);
  });
}

TEST(RoiAlign, AveragesOrMaximisesBilinearSamples) {
  const Tensor x = F({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor idx = T(DType::Int64, {1}, {0});
  const Tensor whole = F({1, 4}, {0, 0, 2, 2});
  // half_pixel: the region starts at -0.5; one sample at its centre (0.5, 0.5).
  expectValues(run("RoiAlign", {&x, &whole, &idx}, align("avg", "half_pixel", 1)), {1, 1, 1, 1}, {2.5});
  // The largest weighted corner, not the interpolated value.
  expectValues(run("RoiAlign", {&x, &whole, &idx}, align("max", "half_pixel", 1)), {1, 1, 1, 1}, {1.0});
  // output_half_pixel: no shift; the sample at (1, 1) is pixel (1, 1).
  expectValues(run("RoiAlign", {&x, &whole, &idx}, align("avg", "output_half_pixel", 1)), {1, 1, 1, 1}, {4});
  // A region far outside reads zeros.
  const Tensor away = F({1, 4}, {5, 5, 6, 6});
  expectValues(run("RoiAlign", {&x, &away, &idx}, align("avg", "half_pixel", 1)), {1, 1, 1, 1}, {0});
  // batch_indices pick the image.
  const Tensor two = F({2, 1, 1, 1}, {7, 9});
  const Tensor second = T(DType::Int64, {1}, {1});
  const Tensor unit = F({1, 4}, {0, 0, 1, 1});
  expectValues(run("RoiAlign", {&two, &unit, &second}, align("avg", "half_pixel", 1)), {1, 1, 1, 1}, {9});
  // Output bins: 2 x 1 over the whole map, adaptive sample count.
  const Tensor y = run("RoiAlign", {&x, &whole, &idx}, A([](Attributes& a) { a.setInt("output_height", 2); }));
  expectValues(y, {1, 1, 2, 1}, {1.5, 3.5});
}

TEST(RoiAlign, RejectsAndUnstableRegions) {
  const Tensor x = F({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor idx = T(DType::Int64, {1}, {0}), bad = T(DType::Int64, {1}, {1});
  const Tensor rois = F({1, 4}, {0, 0, 2, 2}), five = F({1, 5}, {0, 0, 0, 2, 2});
  EXPECT_FALSE(inferOp("RoiAlign", {&x, &five, &idx}).ok());
  EXPECT_FALSE(inferOp("RoiAlign", {&x, &rois, &bad}).ok());
  EXPECT_FALSE(inferOp("RoiAlign", {&x, &rois, &idx}, A([](Attributes& a) { a.setString("mode", "mean"); })).ok());
  EXPECT_FALSE(inferOp("RoiAlign", {&x, &rois, &idx}, A([](Attributes& a) { a.setInt("output_width", 0); })).ok());
  // A bin exactly 2 pixels wide: the adaptive sample count ceil(2) could be 3 in float32.
  EXPECT_TRUE(unstable("RoiAlign", {&x, &rois, &idx}));
  EXPECT_FALSE(unstable("RoiAlign", {&x, &rois, &idx}, align("avg", "half_pixel", 1)));
  // A sample exactly a pixel outside the map (y = -1) sits on the jump to zero.
  const Tensor edge = F({1, 4}, {0, -1, 1, 0});
  EXPECT_TRUE(unstable("RoiAlign", {&x, &edge, &idx}, align("avg", "half_pixel", 1)));
}

TEST(MaxRoiPool, BinsOfRoundedRegions) {
  const Tensor x = F({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Tensor all = F({1, 5}, {0, 0, 0, 2, 2});
  auto pooled = [](int64_t h, int64_t w) { return A([=](Attributes& a) { a.setInts("pooled_shape", {h, w}); }); };
  expectValues(run("MaxRoiPool", {&x, &all}, pooled(1, 1)), {1, 1, 1, 1}, {9});
  expectValues(run("MaxRoiPool", {&x, &all}, pooled(3, 3)), {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  expectValues(run("MaxRoiPool", {&x, &all}, pooled(1, 3)), {1, 1, 1, 3}, {7, 8, 9});
  // One pixel in every bin; a region off the map leaves empty bins (0).
  const Tensor centre = F({1, 5}, {0, 1, 1, 1, 1}), off = F({1, 5}, {0, 5, 5, 6, 6});
  expectValues(run("MaxRoiPool", {&x, &centre}, pooled(2, 2)), {1, 1, 2, 2}, {5, 5, 5, 5});
  expectValues(run("MaxRoiPool", {&x, &off}, pooled(1, 1)), {1, 1, 1, 1}, {0});
  // spatial_scale maps image to map coordinates before rounding.
  const Tensor big = F({1, 5}, {0, 4, 4, 4, 4});
  expectValues(run("MaxRoiPool", {&x, &big}, A([](Attributes& a) {
                 a.setInts("pooled_shape", {1, 1});
                 a.setFloat("spatial_scale", 0.5);
               })),
               {1, 1, 1, 1}, {9});
}

TEST(MaxRoiPool, RejectsAndRoundingTies) {
  const Tensor x = F({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Tensor all = F({1, 5}, {0, 0, 0, 2, 2}), four = F({1, 4}, {0, 0, 2, 2}), batch = F({1, 5}, {1, 0, 0, 2, 2});
  auto pooled = A([](Attributes& a) { a.setInts("pooled_shape", {2, 2}); });
  EXPECT_FALSE(inferOp("MaxRoiPool", {&x, &all}).ok());  // pooled_shape is required
  EXPECT_FALSE(inferOp("MaxRoiPool", {&x, &four}, pooled).ok());
  EXPECT_FALSE(inferOp("MaxRoiPool", {&x, &batch}, pooled).ok());
  const Tensor tie = F({1, 5}, {0, 0.5, 0, 2, 2});
  EXPECT_TRUE(unstable("MaxRoiPool", {&x, &tie}, pooled));
  EXPECT_FALSE(unstable("MaxRoiPool", {&x, &all}, pooled));
}

}  // namespace
}  // namespace nnfuzz
