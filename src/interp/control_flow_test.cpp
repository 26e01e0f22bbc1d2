// control_flow_test.cpp - If, Loop and Scan through the reference: values computed by hand,
// outer values read through captures, and the static-typing refusals of control_flow.cpp.
#include <gtest/gtest.h>

#include "interp/interpreter.h"
#include "ops/infer_node.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

Tensor f32(Shape shape, std::vector<double> v) { return Tensor(TensorType{DType::Float32, std::move(shape)}, std::move(v)); }
Tensor boolean(bool b) { return Tensor(TensorType{DType::Bool, {}}, {b ? 1.0 : 0.0}); }

TEST(ControlFlow, IfRunsTheChosenBranchOnOuterValues) {
  Graph g = parseGraph(R"(graph {
  %0 = input bool[]
  %1 = input f32[2]
  %2 = weight f32[2] [10.0, 20.0]
  %3 = If(%0) {else_branch=graph {
    %4 = Neg(%1) : f32[2]
    return %4
  }, then_branch=graph {
    %5 = Add(%1, %2) : f32[2]
    return %5
  }} : f32[2]
  return %3
}
)");
  ASSERT_EQ(verifyGraph(g), std::nullopt);
  EXPECT_EQ(runGraph(g, {boolean(true), f32({2}, {1, 2})})[0].data, (std::vector<double>{11, 22}));
  EXPECT_EQ(runGraph(g, {boolean(false), f32({2}, {1, 2})})[0].data, (std::vector<double>{-1, -2}));
}

// A cumulative sum over M = 3 iterations: carried y += x * (i + 1), scan output y each time.
const char* kLoop = R"(graph {
  %0 = input f32[2]
  %1 = weight i64[] [3]
  %2 = weight bool[] [1]
  %3, %4 = Loop(%1, %2, %0) {body=graph {
    %5 = input i64[]
    %6 = input bool[]
    %7 = input f32[2]
    %8 = weight i64[] [1]
    %9 = Add(%5, %8) : i64[]
    %10 = Cast(%9) {to=1} : f32[]
    %11 = Mul(%0, %10) : f32[2]
    %12 = Add(%7, %11) : f32[2]
    return %6, %12, %12
  }} : f32[2], f32[3,2]
  return %3, %4
}
)";

TEST(ControlFlow, LoopCarriesValuesAndStacksScanOutputs) {
  Graph g = parseGraph(kLoop);
  ASSERT_EQ(verifyGraph(g), std::nullopt);
  const auto out = runGraph(g, {f32({2}, {1, -1})});
  EXPECT_EQ(out[0].data, (std::vector<double>{7, -7}));  // 1 + 2 + 3 = 6, plus the initial 1
  EXPECT_EQ(out[1].data, (std::vector<double>{2, -2, 4, -4, 7, -7}));
}

TEST(ControlFlow, LoopConditionStopsEarlyWithoutScanOutputs) {
  // cond_out = i < 1: the body runs for i = 0 and 1, then stops (M = 5).
  Graph g = parseGraph(R"(graph {
  %0 = input f32[2]
  %1 = weight i64[] [5]
  %2 = weight bool[] [1]
  %3 = Loop(%1, %2, %0) {body=graph {
    %4 = input i64[]
    %5 = input bool[]
    %6 = input f32[2]
    %7 = weight i64[] [1]
    %8 = Less(%4, %7) : bool[]
    %9 = Add(%6, %6) : f32[2]
    return %8, %9
  }} : f32[2]
  return %3
}
)");
  ASSERT_EQ(verifyGraph(g), std::nullopt);
  EXPECT_EQ(runGraph(g, {f32({2}, {1, 3})})[0].data, (std::vector<double>{4, 12}));
}

TEST(ControlFlow, LoopWithoutTripCountRunsWhileTheConditionHolds) {
  // M omitted: the loop runs until cond_out = i < 2 is false (i = 0, 1, 2), so x doubles 3 times.
  Graph g = parseGraph(R"(graph {
  %0 = input f32[2]
  %1 = weight bool[] [1]
  %2 = Loop(_, %1, %0) {body=graph {
    %3 = input i64[]
    %4 = input bool[]
    %5 = input f32[2]
    %6 = weight i64[] [2]
    %7 = Less(%3, %6) : bool[]
    %8 = Add(%5, %5) : f32[2]
    return %7, %8
  }} : f32[2]
  return %2
}
)");
  ASSERT_EQ(verifyGraph(g), std::nullopt);
  EXPECT_EQ(runGraph(g, {f32({2}, {1, 3})})[0].data, (std::vector<double>{8, 24}));
}

TEST(ControlFlow, LoopWithoutTripCountHasNoScanOutputs) {
  // A scan output's length is the iteration count, which is unknown without M.
  Graph g = parseGraph(R"(graph {
  %0 = input f32[2]
  %1 = weight bool[] [1]
  %2, %3 = Loop(_, %1, %0) {body=graph {
    %4 = input i64[]
    %5 = input bool[]
    %6 = input f32[2]
    %7 = weight i64[] [2]
    %8 = Less(%4, %7) : bool[]
    %9 = Add(%6, %6) : f32[2]
    return %8, %9, %9
  }} : f32[2], f32[3,2]
  return %2, %3
}
)");
  const auto problem = verifyGraph(g);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("scan output"), std::string::npos) << *problem;
}

