// text_test.cpp - the GraphIR text form round-trips and the graph operations keep it valid.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/graph.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

const char* kSample = R"(graph {
  %0 = input f32[1,3,5,5]
  %1 = weight i64[2] [1, -1]
  %2 = weight f32[2] [0.5, -1.25]
  %3 = Conv(%0, %0) {auto_pad="NOTSET", group=1, names=["Tanh","a\\\"b"], pads=[0,1,0,1], scales=[0.5,2.0]} : f32[1,2,3,4]
  %4, %5 = Split(%3) {axis=1, eps=1e-05} : f32[1,1,3,4], f32[1,1,3,4]
  %6 = Clip(%4, _, %2) {empty=f[], none=[], strs=s[]} : f32[1,1,3,4]
  return %5, %6
}
)";

TEST(IrText, PrintParsesBackIdentically) {
  Graph g = parseGraph(kSample);
  EXPECT_EQ(printGraph(g), kSample);
  EXPECT_EQ(verifyStructure(g), std::nullopt);
}

// An operator of another domain prints its domain before its name; the default prints none.
TEST(IrText, DomainsPrintBeforeTheOperatorAndParseBack) {
  const char* text = R"(graph {
  %0 = input f32[2,3]
  %1 = com.microsoft.FusedMatMul(%0, %0) {transB=1} : f32[2,2]
  %2 = Relu(%1) : f32[2,2]
  return %2
}
)";
  const Graph g = parseGraph(text);
  const Node& fused = g.node(g.nodes()[0]);
  EXPECT_EQ(fused.op, "FusedMatMul");
  EXPECT_EQ(fused.domain, "com.microsoft");
  EXPECT_EQ(qualifiedOp(fused), "com.microsoft.FusedMatMul");
  EXPECT_EQ(g.node(g.nodes()[1]).domain, "");
  EXPECT_EQ(domainsUsed(g), std::vector<std::string>{"com.microsoft"});
  EXPECT_EQ(printGraph(g), text);
  EXPECT_THROW(parseGraph("graph {\n  %0 = input f32[2]\n  %1 = com.(%0) : f32[2]\n  return %1\n}\n"), Error);
}

// INT64_MAX (Slice's "to the end") and INT64_MIN are held saturated below 2^63, so every
// element converts back to int64 without overflow, and the text is stable after one trip.
TEST(IrText, Int64ExtremesSaturateAndRoundTrip) {
  const Graph g = parseGraph("graph {\n  %0 = weight i64[3] [9223372036854775807, -9223372036854775808, 5]\n  return %0\n}\n");
  const Tensor& t = *g.value(0).data;
  EXPECT_EQ(t.data[0], kInt64Ceiling);
  EXPECT_EQ(toInt64Saturated(t.data[0]), 9223372036854774784);
  EXPECT_EQ(toInt64Saturated(t.data[1]), INT64_MIN);
  const std::string text = printGraph(g);
  EXPECT_NE(text.find("[9223372036854774784, -9223372036854775808, 5]"), std::string::npos) << text;
  EXPECT_EQ(printGraph(parseGraph(text)), text);
  EXPECT_EQ(toInt64Saturated(std::nan("")), 0);
  EXPECT_EQ(toInt64Saturated(1e300), 9223372036854774784);
}

TEST(TensorType, AnEmptyDimMakesZeroWhateverTheOthers) {
  EXPECT_EQ((TensorType{DType::Float32, {144012581273437500, 5004, 0}}).numel(), 0);
  EXPECT_EQ((TensorType{DType::Float32, {2, 3}}).numel(), 6);
  EXPECT_EQ((TensorType{DType::Float32, {}}).numel(), 1);
}

TEST(IrText, ParsedAttributesHaveTheirKinds) {
  Graph g = parseGraph(kSample);
  const Node& split = g.node(1);
  EXPECT_EQ(split.attrs.getInt("axis", 0), 1);
  EXPECT_FLOAT_EQ(static_cast<float>(split.attrs.getFloat("eps", 0)), 1e-5f);
  EXPECT_TRUE(g.node(2).attrs.hasWrongKind<int64_t>("empty"));
  EXPECT_EQ(g.node(0).attrs.getStrings("names"), (std::vector<std::string>{"Tanh", "a\\\"b"}));
  EXPECT_TRUE(g.node(2).attrs.has("strs") && g.node(2).attrs.getStrings("strs", {"x"}).empty());
}

TEST(IrText, BadTextNamesTheLine) {
  try {
    parseGraph("graph {\n  %0 = input f33[1]\n  return %0\n}\n");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("f33"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parseGraph("graph {\n  %0 = Relu(%3) : f32[1]\n  return %0\n}"), Error);
}

TEST(IrGraph, ReplaceAllUsesAndRemoveUnused) {
  Graph g = parseGraph(kSample);
  const ValueId input = g.inputs()[0];
  const ValueId splitFirst = g.node(1).outputs[0];
  g.replaceAllUses(splitFirst, input);  // Clip now reads the input directly
  EXPECT_TRUE(g.value(splitFirst).uses.empty());
  EXPECT_EQ(g.node(2).inputs[0], input);
  EXPECT_EQ(verifyStructure(g), std::nullopt);
  g.setOutputs({g.node(2).outputs[0]});
  const size_t removed = g.removeUnused();
  EXPECT_EQ(removed, 3u);  // Conv, Split and the unused i64 weight
  EXPECT_EQ(g.numNodes(), 1u);
  EXPECT_EQ(verifyStructure(g), std::nullopt);
  EXPECT_EQ(printGraph(g), R"(graph {
  %0 = input f32[1,3,5,5]
  %1 = weight f32[2] [0.5, -1.25]
  %2 = Clip(%0, _, %1) {empty=f[], none=[], strs=s[]} : f32[1,1,3,4]
  return %2
}
)");
}

TEST(IrGraph, VerifierCatchesBrokenUseLists) {
  Graph g = parseGraph(kSample);
  g.value(g.inputs()[0]).uses.clear();
  auto problem = verifyStructure(g);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("use list"), std::string::npos) << *problem;
}

TEST(IrGraph, InsertKeepsTopologicalOrder) {
  Graph g = parseGraph(kSample);
  const NodeId conv = g.nodes()[0];
  const NodeId relu = g.insertNode(conv, "Relu", {g.inputs()[0]}, {}, {g.value(g.inputs()[0]).type});
  g.setOperand(conv, 1, g.node(relu).outputs[0]);
  EXPECT_EQ(g.nodes()[0], relu);
  EXPECT_EQ(verifyStructure(g), std::nullopt);
}

TEST(IrDType, RoundingWrapsLikeC) {
  EXPECT_EQ(roundTo(DType::Int8, 130), -126);
  EXPECT_EQ(roundTo(DType::UInt8, -1), 255);
  EXPECT_EQ(roundTo(DType::Int32, -2.7), -2);
  EXPECT_EQ(roundTo(DType::Bool, -0.5), 1);
  EXPECT_EQ(roundTo(DType::Float32, 0.1), static_cast<double>(0.1f));
}

}  // namespace
}  // namespace nnfuzz
