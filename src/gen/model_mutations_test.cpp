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

// A parameter mutation that leaves attributes ONNX Runtime refuses must not survive the
// re-inference: ConvTranspose's output_shape beyond its full output (negative pads; the
// false alarm if-ea4a7642), MaxUnpool's pads reaching the kernel, TfIdfVectorizer's
// max_gram_length beyond its ngram_counts.
TEST(ModelMutations, ReinferenceRefusesWhatEnginesRefuse) {
  Graph g;
  const ValueId x = g.addInput({DType::Float32, {1, 1, 1, 1}});
  const ValueId w = g.addWeight(Tensor({DType::Float32, {1, 1, 1, 1}}, {1.0}));
  Attributes attrs;
  attrs.setInts("output_shape", {1, 1});
  const NodeId n = g.addNode("ConvTranspose", {x, w}, attrs, {{DType::Float32, {1, 1, 1, 1}}});
  g.setOutputs({g.node(n).outputs[0]});
  EXPECT_EQ(reinferTypes(g), std::nullopt);
  g.node(n).attrs.setInts("output_shape", {5, 6});
  EXPECT_NE(reinferTypes(g), std::nullopt);

  Graph u;
  const ValueId ux = u.addInput({DType::Float32, {1, 1, 2, 2}});
  const ValueId indices = u.addWeight(Tensor({DType::Int64, {1, 1, 2, 2}}, {0, 1, 2, 3}));
  Attributes unpool;
  unpool.setInts("kernel_shape", {2, 2});
  unpool.setInts("strides", {2, 2});
  const NodeId un = u.addNode("MaxUnpool", {ux, indices}, unpool, {{DType::Float32, {1, 1, 4, 4}}});
  u.setOutputs({u.node(un).outputs[0]});
  EXPECT_EQ(reinferTypes(u), std::nullopt);
  u.node(un).attrs.setInts("pads", {0, 2, 0, 0});
  EXPECT_NE(reinferTypes(u), std::nullopt);

  Graph t;
  const ValueId tokens = t.addInput({DType::Int64, {4}});
  Attributes tfidf;
  tfidf.setString("mode", "TF");
  tfidf.setInt("min_gram_length", 1);
  tfidf.setInt("max_gram_length", 1);
  tfidf.setInt("max_skip_count", 0);
  tfidf.setInts("pool_int64s", {1, 2});
  tfidf.setInts("ngram_counts", {0});
  tfidf.setInts("ngram_indexes", {0, 1});
  const NodeId tn = t.addNode("TfIdfVectorizer", {tokens}, tfidf, {{DType::Float32, {2}}});
  t.setOutputs({t.node(tn).outputs[0]});
  EXPECT_EQ(reinferTypes(t), std::nullopt);
  t.node(tn).attrs.setInt("max_gram_length", 2);
  EXPECT_NE(reinferTypes(t), std::nullopt);
}

}  // namespace
}  // namespace nnfuzz
