// work_budget_test.cpp - the reference estimates a model's work and refuses one over budget.
#include <gtest/gtest.h>

#include "interp/interpreter.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

// The reference refuses, before running anything, a model that would take hours.
TEST(WorkBudget, HeavyModelsAreRefusedBeforeRunning) {
  const Graph heavy = parseGraph(R"(graph {
  %0 = input f32[1,64,200,200]
  %1 = input f32[64,64,50,50]
  %2 = Conv(%0, %1) {pads=[300,300,300,300]} : f32[1,64,751,751]
  return %2
}
)");
  EXPECT_GT(estimateWork(heavy), 1e12);
  try {
    runGraph(heavy, {});  // refused before it even looks at the inputs
    FAIL() << "ran a model of 5.8e12 steps";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("over its budget"), std::string::npos) << e.what();
  }

  const Graph pool = parseGraph(R"(graph {
  %0 = input f32[1,1,4,4]
  %1 = MaxPool(%0) {kernel_shape=[1,1048576], pads=[0,1048575,0,0]} : f32[1,1,4,4]
  return %1
}
)");
  EXPECT_GT(estimateWork(pool), 1e7);
  EXPECT_THROW(runGraph(pool, {Tensor(pool.value(pool.inputs()[0]).type)}, 1e6), Error);

  const Graph light = parseGraph(R"(graph {
  %0 = input f32[64,8]
  %1 = input f32[8,64]
  %2 = MatMul(%0, %1) : f32[64,64]
  return %2
}
)");
  EXPECT_DOUBLE_EQ(estimateWork(light), 64 * 64 * 8);  // each result a sum of 8 products
  EXPECT_NO_THROW(runGraph(light, {Tensor(light.value(light.inputs()[0]).type), Tensor(light.value(light.inputs()[1]).type)}));
}

TEST(WorkBudget, EinsumCountsEachLabelOnce) {
  const Graph g = parseGraph(R"(graph {
  %0 = input f32[64,8]
  %1 = input f32[8,64]
  %2 = Einsum(%0, %1) {equation="ij,jk->ik"} : f32[64,64]
  %3 = input f32[3,4,5]
  %4 = Einsum(%3) {equation="...ij->...ji"} : f32[3,5,4]
  return %2, %4
}
)");
  // The product: i, j, k once each (64 * 8 * 64). The transpose visits 3 * 4 * 5 label
  // combinations, fewer than its operand and result hold (120), which count instead.
  EXPECT_DOUBLE_EQ(estimateWork(g), 64 * 8 * 64 + 3 * 4 * 5 * 2);
}

}  // namespace
}  // namespace nnfuzz
