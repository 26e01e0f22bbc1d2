// values_test.cpp - the kinds of fresh values (ValueMix) stay in the operand's range.
#include "interp/values.h"

#include <gtest/gtest.h>

#include <cmath>

namespace nnfuzz {
namespace {

TEST(ValueMix, EachKindStaysInTheRangeAndShowsItsShape) {
  Rng rng(5);
  const TensorType type{DType::Float32, {64}};
  const ValueRange range{-3.0, 8.0, 0.25};
  auto draw = [&](ValueMix mix) { return sampleTensor(type, range, rng, mix); };
  int zeros = 0, ends = 0, tiny = 0, fractional = 0;
  for (int k = 0; k < 50; ++k) {
    const Tensor wide = draw({0, 1, 0, 0}), special = draw({0, 0, 1, 0}), integral = draw({0, 0, 0, 1});
    for (const Tensor* t : {&wide, &special, &integral}) EXPECT_TRUE(inRange(*t, range));
    for (double x : wide.data) tiny += std::abs(x) < 1;
    for (double x : special.data) ends += x == -3.0 || x == 8.0, zeros += x == 0;
    for (double x : integral.data) fractional += x != std::trunc(x);
  }
  EXPECT_EQ(zeros, 0);  // minMagnitude 0.25 keeps 0 out, even as a special value
  EXPECT_GT(ends, 300);
  EXPECT_GT(tiny, 300);  // log-uniform down to 8 / 16384 (but not below the 0.25 floor)
  EXPECT_EQ(fractional, 0);

  const ValueRange zeroOk{-2.0, 2.0, 0.0};
  int negativeZeros = 0;
  for (int k = 0; k < 50; ++k)
    for (double x : sampleTensor(type, zeroOk, rng, {0, 0, 1, 0}).data) negativeZeros += x == 0 && std::signbit(x);
  EXPECT_GT(negativeZeros, 0);
  int intNegativeZeros = 0;
  for (int k = 0; k < 50; ++k)
    for (double x : sampleTensor({DType::Int32, {64}}, {-5, 5, 0}, rng, {0, 0, 1, 0}).data)
      intNegativeZeros += x == 0 && std::signbit(x);
  EXPECT_EQ(intNegativeZeros, 0);
}

TEST(ValueMix, NarrowOnlyDrawsAsBefore) {
  Rng a(9), b(9);
  const TensorType type{DType::Float32, {16}};
  EXPECT_EQ(sampleTensor(type, {-2, 2, 0}, a).data, sampleTensor(type, {-2, 2, 0}, b, ValueMix{}).data);
}

}  // namespace
}  // namespace nnfuzz
