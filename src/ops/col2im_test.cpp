// col2im_test.cpp - Col2Im: overlapping taps add up, strides/dilations/pads place them,
// 2-D blocks, rejections of sizes that do not match, and a sampler sweep.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

Tensor ints(std::vector<double> v) {
  const auto n = static_cast<int64_t>(v.size());
  return T(DType::Int64, {n}, std::move(v));
}

TEST(Col2Im, OverlapsAddUp) {
  // 1-D image of 4, blocks of 2, stride 1: 3 positions; pixel p gets block taps k at l = p - k.
  const Tensor cols = F({1, 2, 3}, {1, 2, 3, 10, 20, 30});
  const Tensor image = ints({4}), block = ints({2});
  expectValues(run("Col2Im", {&cols, &image, &block}), {1, 1, 4}, {1, 12, 23, 30});
  // Dilation 2, stride 2 on 5 pixels: 2 positions; taps at 2l + 2k.
  const Tensor two = F({1, 2, 2}, {1, 2, 10, 20});
  const Tensor five = ints({5});
  expectValues(run("Col2Im", {&two, &five, &block}, A([](Attributes& a) {
                     a.setInts("dilations", {2});
                     a.setInts("strides", {2});
                   })),
               {1, 1, 5}, {1, 0, 12, 0, 20});
  // A leading pad of 1 adds a position whose first tap falls in the padding.
  const Tensor padded = F({1, 2, 4}, {1, 2, 3, 4, 10, 20, 30, 40});
  expectValues(run("Col2Im", {&padded, &image, &block}, A([](Attributes& a) { a.setInts("pads", {1, 0}); })), {1, 1, 4},
               {2 + 10, 3 + 20, 4 + 30, 40});
}

TEST(Col2Im, TwoDimensionalBlocksAndChannels) {
  // C 2, 1 x 2 blocks on a 1 x 2 image: one position; each channel's two taps are its pixels.
  const Tensor cols = F({1, 4, 1}, {1, 2, 3, 4});
  const Tensor image = ints({1, 2}), block = ints({1, 2});
  expectValues(run("Col2Im", {&cols, &image, &block}), {1, 2, 1, 2}, {1, 2, 3, 4});
}

TEST(Col2Im, RejectsSizesThatDoNotMatch) {
  const Tensor cols = F({1, 2, 3}, std::vector<double>(6, 1));
  const Tensor image = ints({4}), block = ints({2}), wide = ints({3}), five = ints({5});
  EXPECT_FALSE(inferOp("Col2Im", {&cols, &five, &block}).ok()) << "L would be 4";
  EXPECT_FALSE(inferOp("Col2Im", {&cols, &image, &wide}).ok()) << "2 channels are no multiple of 3";
  const Tensor pair = ints({2, 2});
  EXPECT_FALSE(inferOp("Col2Im", {&cols, &image, &pair}).ok()) << "one value per spatial dim";
  EXPECT_FALSE(inferOp("Col2Im", {&cols, &image, &block}, A([](Attributes& a) { a.setInts("pads", {1}); })).ok());
}

TEST(Col2Im, SamplerIsSound) {
  int padded = 0, planar = 0, blocks = 0;
  sample("Col2Im", 500, [&](const Instantiation& inst) {
    padded += inst.attrs.has("pads");
    planar += inst.operands[1].constant->numel() >= 2;
    blocks += inst.operands[2].constant->data[0] > 1;
  });
  EXPECT_GT(padded, 20);
  EXPECT_GT(planar, 100);
  EXPECT_GT(blocks, 50);
}

}  // namespace
}  // namespace nnfuzz
