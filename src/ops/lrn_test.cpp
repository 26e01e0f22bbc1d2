// lrn_test.cpp - LRN's channel window (centred for odd sizes, one more channel above for
// even ones), its clipping at the channel ends, and the required size attribute.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

TEST(LRN, ChannelWindow) {
  const Tensor x = F({1, 3, 1, 1}, {1, 2, 3});
  // alpha / size = 1, beta = 1, bias = 1: y = x / (1 + sum of squares in the window).
  expectValues(run("LRN", {&x}, A([](Attributes& a) {
                 a.setInt("size", 3);
                 a.setFloat("alpha", 3);
                 a.setFloat("beta", 1);
               })),
               {1, 3, 1, 1}, {1.0 / 6, 2.0 / 15, 3.0 / 14});
  // Even size: floor((2-1)/2) = 0 channels below, 1 above.
  expectValues(run("LRN", {&x}, A([](Attributes& a) {
                 a.setInt("size", 2);
                 a.setFloat("alpha", 2);
                 a.setFloat("beta", 1);
               })),
               {1, 3, 1, 1}, {1.0 / 6, 2.0 / 14, 3.0 / 10});
  EXPECT_FALSE(inferOp("LRN", {&x}).ok());  // size is required
  EXPECT_FALSE(inferOp("LRN", {&x}, A([](Attributes& a) { a.setInt("size", 0); })).ok());
}

}  // namespace
}  // namespace nnfuzz
