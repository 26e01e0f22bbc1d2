// exactness_test.cpp - which results are exact, and the stability checks that trust only
// exact zeros and ties (issue 14's false alarms: a CumSum or a log that is exactly 0 in
// double but a few ulps off in float32, feeding Sign, Less or Cast).
#include "ops/exactness.h"

#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

bool exact(const std::string& op, const std::vector<const Tensor*>& in, const Attributes& attrs = {}) {
  return exactResult(*findOp(op), in, run(op, in, attrs));
}

Tensor inexact(Tensor t) {
  t.exact = false;
  return t;
}

TEST(Exactness, MovingAndSelectingKeepExactnessAndRoundingFamiliesRestoreIt) {
  const Tensor x = F({4}, {-0.3, 0.3, 1.5, -2.25});
  const Tensor fuzzy = inexact(x);
  EXPECT_TRUE(exact("Relu", {&x}));
  EXPECT_TRUE(exact("Neg", {&x}));
  EXPECT_TRUE(exact("Max", {&x, &x}));
  EXPECT_FALSE(exact("Relu", {&fuzzy}));
  EXPECT_TRUE(exact("Floor", {&fuzzy}));  // integral, behind Floor's own check
  EXPECT_FALSE(exact("Exp", {&x}));
  EXPECT_FALSE(exact("Softmax", {&x}));
  const Tensor axis = T(DType::Int64, {}, {0});
  EXPECT_FALSE(exact("CumSum", {&x, &axis}));  // -0.3 + 0.3 is 0 in double only
  EXPECT_TRUE(exact("ArgMax", {&fuzzy}));      // integer results are exact
}

TEST(Exactness, IntegerArithmeticIsExactWhileTheDtypeHoldsEveryPartialResult) {
  const Tensor a = F({3}, {-3, 3, 7});
  const Tensor b = F({3}, {2, -5, 1});
  const Tensor axis = T(DType::Int64, {}, {0});
  EXPECT_TRUE(exact("Add", {&a, &b}));
  EXPECT_TRUE(exact("Mul", {&a, &b}));
  EXPECT_TRUE(exact("CumSum", {&a, &axis}));
  const Tensor big = F({2}, {16777216, 1});
  EXPECT_FALSE(exact("Add", {&big, &big}));  // 2^25: float32 no longer holds every integer
  const Tensor half = F({3}, {0.5, 3, 7});
  EXPECT_FALSE(exact("Add", {&half, &b}));
  const Tensor fuzzy = inexact(a);
  EXPECT_FALSE(exact("Add", {&fuzzy, &b}));
}

TEST(Exactness, StabilityTrustsOnlyExactZerosAndTies) {
  const Tensor zeros = F({2}, {0, 1});
  const Tensor fuzzyZeros = inexact(zeros);
  EXPECT_FALSE(unstable("Sign", {&zeros}));
  EXPECT_TRUE(unstable("Sign", {&fuzzyZeros}));
  Attributes toInt;
  toInt.setInt("to", 6);  // int32
  EXPECT_FALSE(unstable("Cast", {&zeros}, toInt));
  EXPECT_TRUE(unstable("Cast", {&fuzzyZeros}, toInt));
  const Tensor ones = F({2}, {1, 1});
  const Tensor fuzzyOnes = inexact(ones);
  EXPECT_TRUE(unstable("Less", {&fuzzyOnes, &ones}));
  EXPECT_TRUE(unstable("LessOrEqual", {&ones, &fuzzyOnes}));
  const Tensor ones2 = F({2}, {1, 1});
  EXPECT_FALSE(unstable("Equal", {&ones, &ones2}));  // two exact tensors tie exactly
  EXPECT_FALSE(unstable("Less", {&ones2, &ones}));
  const Tensor three = F({2}, {3, 3});
  const Tensor fuzzyThree = inexact(three);
  Attributes fmod;
  fmod.setInt("fmod", 1);  // float Mod needs it
  EXPECT_FALSE(unstable("Mod", {&three, &ones}, fmod));
  EXPECT_TRUE(unstable("Mod", {&fuzzyThree, &ones}, fmod));
}

