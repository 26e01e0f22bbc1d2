// layer_norm_test.cpp - LayerNormalization (axis, epsilon, broadcast Scale and B, tiny
// variance instability) and MeanVarianceNormalization (axes, constant groups).
#include <cmath>

#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

TEST(LayerNormalization, NormalisesTrailingAxes) {
  const Tensor x = F({2, 2}, {1, 3, 2, 6});
  const Tensor scale = F({2}, {1, 2});
  const Tensor bias = F({2}, {0, 1});
  Attributes tiny = A([](Attributes& a) { a.setFloat("epsilon", 1e-9); });
  // Rows: mean 2, var 1 -> [-1, 1]; mean 4, var 4 -> [-1, 1]; then scale and bias.
  expectValues(run("LayerNormalization", {&x, &scale, &bias}, tiny), {2, 2}, {-1, 3, -1, 3}, 1e-6);
  expectValues(run("LayerNormalization", {&x, &scale}, tiny), {2, 2}, {-1, 2, -1, 2}, 1e-6);
  // axis 0 normalises all four: mean 3, var 3.5.
  const Tensor full = F({2, 2}, {1, 1, 1, 1});
  const double sd = std::sqrt(3.5);
  expectValues(run("LayerNormalization", {&x, &full},
                   A([](Attributes& a) {
                     a.setInt("axis", 0);
                     a.setFloat("epsilon", 1e-9);
                   })),
               {2, 2}, {-2 / sd, 0, -1 / sd, 3 / sd}, 1e-6);
  const Tensor one = F({1}, {2});  // broadcasts to the normalised shape
  expectValues(run("LayerNormalization", {&x, &one}, tiny), {2, 2}, {-2, 2, -2, 2}, 1e-6);
  // The default epsilon counts.
  const Tensor unit = F({2}, {1, 1});
  const Tensor y = run("LayerNormalization", {&x, &unit});
  EXPECT_NEAR(y.data[1], 1 / std::sqrt(1 + 1e-5), 1e-7);
}

TEST(LayerNormalization, MeanAndInvStdDevResults) {
  const Tensor x = T(DType::Float64, {2, 2}, {1, 3, 2, 6});
  const Tensor scale = T(DType::Float64, {2}, {1, 1});
  const Attributes eps = A([](Attributes& a) { a.setFloat("epsilon", 0.5); });
  const InferResult r = inferOp("LayerNormalization", {&x, &scale}, eps);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.types.size(), 3u);
  EXPECT_EQ(r.types[1], (TensorType{DType::Float32, {2, 1}}));  // float32 whatever X is (stash_type 1)
  EXPECT_EQ(r.types[2], r.types[1]);
  const auto outs = evaluate(*findOp("LayerNormalization"), {&x, &scale}, eps, r.types);
  expectValues(outs[1], {2, 1}, {2, 4});
  expectValues(outs[2], {2, 1}, {1 / std::sqrt(1.5), 1 / std::sqrt(4.5)});
  EXPECT_EQ(findOp("LayerNormalization")->optionalOutputs, 0b110u);
}

TEST(LayerNormalization, RejectsBadOperandsAndAttributes) {
  const Tensor x = F({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor wrong = F({2}, {1, 1});
  const Tensor good = F({3}, {1, 1, 1});
  EXPECT_FALSE(inferOp("LayerNormalization", {&x, &wrong}).ok());
  EXPECT_FALSE(inferOp("LayerNormalization", {&x, nullptr, &good}).ok());
  EXPECT_FALSE(inferOp("LayerNormalization", {&x, &good}, A([](Attributes& a) { a.setInt("axis", 2); })).ok());
  EXPECT_FALSE(inferOp("LayerNormalization", {&x, &good}, A([](Attributes& a) { a.setFloat("epsilon", 0); })).ok());
  const Tensor dbl = T(DType::Float64, {3}, {1, 1, 1});
  EXPECT_FALSE(inferOp("LayerNormalization", {&x, &dbl}).ok());
  EXPECT_TRUE(inferOp("LayerNormalization", {&x, &good, &good}).ok());
}

TEST(LayerNormalization, TinyVarianceIsUnstable) {
  const Tensor scale = F({2}, {1, 1});
  const Tensor close = F({1, 2}, {1, 1.001});
  EXPECT_TRUE(unstable("LayerNormalization", {&close, &scale}));
  const Tensor spread = F({1, 2}, {1, 2});
  EXPECT_FALSE(unstable("LayerNormalization", {&spread, &scale}));
  const Tensor equal = F({1, 2}, {1, 1});  // exactly zero variance: y = B
  EXPECT_FALSE(unstable("LayerNormalization", {&equal, &scale}));
}

TEST(MeanVarianceNormalization, AxesAndConstantGroups) {
  const Tensor x = F({2, 2}, {1, 3, 5, 5});
  expectValues(run("MeanVarianceNormalization", {&x}, A([](Attributes& a) { a.setInts("axes", {1}); })), {2, 2},
               {-1, 1, 0, 0});
  expectValues(run("MeanVarianceNormalization", {&x}, A([](Attributes& a) { a.setInts("axes", {-2}); })), {2, 2},
               {-1, -1, 1, 1});
  EXPECT_TRUE(unstable("MeanVarianceNormalization", {&x}, A([](Attributes& a) { a.setInts("axes", {1}); })));
  EXPECT_FALSE(unstable("MeanVarianceNormalization", {&x}, A([](Attributes& a) { a.setInts("axes", {0}); })));
  // axes left to its default [0, 2, 3] is refused (ONNX's own inference of MVN-13 fails on it);
  // written out it normalises over all but the channels.
  const Tensor x4 = F({1, 2, 1, 2}, {1, 3, 10, 30});
  EXPECT_FALSE(inferOp("MeanVarianceNormalization", {&x4}).ok());
  expectValues(run("MeanVarianceNormalization", {&x4}, A([](Attributes& a) { a.setInts("axes", {0, 2, 3}); })), {1, 2, 1, 2},
               {-1, 1, -1, 1});
  EXPECT_FALSE(inferOp("MeanVarianceNormalization", {&x}, A([](Attributes& a) { a.setInts("axes", {0, -2}); })).ok());
}

}  // namespace
}  // namespace nnfuzz
