// generated_models_test.cpp - 10,000 generated models (several seeds, 1-30 ops) all pass
// the ONNX checker with strict shape inference, ONNX's inferred types equal ours, and
// export -> import -> export is the identity. NNFUZZ_TEST_SCALE (e.g. 0.1 under the
// sanitizers) scales the count.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>

#include "gen/generator.h"
#include "onnx/export.h"
#include "onnx/import.h"
#include "onnx/model_check.h"
#include "ops/infer_node.h"

namespace nnfuzz {
namespace {

int scaled(int n) {
  const char* s = std::getenv("NNFUZZ_TEST_SCALE");
  const double f = s ? std::atof(s) : 1.0;
  return std::max(1, static_cast<int>(n * f));
}

TEST(GeneratedModels, AllPassTheOnnxCheckerWithOurTypes) {
  const int perSeed = scaled(2500);
  std::set<std::string> ops;
  int checked = 0;
  std::map<std::string, int> failures;
  for (uint64_t seed : {1, 7, 42, 2024}) {
    GenConfig c = defaultConfig();
    c.seed = seed;
    c.minOps = 1;
    c.maxOps = 30;
    validateConfig(c);
    for (int i = 0; i < perSeed; ++i) {
      GeneratedCase k = generateCase(c, static_cast<uint64_t>(i));
      if (k.unsoundOps && failures[k.firstUnsound.substr(0, 60)]++ == 0)
        ADD_FAILURE() << "seed " << seed << " case " << i << ": unsound sampler: " << k.firstUnsound;
      const std::string bytes = exportModelBytes(k.graph);
      onnx::ModelProto model;
      ASSERT_TRUE(model.ParseFromString(bytes)) << "case " << i;
      if (auto problem = checkModel(model, &k.graph)) {
        const auto key = problem->substr(0, 120);
        if (failures[key]++ == 0) ADD_FAILURE() << "seed " << seed << " case " << i << ": " << *problem << "\n" << printGraph(k.graph);
      }
      if (serializeModel(model) != bytes) ADD_FAILURE() << "bytes not canonical for case " << i;
      // Export -> import -> export is the identity.
      Graph back = importModel(model);
      if (exportModelBytes(back) != bytes) ADD_FAILURE() << "round trip differs for case " << i;
      for (const auto& op : k.opTypes()) ops.insert(op);
      ++checked;
    }
  }
  std::printf("checked %d generated models, %zu distinct operators, %zu distinct checker failures\n", checked,
              ops.size(), failures.size());
  EXPECT_TRUE(failures.empty());
}

// Export writes the wire format itself (onnx/wire.h): over models of three generators and
// five opsets (bodies, Constant nodes in bodies before ir_version 4, weights only some opsets
// read, optional outputs left out), its bytes are protobuf's canonical serialisation of
// themselves, and at opset 17 import then export gives them back.
TEST(GeneratedModels, ExportedBytesAreCanonicalAndImportBack) {
  int checked = 0;
  for (const char* generator : {"isra", "graph", "randoop"})
    for (int opset : {7, 9, 13, 17, 21}) {
      GenConfig c = defaultConfig();
      c.generator = generator;
      c.opset = opset;
      validateConfig(c);
      const std::unique_ptr<Generator> made = makeGenerator(c);
      for (uint64_t index = 0; index < 12; ++index) {
        const GeneratedCase k = generateCase(*made, 4242, index);
        const std::string bytes = exportModelBytes(k.graph, opset);
        onnx::ModelProto parsed;
        ASSERT_TRUE(parsed.ParseFromString(bytes));
        ASSERT_EQ(serializeModel(parsed), bytes) << generator << " opset " << opset << " case " << index;
        // What the bytes say: the graph back, written again the same (at the canonical opset:
        // elsewhere import may spell omitted operands differently, e.g. Pad's at opset 21).
        if (opset == kCanonicalOpset) {
          EXPECT_EQ(exportModelBytes(importModel(parsed), opset), bytes) << generator << " case " << index;
        }
        ++checked;
      }
    }
  EXPECT_EQ(checked, 180);
}

// The baselines use shape inference as their checker: whatever they keep must verify and
// pass ONNX's checker too (a weight's contents are part of validity, e.g. Gather indices).
TEST(GeneratedModels, BaselinesKeepOnlyValidModels) {
  for (const std::string generator : {"randoop", "declgen"}) {
    GenConfig c = defaultConfig();
    c.generator = generator;
    c.minOps = 1;
    c.maxOps = generator == "randoop" ? 30 : 10;
    validateConfig(c);
    const int n = scaled(3000);
    int bad = 0;
    for (int i = 0; i < n; ++i) {
      GeneratedCase k = generateCase(c, static_cast<uint64_t>(i));
      auto problem = verifyGraph(k.graph);
      if (!problem) problem = checkModel(exportModel(k.graph), &k.graph);
      if (problem && bad++ < 3) ADD_FAILURE() << generator << " case " << i << ": " << *problem;
    }
    EXPECT_EQ(bad, 0) << generator;
  }
}

}  // namespace
}  // namespace nnfuzz
