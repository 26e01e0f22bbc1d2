// operand_range_test.cpp - operandRangeOf: the value range a spec gives operand k of a call
// whose types and attributes a rule or record fixed (the neuri generator's fresh operands).
#include <gtest/gtest.h>

#include "ops/instantiate.h"
#include "ops/registry.h"

namespace nnfuzz {
namespace {

TEST(OperandRange, FollowsTheSpecsPatternForLaterOperands) {
  const Limits limits;
  const TensorType u8{DType::UInt8, {2, 3}};
  Attributes left;
  left.setString("direction", "LEFT");
  // BitShift's amounts stay below uint8's width, whatever the dtype's default range allows.
  const ValueRange shift = operandRangeOf(*findOp("BitShift"), 1, {&u8, &u8}, left, limits);
  EXPECT_GE(shift.lo, 0);
  EXPECT_LE(shift.hi, 7);
  EXPECT_GT(defaultRange(DType::UInt8).hi, 7);  // so the default would not do
  EXPECT_EQ(operandRangeOf(*findOp("BitShift"), 0, {&u8, &u8}, left, limits), (ValueRange{0, 255, 0}));
  // A divisor keeps away from zero, as the spec's divisor pattern says.
  const TensorType f32{DType::Float32, {4}};
  EXPECT_GT(operandRangeOf(*findOp("Div"), 1, {&f32, &f32}, {}, limits).minMagnitude, 0);
  EXPECT_EQ(operandRangeOf(*findOp("Add"), 1, {&f32, &f32}, {}, limits), defaultRange(DType::Float32));
}

TEST(OperandRange, FallsBackToNonZeroDefaults) {
  const Limits limits;
  const TensorType i64{DType::Int64, {3}};
  // Relu has one operand: no pattern for operand 1, so the fallback (non-zero integers).
  const ValueRange r = operandRangeOf(*findOp("Relu"), 1, {&i64, &i64}, {}, limits);
  EXPECT_EQ(r.lo, defaultRange(DType::Int64).lo);
  EXPECT_GE(r.minMagnitude, 1);
}

}  // namespace
}  // namespace nnfuzz
