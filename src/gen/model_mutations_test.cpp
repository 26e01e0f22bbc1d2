// model_mutations_test.cpp - mutants of existing models verify, and each kind occurs.
#include <gtest/gtest.h>

#include <set>

#include "gen/generator.h"
#include "gen/model_mutations.h"
#include "ops/infer_node.h"

namespace nnfuzz {
namespace {

TEST(ModelMutations, MutantsVerifyAndEveryKindOccurs) {
  GenConfig c = defaultConfig();
  c.minOps = 5;
  c.maxOps = 15;
  validateConfig(c);
  std::set<std::string> kinds;
  int valid = 0;
  for (uint64_t i = 0; i < 100; ++i) {
    const GeneratedCase k = generateCase(c, i);
    Rng rng(i);
    for (int t = 0; t < 10; ++t) {
      Graph g = k.graph;
      auto done = mutateModel(g, c.limits, rng);
      if (!done) continue;
      ASSERT_EQ(verifyGraph(g), std::nullopt) << done->dump() << "\n" << printGraph(g);
      EXPECT_NE(printGraph(g), printGraph(k.graph)) << done->dump();
      kinds.insert((*done)["kind"].get<std::string>());
      ++valid;
    }
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"nodes_add", "nodes_remove", "parameter", "tensor_shape"}));
  EXPECT_GT(valid, 200);
}

TEST(ModelMutations, ReferenceOutputsRejectUnusableValues) {
  Graph g;
  const ValueId x = g.addInput({DType::Float32, {2}});
  const NodeId n = g.addNode("Log", {x}, {}, {{DType::Float32, {2}}});
  g.setOutputs({g.node(n).outputs[0]});
  EXPECT_TRUE(referenceOutputs(g, {Tensor({DType::Float32, {2}}, {1.0, 2.0})}));
  EXPECT_FALSE(referenceOutputs(g, {Tensor({DType::Float32, {2}}, {-1.0, 2.0})}));  // NaN
}

}  // namespace
}  // namespace nnfuzz
