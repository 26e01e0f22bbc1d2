// subgraph_export_test.cpp - If, Loop and Scan bodies through export, ONNX's checker and
// import: canonical graphs round-trip byte for byte, bodies returning values they do not
// compute gain an Identity and still compute the same.
#include <gtest/gtest.h>

#include "interp/interpreter.h"
#include "onnx/export.h"
#include "onnx/import.h"
#include "onnx/model_check.h"
#include "ops/infer_node.h"

namespace nnfuzz {
namespace {

// Runtime inputs first, then weights (import's order); a Loop whose body nests an If
// that reads a top-level value, and a Scan.
const char* kCanonical = R"(graph {
  %0 = input bool[]
  %1 = input f32[2]
  %2 = input f32[3,2]
  %3 = weight f32[2] [1.0, 2.0]
  %4 = weight i64[] [3]
  %5 = weight bool[] [1]
  %6 = If(%0) {else_branch=graph {
    %7 = Neg(%3) : f32[2]
    return %7
  }, then_branch=graph {
    %8 = Add(%1, %3) : f32[2]
    return %8
  }} : f32[2]
  %9, %10 = Loop(%4, %5, %6) {body=graph {
    %11 = input i64[]
    %12 = input bool[]
    %13 = input f32[2]
    %14 = Identity(%12) : bool[]
    %15 = If(%12) {else_branch=graph {
      %16 = Sub(%13, %1) : f32[2]
      return %16
    }, then_branch=graph {
      %17 = Mul(%13, %1) : f32[2]
      return %17
    }} : f32[2]
    %18 = Neg(%15) : f32[2]
    return %14, %15, %18
  }} : f32[2], f32[3,2]
  %19, %20 = Scan(%9, %2) {body=graph {
    %21 = input f32[2]
    %22 = input f32[2]
    %23 = Add(%21, %22) : f32[2]
    %24 = Mul(%23, %3) : f32[2]
    return %23, %24
  }, num_scan_inputs=1} : f32[2], f32[3,2]
  return %19, %20, %10
}
)";

std::vector<Tensor> sampleInputs(bool cond) {
  return {Tensor(TensorType{DType::Bool, {}}, {cond ? 1.0 : 0.0}), Tensor(TensorType{DType::Float32, {2}}, {0.5, -2}),
          Tensor(TensorType{DType::Float32, {3, 2}}, {1, 2, 3, 4, 5, 6})};
}

TEST(SubgraphExport, CanonicalGraphRoundTripsAndChecks) {
  const Graph g = parseGraph(kCanonical);
  ASSERT_EQ(verifyGraph(g), std::nullopt);
  const onnx::ModelProto m = exportModel(g);
  EXPECT_EQ(checkModel(m, &g), std::nullopt);
  const std::string bytes = serializeModel(m);
  const Graph back = importModel(parseModel(bytes, "exported model"));
  EXPECT_EQ(verifyGraph(back), std::nullopt);
  EXPECT_EQ(printGraph(back), kCanonical);
  EXPECT_EQ(serializeModel(exportModel(back)), bytes);
  // Body names live under their node's prefix; outer values keep their own names.
  const auto& loop = m.graph().node(1);
  ASSERT_EQ(loop.op_type(), "Loop");
  EXPECT_EQ(loop.attribute(0).g().name(), "Loop_1_body");
  EXPECT_EQ(loop.attribute(0).g().input(0).name(), "Loop_1_body/input_0");
  const auto& inner = loop.attribute(0).g().node(1).attribute(0).g();
  EXPECT_EQ(inner.node(0).input(1), "input_1");
}

TEST(SubgraphExport, BodiesReturningOuterValuesGainAnIdentity) {
  const Graph g = parseGraph(R"(graph {
  %0 = input bool[]
  %1 = input f32[2]
  %2 = If(%0) {else_branch=graph {
    return %1
  }, then_branch=graph {
    %3 = Abs(%1) : f32[2]
    return %3
  }} : f32[2]
  return %2
}
)");
  ASSERT_EQ(verifyGraph(g), std::nullopt);
  const onnx::ModelProto m = exportModel(g);
  EXPECT_EQ(checkModel(m, &g), std::nullopt);
  const auto& elseBranch = m.graph().node(0).attribute(0).g();
  ASSERT_EQ(elseBranch.node_size(), 1);
  EXPECT_EQ(elseBranch.node(0).op_type(), "Identity");
  const Graph back = importModel(m);
  for (bool cond : {false, true}) {
    const auto in = sampleInputs(cond);
    const std::vector<Tensor> inputs{in[0], in[1]};
    EXPECT_EQ(runGraph(back, inputs)[0], runGraph(g, inputs)[0]);
  }
}

TEST(SubgraphExport, ReferenceAgreesAfterImport) {
  const Graph g = parseGraph(kCanonical);
  const Graph back = importModel(exportModel(g));
  for (bool cond : {false, true}) {
    const auto a = runGraph(g, sampleInputs(cond)), b = runGraph(back, sampleInputs(cond));
    ASSERT_EQ(a.size(), 3u);
    for (size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k], b[k]);
  }
}

TEST(SubgraphExport, ImportRefusesBodiesOfTheWrongArity) {
  onnx::ModelProto m = exportModel(parseGraph(kCanonical));
  auto* body = m.mutable_graph()->mutable_node(1)->mutable_attribute(0)->mutable_g();
  body->mutable_input()->RemoveLast();
  EXPECT_THROW(importModel(m), Error);
}

}  // namespace
}  // namespace nnfuzz
