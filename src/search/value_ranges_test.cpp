// value_ranges_test.cpp - what `nnfuzz cov --values` counts per operator and operand.
#include "search/value_ranges.h"

#include <gtest/gtest.h>

#include "gen/generator.h"
#include "interp/interpreter.h"

namespace nnfuzz::search {
namespace {

TEST(ValueRanges, CountsNodesWithLargeTinyZeroAndNegativeElements) {
  const Graph g = parseGraph(R"(graph {
  %0 = input f32[4]
  %1 = weight f32[4] [3.0, 3.0, 3.0, 3.0]
  %2 = Mul(%0, %1) : f32[4]
  %3 = Sigmoid(%2) : f32[4]
  %4 = Sigmoid(%0) : f32[4]
  %5 = Add(%3, %4) : f32[4]
  return %5
})");
  const std::vector<Tensor> inputs{Tensor({DType::Float32, {4}}, {-2.0, 0.0, 0.0001, 1.5})};
  ValueRanges ranges;
  ranges.add(g, runGraphAll(g, inputs));
  const OperandValues& sigmoid = ranges.operands().at({"Sigmoid", 0});
  EXPECT_EQ(sigmoid.nodes, 2);
  EXPECT_EQ(sigmoid.large, 1);  // 3 * -2 = -6 reaches one of the two
  EXPECT_DOUBLE_EQ(sigmoid.min, -6.0);
  EXPECT_DOUBLE_EQ(sigmoid.maxAbs, 6.0);
  EXPECT_EQ(sigmoid.zero, 2);
  EXPECT_EQ(sigmoid.tiny, 2);
  EXPECT_EQ(sigmoid.negative, 2);
  const OperandValues& weight = ranges.operands().at({"Mul", 1});
  EXPECT_EQ(weight.negative, 0);
  EXPECT_DOUBLE_EQ(weight.max, 3.0);

  ValueRanges twice = ranges;
  twice.merge(ranges);
  EXPECT_EQ(twice.operands().at({"Sigmoid", 0}).nodes, 4);
  EXPECT_EQ(twice.operands().at({"Sigmoid", 0}).large, 2);
  EXPECT_NE(ranges.format().find("Sigmoid"), std::string::npos);
  EXPECT_EQ(ranges.toJson().size(), ranges.operands().size());
}

// Issue 14's bar: with the default config, at least a fifth of the nodes of each saturating
// activation see an input with |x| > 4 (reuse used to keep them within [-2, 2]: 0%).
TEST(ValueRanges, DefaultModelsDriveActivationsIntoSaturation) {
  GenConfig c = defaultConfig();
  c.seed = 1;
  validateConfig(c);
  ValueRanges ranges;
  for (uint64_t i = 0; i < 1000; ++i) {
    const GeneratedCase k = generateCase(c, i);
    ranges.add(k.graph, runGraphAll(k.graph, k.inputs));
  }
  for (const char* op : {"Sigmoid", "Tanh", "Softplus", "Softsign", "HardSigmoid", "HardSwish", "Elu", "Selu", "Celu",
                         "Erf"}) {
    const OperandValues& x = ranges.operands().at({op, 0});
    ASSERT_GT(x.nodes, 50) << op;
    EXPECT_GE(x.large, x.nodes / 5) << op << ": " << x.large << " of " << x.nodes << " nodes saw |x| > 4";
  }
}

}  // namespace
}  // namespace nnfuzz::search
