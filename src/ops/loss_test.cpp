// loss_test.cpp - NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: reductions,
// weights, ignore_index (out of the mean's denominator too), log_prob, and the all-ignored
// mean flagged unstable.
#include <cmath>

#include "ops/op_test_util.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

using namespace optest;

Attributes reduce(const std::string& r, std::optional<int64_t> ignore = std::nullopt) {
  return A([&](Attributes& a) {
    a.setString("reduction", r);
    if (ignore) a.setInt("ignore_index", *ignore);
  });
}

TEST(NegativeLogLikelihoodLoss, ReductionsWeightsAndIgnore) {
  const Tensor x = F({2, 3}, {-1, -2, -3, -4, -5, -6});
  const Tensor t = T(DType::Int64, {2}, {2, 0});
  expectValues(run("NegativeLogLikelihoodLoss", {&x, &t}, reduce("none")), {2}, {3, 4});
  expectValues(run("NegativeLogLikelihoodLoss", {&x, &t}, reduce("sum")), {}, {7});
  expectValues(run("NegativeLogLikelihoodLoss", {&x, &t}), {}, {3.5});  // mean by default
  const Tensor w = F({3}, {0.5, 1, 2});
  expectValues(run("NegativeLogLikelihoodLoss", {&x, &t, &w}), {}, {(3 * 2 + 4 * 0.5) / 2.5});
  // The ignored element adds nothing to the sum nor to the weights.
  expectValues(run("NegativeLogLikelihoodLoss", {&x, &t, &w}, reduce("mean", 0)), {}, {3});
  const Tensor ignored = T(DType::Int64, {2}, {1, 1});
  EXPECT_TRUE(unstable("NegativeLogLikelihoodLoss", {&x, &ignored}, reduce("mean", 1)));
  EXPECT_FALSE(unstable("NegativeLogLikelihoodLoss", {&x, &ignored}, reduce("sum", 1)));
  // A target outside [0, C) that is not ignore_index is undefined: an evaluation error.
  const Tensor outside = T(DType::Int64, {2}, {3, 0});
  EXPECT_THROW(run("NegativeLogLikelihoodLoss", {&x, &outside}), Error);
  const Tensor negative = T(DType::Int64, {2}, {-1, 0});
  EXPECT_THROW(run("NegativeLogLikelihoodLoss", {&x, &negative}), Error);
  expectValues(run("NegativeLogLikelihoodLoss", {&x, &negative}, reduce("sum", -1)), {}, {4});
  const Tensor wrong = T(DType::Int64, {3}, {0, 0, 0});
  EXPECT_FALSE(inferOp("NegativeLogLikelihoodLoss", {&x, &wrong}).ok());
}

TEST(SoftmaxCrossEntropyLoss, LossOfLogSoftmaxAndLogProb) {
  const Tensor x = F({1, 2}, {0, 0});
  const Tensor t = T(DType::Int32, {1}, {1});
  const InferResult r = inferOp("SoftmaxCrossEntropyLoss", {&x, &t});
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.types.size(), 2u);
  const auto out = evaluate(*findOp("SoftmaxCrossEntropyLoss"), {&x, &t}, {}, r.types);
  expectValues(out[0], {}, {std::log(2.0)});
  expectValues(out[1], {1, 2}, {-std::log(2.0), -std::log(2.0)});
}

}  // namespace
}  // namespace nnfuzz
