// opaque_test.cpp - a graph with nodes of another domain (no spec, no kernel): the
// reference computes what does not depend on them and names what does.
#include <gtest/gtest.h>

#include "interp/interpreter.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

TEST(Opaque, TheReferenceCoversWhatDoesNotDependOnOpaqueNodes) {
  const Graph g = parseGraph(R"(graph {
  %0 = input f32[3]
  %1 = Neg(%0) : f32[3]
  %2 = com.microsoft.Gelu(%1) : f32[3]
  %3 = com.microsoft.QuickGelu(%2) : f32[3]
  %4 = Abs(%1) : f32[3]
  return %4, %3, %2
}
)");
  EXPECT_EQ(unreferencedOutputs(g), (std::vector<size_t>{1, 2}));
  const std::vector<bool> unknown = unreferencedValues(g);
  EXPECT_FALSE(unknown[1]);
  EXPECT_TRUE(unknown[2]);
  EXPECT_TRUE(unknown[3]);
  const auto out = runGraph(g, {Tensor(TensorType{DType::Float32, {3}}, {1, -2, 3})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].data, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(out[1].data, (std::vector<double>{0, 0, 0}));  // zeros stand in: no kernel
  EXPECT_EQ(out[2].type, (TensorType{DType::Float32, {3}}));
}

TEST(Opaque, AnUnknownDefaultDomainOperatorIsStillAnError) {
  const Graph g = parseGraph("graph {\n  %0 = input f32[3]\n  %1 = NoSuchOp(%0) : f32[3]\n  return %1\n}\n");
  EXPECT_TRUE(unreferencedOutputs(g).empty());
  EXPECT_THROW(runGraph(g, {Tensor(TensorType{DType::Float32, {3}})}), Error);
}

}  // namespace
}  // namespace nnfuzz
