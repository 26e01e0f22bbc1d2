// noise_test.cpp - noisy values: a normalisation over a constant group is exact in double
// but off by ulps of large cancelled terms in a SUT, and no stability check downstream may
// trust it (the 100k-test campaign's onnxruntime-any-dcf-4a2cafdd: InstanceNormalization over
// one element, Mul, then DynamicQuantizeLinear rounding an element that sat 0.03 from .5).
#include <gtest/gtest.h>

#include "interp/interpreter.h"
#include "ops/op_test_util.h"
#include "ops/exactness.h"

namespace nnfuzz {
namespace {

using namespace optest;

Tensor eval(const std::string& op, const std::vector<const Tensor*>& in, const Attributes& attrs = {}) {
  InferResult r = inferOp(op, in, attrs);
  EXPECT_TRUE(r.ok()) << r.error;
  return evalOp(*findOp(op), in, attrs, r.types, {}).at(0);
}

bool unstableOn(const std::string& op, const std::vector<const Tensor*>& in) {
  std::vector<Tensor> outs;
  InferResult r = inferOp(op, in);
  for (const TensorType& t : r.types) outs.emplace_back(t);
  return unstableCall(*findOp(op), KernelArgs{in, {}, outs});
}

// The reduced model of dcf-4a2cafdd, up to the quantisation.
struct OneElementPlanes {
  Tensor x = F({1, 3, 1, 1, 1}, {1.0, 2.0, 2.0});
  Tensor scale = F({3}, {-1.0, -2.0, 2.0});
  Tensor bias = F({3}, {0.00016225837, -0.24670489, 0.00056141784});
  Tensor factor = F({2, 3, 1, 1, 1}, {0.7213475, 0.5581106, 0.6213349, 0.5581106, 0.6213349, 0.6213349});
};

TEST(NoisyValues, InstanceNormOverConstantPlanesIsNoisyAndSoIsWhatFollows) {
  OneElementPlanes m;
  const Tensor normed = eval("InstanceNormalization", {&m.x, &m.scale, &m.bias});
  EXPECT_TRUE(normed.noisy);
  for (size_t c = 0; c < 3; ++c)  // exactly the (float32) bias in double
    EXPECT_DOUBLE_EQ(normed.data[c], static_cast<float>(m.bias.data[c]));
  const Tensor scaled = eval("Mul", {&normed, &m.factor});
  EXPECT_TRUE(scaled.noisy);
  // The quotient the failing element rounds sits 0.03 from .5: outside the margin for a few
  // ulps of error, inside the SUT's actual error; only the noise makes it unstable.
  EXPECT_FALSE(findOp("DynamicQuantizeLinear")->unstable(KernelArgs{std::vector<const Tensor*>{&scaled}, {}, {}}));
  EXPECT_TRUE(unstableOn("DynamicQuantizeLinear", {&scaled}));
  // An integer result is exact, so the noise stops there (its own check judged the input).
  EXPECT_FALSE(eval("ArgMax", {&scaled}).noisy);
}

TEST(NoisyValues, PlanesWithSpreadOrZeroMeanAreNotNoisy) {
  OneElementPlanes m;
  const Tensor zeros = F({1, 3, 1, 1, 1}, {0.0, 0.0, 0.0});
  EXPECT_FALSE(eval("InstanceNormalization", {&zeros, &m.scale, &m.bias}).noisy);  // nothing cancels
  const Tensor spread = F({1, 3, 2, 1, 1}, {1.0, -1.0, 2.0, 0.5, 0.25, 3.0});
  const Tensor normed = eval("InstanceNormalization", {&spread, &m.scale, &m.bias});
  EXPECT_FALSE(normed.noisy);
  EXPECT_FALSE(normed.exact);
}

TEST(NoisyValues, InstanceNormIsUnstableWhenTheCancelledTermsReachTheTolerance) {
  OneElementPlanes m;
  EXPECT_FALSE(unstableOn("InstanceNormalization", {&m.x, &m.scale, &m.bias}));  // 1265 / sqrt(eps): 6e-4 at 4 ulps
  const Tensor big = F({1, 3, 1, 1, 1}, {1.0, 2.0, 400.0});
  EXPECT_TRUE(unstableOn("InstanceNormalization", {&big, &m.scale, &m.bias}));
}

TEST(NoisyValues, LayerNormOverAConstantGroupIsNoisy) {
  const Tensor x = F({2, 3}, {1.5, 1.5, 1.5, 1.0, 2.0, 4.0});
  const Tensor scale = F({3}, {1.0, 2.0, 3.0});
  EXPECT_TRUE(eval("LayerNormalization", {&x, &scale}).noisy);
  const Tensor spread = F({2, 3}, {1.0, 1.5, 2.5, 1.0, 2.0, 4.0});
  EXPECT_FALSE(eval("LayerNormalization", {&spread, &scale}).noisy);
}

}  // namespace
}  // namespace nnfuzz