TEST(ControlFlow, LoopBodyIndexOutOfRangeInALaterIterationIsAnError) {
  // The three-SUT campaign's onnxruntime-any-if-4d934303: iteration 1 gathers index 1 of a
  // one-element tensor. ONNX Runtime refuses it; the reference used to read element 0.
  Graph g = parseGraph(R"(graph {
  %0 = input f32[1]
  %1 = weight i64[] [2]
  %2 = weight bool[] [1]
  %3 = Loop(%1, %2, %0) {body=graph {
    %4 = input i64[]
    %5 = input bool[]
    %6 = input f32[1]
    %7 = Gather(%0, %4) : f32[]
    %8 = Add(%6, %7) : f32[1]
    return %5, %8
  }} : f32[1]
  return %3
}
)");
  ASSERT_EQ(verifyGraph(g), std::nullopt);
  EXPECT_THROW(runGraph(g, {f32({1}, {1})}), Error);
}

TEST(ControlFlow, LoopWithoutCondIgnoresTheBodysCondition) {
  // ONNX's "for loop" form: M = 3 iterations although the body says stop after the first.
  Graph g = parseGraph(R"(graph {
  %0 = input f32[2]
  %1 = weight i64[] [3]
  %2 = Loop(%1, _, %0) {body=graph {
    %3 = input i64[]
    %4 = input bool[]
    %5 = input f32[2]
    %6 = weight i64[] [0]
    %7 = Less(%3, %6) : bool[]
    %8 = Add(%5, %5) : f32[2]
    return %7, %8
  }} : f32[2]
  return %2
}
)");
  ASSERT_EQ(verifyGraph(g), std::nullopt);
  EXPECT_EQ(runGraph(g, {f32({2}, {1, 3})})[0].data, (std::vector<double>{8, 24}));
}

TEST(ControlFlow, LoopRefusesScanOutputsCutShortByTheCondition) {
  std::string text = kLoop;
  text.replace(text.find("return %6, %12, %12"), 19, "%13 = Not(%6) : bool[]\n    return %13, %12, %12");
  // %13 shifts the numbering of nothing after it: it is the body's last value.
  Graph g = parseGraph(text);
  ASSERT_EQ(verifyGraph(g), std::nullopt);
  EXPECT_THROW(runGraph(g, {f32({2}, {1, -1})}), Error);
}

TEST(ControlFlow, ScanWithAxesAndDirections) {
  // Running sum over the rows of x read backwards (scan axis 1 of a [2,3] input, reversed),
  // scan output stacked on axis 1.
  Graph g = parseGraph(R"(graph {
  %0 = input f32[2]
  %1 = input f32[2,3]
  %2, %3 = Scan(%0, %1) {body=graph {
    %4 = input f32[2]
    %5 = input f32[2]
    %6 = Add(%4, %5) : f32[2]
    return %6, %6
  }, num_scan_inputs=1, scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[-1]} : f32[2], f32[2,3]
  return %2, %3
}
)");
  ASSERT_EQ(verifyGraph(g), std::nullopt);
  const auto out = runGraph(g, {f32({2}, {0, 100}), f32({2, 3}, {1, 2, 3, 4, 5, 6})});
  EXPECT_EQ(out[0].data, (std::vector<double>{6, 115}));
  EXPECT_EQ(out[1].data, (std::vector<double>{3, 5, 6, 106, 111, 115}));
}

// onnxruntime-any-dcf-c919d732 (the "avoid": [] campaign of 2026-11-29): Atanh(2) is NaN in a
// Scan body, and the reference's Relu made it 0 while ONNX Runtime kept the NaN; the Scan's
// result looked finite. A non-finite value inside a body makes the run an error instead.
TEST(ControlFlow, ANonFiniteValueInsideABodyIsAnError) {
  const char* text = R"(graph {
  %0 = input f32[1,1]
  %1 = input f32[1,1,1]
  %2 = Scan(%0, %1) {body=graph {
    %3 = input f32[1,1]
    %4 = input f32[1,1]
    %5 = Atanh(%4) : f32[1,1]
    %6 = Relu(%5) : f32[1,1]
    return %6
  }, num_scan_inputs=1} : f32[1,1]
  return %2
}
)";
  const Graph g = parseGraph(text);
  ASSERT_EQ(verifyGraph(g), std::nullopt);
  EXPECT_THROW(runGraph(g, {f32({1, 1}, {0}), f32({1, 1, 1}, {2})}), Error);
  EXPECT_EQ(runGraph(g, {f32({1, 1}, {0}), f32({1, 1, 1}, {0.5})})[0].data.size(), 1u);  // in Atanh's domain
}

TEST(ControlFlow, InferenceRefusesMismatchedBodies) {
  // Branches of different types.
  Graph g = parseGraph(R"(graph {
  %0 = input bool[]
  %1 = input f32[2]
  %2 = If(%0) {else_branch=graph {
    %3 = weight f32[1] [1.0]
    return %3
  }, then_branch=graph {
    return %1
  }} : f32[2]
  return %2
}
)");
  auto problem = verifyGraph(g);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("branches"), std::string::npos) << *problem;
  // A loop-carried value that changes type.
  std::string text = kLoop;
  text.replace(text.find("return %6, %12, %12"), 19, "return %6, %11, %10");
  problem = verifyGraph(parseGraph(text));
  ASSERT_TRUE(problem.has_value());
}

TEST(ControlFlow, WorkEstimateCountsBodiesPerIteration) {
  Graph g = parseGraph(kLoop);
  const double once = estimateWork(g);
  std::string text = kLoop;
  text.replace(text.find("[] [3]"), 6, "[] [300]");
  text.replace(text.find("f32[3,2]"), 8, "f32[300,2]");
  EXPECT_GT(estimateWork(parseGraph(text)), 50 * once);
}

}  // namespace
}  // namespace nnfuzz
