// policy_test.cpp - allclose and luo: NaN/Inf positions, integer exactness, dtype and shape
// mismatches, and Luo's 0.1% rule on both sides of its boundary.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "oracle/policy.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Policy luo() { return *Policy::named("luo"); }

TEST(Policy, AllCloseUsesAtolPlusRtol) {
  const Policy p;  // atol 1e-3, rtol 1e-2
  EXPECT_TRUE(compareOutput(float32Tensor({100.0 + 0.99}), float32Tensor({100}), p).ok());  // 0.99 <= 1e-3 + 1
  EXPECT_FALSE(compareOutput(float32Tensor({100.0 + 1.01}), float32Tensor({100}), p).ok());
  EXPECT_TRUE(compareOutput(float32Tensor({0.0009}), float32Tensor({0}), p).ok());
  const OutputDiff d = compareOutput(float32Tensor({0, 0.0011, 5}), float32Tensor({0, 0, 5}), p, 3);
  EXPECT_EQ(d.kind, DiffKind::Values);
  EXPECT_EQ(d.output, 3u);
  EXPECT_EQ(d.badElements, 1);
  EXPECT_NE(d.detail.find("output 3: 1 of 3 values differ"), std::string::npos) << d.detail;
  EXPECT_NE(d.detail.find("at [1]"), std::string::npos) << d.detail;
}

TEST(Policy, NaNPositionsMustAgree) {
  for (const Policy& p : {Policy{}, luo()}) {
    EXPECT_TRUE(compareOutput(float32Tensor({1, kNaN, 3}), float32Tensor({1, kNaN, 3}), p).ok());
    const OutputDiff d = compareOutput(float32Tensor({1, 2, kNaN}), float32Tensor({1, kNaN, 3}), p);
    EXPECT_EQ(d.kind, DiffKind::NonFinite) << p.name();
    EXPECT_NE(d.detail.find("at [1]"), std::string::npos) << d.detail;
  }
}

TEST(Policy, InfPositionsAndSignsMustAgree) {
  const Policy p;
  EXPECT_TRUE(compareOutput(float32Tensor({kInf, -kInf}), float32Tensor({kInf, -kInf}), p).ok());
  EXPECT_EQ(compareOutput(float32Tensor({-kInf, 0}), float32Tensor({kInf, 0}), p).kind, DiffKind::NonFinite);
  EXPECT_EQ(compareOutput(float32Tensor({3e38, 0}), float32Tensor({kInf, 0}), p).kind, DiffKind::NonFinite);
  EXPECT_EQ(compareOutput(float32Tensor({kInf, 0}), float32Tensor({kNaN, 0}), p).kind, DiffKind::NonFinite);
  // Luo forgives a few bad values but never a misplaced infinity.
  std::vector<double> a(5000, 1.0), e(5000, 1.0);
  a[17] = kInf;
  EXPECT_EQ(compareOutput(float32Tensor(a), float32Tensor(e), luo()).kind, DiffKind::NonFinite);
}

TEST(Policy, IntegersAndBoolsAreExact) {
  const Policy loose{PolicyKind::AllClose, 10, 10};
  const Tensor i64a({DType::Int64, {3}}, {1, 2, 3}), i64b({DType::Int64, {3}}, {1, 2, 4});
  EXPECT_TRUE(compareOutput(i64a, i64a, loose).ok());
  EXPECT_EQ(compareOutput(i64b, i64a, loose).kind, DiffKind::Values);
  const Tensor b1({DType::Bool, {2}}, {1, 0}), b2({DType::Bool, {2}}, {1, 1});
  EXPECT_EQ(compareOutput(b2, b1, loose).kind, DiffKind::Values);
  // 2^53 - 1 vs 2^53 - 2: int64 values are compared as exact integers, not with a tolerance.
  const Tensor big1({DType::Int64, {1}}, {9007199254740991.0}), big2({DType::Int64, {1}}, {9007199254740990.0});
  EXPECT_EQ(compareOutput(big1, big2, luo()).kind, DiffKind::Values);
}

