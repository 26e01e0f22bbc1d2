// bitwise_test.cpp - BitwiseAnd/Or/Xor/Not: two's-complement bits per dtype (signed,
// uint8 wrap), broadcasting, rejections, and a sampler sweep over the integer dtypes.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

TEST(Bitwise, BitsPerDtype) {
  const Tensor a = T(DType::Int32, {4}, {12, -1, -8, 100000});
  const Tensor b = T(DType::Int32, {4}, {10, 7, 3, -65536});
  expectValues(run("BitwiseAnd", {&a, &b}), {4}, {8, 7, 0, 65536});
  expectValues(run("BitwiseOr", {&a, &b}), {4}, {14, -1, -5, -31072});
  expectValues(run("BitwiseXor", {&a, &b}), {4}, {6, -8, -5, -96608});
  expectValues(run("BitwiseNot", {&a}), {4}, {-13, 0, 7, -100001});
  // uint8: NOT is 255 - x; int8: -x - 1.
  const Tensor u = T(DType::UInt8, {3}, {0, 200, 255});
  expectValues(run("BitwiseNot", {&u}), {3}, {255, 55, 0});
  const Tensor s = T(DType::Int8, {3}, {-128, 0, 127});
  expectValues(run("BitwiseNot", {&s}), {3}, {127, -1, -128});
}

TEST(Bitwise, BroadcastsAndRejects) {
  const Tensor a = T(DType::UInt8, {2, 2}, {0xF0, 0x0F, 0xFF, 0x00});
  const Tensor row = T(DType::UInt8, {2}, {0x3C, 0x81});
  expectValues(run("BitwiseAnd", {&a, &row}), {2, 2}, {0x30, 0x01, 0x3C, 0x00});
  const Tensor f = F({2}, {1, 2});
  EXPECT_FALSE(inferOp("BitwiseOr", {&f, &f}).ok());
  EXPECT_FALSE(inferOp("BitwiseNot", {&f}).ok());
  const Tensor other = T(DType::Int8, {2}, {1, 2});
  EXPECT_FALSE(inferOp("BitwiseXor", {&row, &other}).ok());
  EXPECT_EQ(findOp("BitwiseAnd")->sinceVersion, 18);
}

TEST(Bitwise, SamplerSpansTheBits) {
  Limits limits;
  limits.dtypes = {DType::Int8, DType::UInt8, DType::Int32, DType::Int64};
  Rng rng(5);
  int highBits = 0;
  for (int i = 0; i < 200; ++i) {
    const Instantiation inst = instantiateOp(*findOp("BitwiseXor"), rng, limits, nullptr, 0.0);
    ASSERT_TRUE(inst.ok()) << inst.error;
    const ValueRange r = inst.operands[0].range;
    highBits += r.hi >= 127;
  }
  EXPECT_EQ(highBits, 200) << "fresh operands reach the high bits of every dtype";
}

}  // namespace
}  // namespace nnfuzz
