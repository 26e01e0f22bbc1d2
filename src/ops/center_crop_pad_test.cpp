// center_crop_pad_test.cpp - CenterCropPad: centred crops and pads (odd differences put
// the extra element at the end), axes, rejections and a sampler sweep.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

TEST(CenterCropPad, CropsAndPadsAroundTheCentre) {
  const Tensor x = F({5}, {1, 2, 3, 4, 5});
  const Tensor to2 = T(DType::Int64, {1}, {2}), to3 = T(DType::Int64, {1}, {3}), to8 = T(DType::Int32, {1}, {8});
  expectValues(run("CenterCropPad", {&x, &to3}), {3}, {2, 3, 4});
  expectValues(run("CenterCropPad", {&x, &to2}), {2}, {2, 3});  // (5 - 2) / 2 = 1 dropped in front
  expectValues(run("CenterCropPad", {&x, &to8}), {8}, {0, 1, 2, 3, 4, 5, 0, 0});
  // axes: only dim 1 of a 2 x 3; dim 0 untouched.
  const Tensor m = F({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor one = T(DType::Int64, {1}, {1});
  expectValues(run("CenterCropPad", {&m, &one}, A([](Attributes& a) { a.setInts("axes", {-1}); })), {2, 1}, {2, 5});
  const Tensor both = T(DType::Int64, {2}, {1, 4});
  expectValues(run("CenterCropPad", {&m, &both}), {1, 4}, {1, 2, 3, 0});
}

TEST(CenterCropPad, Rejects) {
  const Tensor m = F({2, 3}, std::vector<double>(6, 1));
  const Tensor one = T(DType::Int64, {1}, {1}), negative = T(DType::Int64, {2}, {1, -1});
  EXPECT_FALSE(inferOp("CenterCropPad", {&m, &one}).ok()) << "one value per axis";
  EXPECT_FALSE(inferOp("CenterCropPad", {&m, &negative}).ok());
  const Tensor two = T(DType::Int64, {2}, {1, 1});
  EXPECT_FALSE(inferOp("CenterCropPad", {&m, &two}, A([](Attributes& a) { a.setInts("axes", {0, 0}); })).ok());
  const Tensor floats = F({2}, {1, 1});
  EXPECT_FALSE(inferOp("CenterCropPad", {&m, &floats}).ok());
}

TEST(CenterCropPad, SamplerCropsAndPads) {
  int crops = 0, pads = 0, withAxes = 0;
  sample("CenterCropPad", 300, [&](const Instantiation& inst) {
    const Shape& in = inst.operands[0].type.shape;
    const Shape& out = inst.outputTypes[0].shape;
    for (size_t i = 0; i < in.size(); ++i) {
      crops += out[i] < in[i];
      pads += out[i] > in[i];
    }
    withAxes += inst.attrs.has("axes");
  });
  EXPECT_GT(crops, 50);
  EXPECT_GT(pads, 50);
  EXPECT_GT(withAxes, 50);
}

}  // namespace
}  // namespace nnfuzz