TEST(Policy, DTypeAndShapeMustMatch) {
  const Tensor a({DType::Float32, {2, 3}}, std::vector<double>(6, 1.0));
  const Tensor b({DType::Float32, {3, 2}}, std::vector<double>(6, 1.0));
  const Tensor c({DType::Float64, {2, 3}}, std::vector<double>(6, 1.0));
  const Tensor d({DType::Float32, {6}}, std::vector<double>(6, 1.0));
  EXPECT_TRUE(compareOutput(a, a, Policy{}).ok());
  OutputDiff s = compareOutput(b, a, Policy{}, 1);
  EXPECT_EQ(s.kind, DiffKind::Shape);
  EXPECT_EQ(s.detail, "output 1: shape f32[3,2], expected f32[2,3]");
  EXPECT_EQ(compareOutput(d, a, Policy{}).kind, DiffKind::Shape);  // same count, other rank
  OutputDiff t = compareOutput(c, a, Policy{});
  EXPECT_EQ(t.kind, DiffKind::DType);
  EXPECT_EQ(t.detail, "output 0: dtype f64, expected f32");
}

// Luo's rule: the output fails when MORE than 0.1% of its elements have relative error above
// 0.1%. With 2000 elements the boundary is 2 bad elements.
TEST(Policy, LuoFailsAboveOneInAThousand) {
  std::vector<double> e(2000, 10.0), a = e;
  a[5] = 10.0 * (1 + 2e-3);   // relative error 0.2%: bad
  a[900] = 10.0 * (1 - 5e-3);  // bad
  EXPECT_TRUE(compareOutput(float32Tensor(a), float32Tensor(e), luo()).ok()) << "2 of 2000 is exactly 0.1%, not more";
  a[1999] = 10.0 * (1 + 1.5e-3);
  const OutputDiff d = compareOutput(float32Tensor(a), float32Tensor(e), luo());
  EXPECT_EQ(d.kind, DiffKind::Values);
  EXPECT_EQ(d.badElements, 3);
  // An element at 0.09% relative error is not bad, however many there are.
  std::vector<double> close(2000);
  for (size_t i = 0; i < close.size(); ++i) close[i] = 10.0 * (1 + 9e-4);
  EXPECT_TRUE(compareOutput(float32Tensor(close), float32Tensor(e), luo()).ok());
  // allclose would pass all of these (rtol 1e-2): the policies really differ.
  EXPECT_TRUE(compareOutput(float32Tensor(a), float32Tensor(e), Policy{}).ok());
}

TEST(Policy, LuoOnASmallTensorFailsOnOneBadElement) {
  // 1 of 100 is 1% > 0.1%.
  std::vector<double> e(100, 1.0), a = e;
  a[42] = 1.002;
  EXPECT_FALSE(compareOutput(float32Tensor(a), float32Tensor(e), luo()).ok());
}

TEST(Policy, LuoFloorsTheDenominatorNearZero) {
  // Expected 0, actual 5e-7: relative to the floor 1e-3 that is 5e-4 < 1e-3, fine.
  EXPECT_TRUE(compareOutput(float32Tensor({5e-7}), float32Tensor({0}), luo()).ok());
  EXPECT_FALSE(compareOutput(float32Tensor({5e-6}), float32Tensor({0}), luo()).ok());
}

TEST(Policy, JsonRoundTripAndErrors) {
  Policy p = luo();
  p.luoMaxFraction = 0.01;
  const Policy q = Policy::fromJson(p.toJson());
  EXPECT_EQ(q.kind, PolicyKind::Luo);
  EXPECT_DOUBLE_EQ(q.luoMaxFraction, 0.01);
  EXPECT_EQ(Policy::fromJson({{"atol", 0.5}}).atol, 0.5);
  EXPECT_THROW(Policy::fromJson({{"policy", "close-enough"}}), Error);
  EXPECT_THROW(Policy::fromJson({{"rtol", -1}}), Error);
}

}  // namespace
}  // namespace nnfuzz