// Found by the default ONNX Runtime campaign: a BlackmanWindow's end points are 0 in the
// reference but 1.5e-8 in float32, and 0^y and DynamicQuantizeLinear's zero point jump there.
TEST(Exactness, WindowNoiseNearZeroIsUnstableForPowAndDynamicQuantize) {
  const Tensor zeroBase = T(DType::Int32, {2}, {0, 0});
  const Tensor exponents = F({2}, {0.0, 0.5});
  EXPECT_FALSE(unstable("Pow", {&zeroBase, &exponents}));
  const Tensor noisy = inexact(exponents);
  EXPECT_TRUE(unstable("Pow", {&zeroBase, &noisy}));
  // 0 to a negative power is infinite: no integer result (neuri's Pow records drew it).
  const Tensor negative = F({2}, {1.0, -1.2});
  EXPECT_TRUE(unstable("Pow", {&zeroBase, &negative}));
  const Tensor negativeInts = T(DType::Int32, {2}, {1, -2});
  EXPECT_TRUE(unstable("Pow", {&zeroBase, &negativeInts}));
  const Tensor positiveInts = T(DType::Int32, {2}, {1, 2});
  EXPECT_FALSE(unstable("Pow", {&zeroBase, &positiveInts}));
  // A computed divisor of 2.9e-8 is 0 in a SUT that flushes it (neuri's Div(t, t)).
  const Tensor tinyDivisor = inexact(F({2}, {1.0, 2.9e-8}));
  const Tensor dividend = F({2}, {1.0, 1.0});
  EXPECT_TRUE(unstable("Div", {&dividend, &tinyDivisor}));
  const Tensor plainDivisor = inexact(F({2}, {1.0, 0.5}));
  EXPECT_FALSE(unstable("Div", {&dividend, &plainDivisor}));
  const Tensor zeroInt = T(DType::Int32, {2}, {1, 0});
  const Tensor sevens = T(DType::Int32, {2}, {7, 7});
  EXPECT_TRUE(unstable("Div", {&sevens, &zeroInt}));
  // A shift of the type's width or more is undefined (neuri's BitShift rule drew 9).
  const Tensor bits = T(DType::UInt8, {1}, {178});
  const Tensor nine = T(DType::UInt8, {}, {9});
  const Tensor seven = T(DType::UInt8, {}, {7});
  Attributes right;
  right.setString("direction", "RIGHT");
  EXPECT_TRUE(unstable("BitShift", {&bits, &nine}, right));
  EXPECT_FALSE(unstable("BitShift", {&bits, &seven}, right));
  const Tensor tiny = F({2}, {-1.4e-17, 0.0});
  EXPECT_FALSE(unstable("DynamicQuantizeLinear", {&tiny}));
  const Tensor tinyNoisy = inexact(tiny);
  EXPECT_TRUE(unstable("DynamicQuantizeLinear", {&tinyNoisy}));
  const Tensor wide = inexact(F({2}, {-1.0, 2.0}));
  EXPECT_FALSE(unstable("DynamicQuantizeLinear", {&wide}));
  // All zeros, even exact: y_scale = 0 makes y = x / 0 undefined (the three-SUT campaign's
  // openvino-any-dcf-5b2f5188: OpenVINO scale 0, ONNX Runtime 1).
  const Tensor zeros = F({3}, {0.0, 0.0, 0.0});
  EXPECT_TRUE(unstable("DynamicQuantizeLinear", {&zeros}));
  // A denormal range: the float32 scale underflows (opset-18 test case 302: zero point 255 vs 0).
  const Tensor denormal = F({}, {1.8e-44});
  EXPECT_TRUE(unstable("DynamicQuantizeLinear", {&denormal}));
}

}  // namespace
}  // namespace nnfuzz
