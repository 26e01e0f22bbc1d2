// nms_test.cpp - NonMaxSuppression: suppression by IoU, score threshold, the per-class
// limit, centre-point boxes, constants required, and IoUs at the threshold unstable.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

Tensor one(DType d, double v) { return T(d, {1}, {v}); }

TEST(NonMaxSuppression, SuppressesOverlapsInScoreOrder) {
  // Box 1 overlaps box 0 with IoU 1/3 (area 2 each, intersection 1); box 2 is apart.
  const Tensor boxes = F({1, 3, 4}, {0, 0, 1, 2, 0, 1, 1, 3, 5, 5, 6, 6});
  const Tensor scores = F({1, 1, 3}, {0.9, 0.8, 0.7});
  const Tensor maxOut = one(DType::Int64, 3);
  const Tensor strict = one(DType::Float32, 0.3), loose = one(DType::Float32, 0.5);
  expectValues(run("NonMaxSuppression", {&boxes, &scores, &maxOut, &strict}), {2, 3}, {0, 0, 0, 0, 0, 2});
  expectValues(run("NonMaxSuppression", {&boxes, &scores, &maxOut, &loose}), {3, 3}, {0, 0, 0, 0, 0, 1, 0, 0, 2});
  const Tensor two = one(DType::Int64, 2);
  expectValues(run("NonMaxSuppression", {&boxes, &scores, &two, &loose}), {2, 3}, {0, 0, 0, 0, 0, 1});
  const Tensor high = one(DType::Float32, 0.75);
  expectValues(run("NonMaxSuppression", {&boxes, &scores, &maxOut, &loose, &high}), {2, 3}, {0, 0, 0, 0, 0, 1});
  const Tensor third = one(DType::Float32, 1.0 / 3);
  EXPECT_TRUE(unstable("NonMaxSuppression", {&boxes, &scores, &maxOut, &third}));
  EXPECT_FALSE(unstable("NonMaxSuppression", {&boxes, &scores, &maxOut, &loose}));
  // Scores that are not constants leave the row count unknown.
  const InferResult r = inferNode(*findOp("NonMaxSuppression"), OperandTypes{&boxes.type, &scores.type, &maxOut.type},
                                  OperandConstants{&boxes, nullptr, &maxOut}, {});
  EXPECT_FALSE(r.ok());
}

TEST(NonMaxSuppression, CenterPointBoxes) {
  // The same two overlapping boxes as centre and size: (x 1, y 0.5, w 2, h 1) and (x 2, y 0.5).
  const Tensor boxes = F({1, 2, 4}, {1, 0.5, 2, 1, 2, 0.5, 2, 1});
  const Tensor scores = F({1, 1, 2}, {0.5, 0.6});
  const Tensor maxOut = one(DType::Int64, 2), iou = one(DType::Float32, 0.3);
  const Attributes center = A([](Attributes& a) { a.setInt("center_point_box", 1); });
  expectValues(run("NonMaxSuppression", {&boxes, &scores, &maxOut, &iou}, center), {1, 3}, {0, 0, 1});
}

}  // namespace
}  // namespace nnfuzz
