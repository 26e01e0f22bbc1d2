// schema_probe_test.cpp - candidate calls from libonnx's OpSchema registry.
#include <gtest/gtest.h>

#include <algorithm>

#include "infer/partial_op.h"
#include "infer/schema_probe.h"

namespace nnfuzz::infer {
namespace {

TEST(SchemaProbe, ListsTheDefaultDomainAtAnOpset) {
  auto ops = defaultDomainOperators(17);
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  EXPECT_TRUE(std::binary_search(ops.begin(), ops.end(), "Relu"));
  EXPECT_TRUE(std::binary_search(ops.begin(), ops.end(), "LayerNormalization"));  // new in 17
  EXPECT_FALSE(std::binary_search(ops.begin(), ops.end(), "Upsample"));           // deprecated
  EXPECT_GT(ops.size(), 150u);
  EXPECT_LT(defaultDomainOperators(7).size(), ops.size());
}

TEST(SchemaProbe, MakesDistinctUntypedCallsOfTheSchema) {
  std::string why;
  auto calls = probeRecords("MaxPool", 17, 12, 7, &why);
  ASSERT_EQ(calls.size(), 12u) << why;
  std::vector<std::string> keys;
  for (const Record& r : calls) {
    EXPECT_EQ(r.op, "MaxPool");
    EXPECT_EQ(r.opset, 12);  // the schema's since_version
    ASSERT_EQ(r.inputs.size(), 1u);
    EXPECT_TRUE(r.inputs[0].present());
    ASSERT_GE(r.outputs.size(), 1u);
    EXPECT_FALSE(r.outputs[0].present());  // typed by the acceptor
    ASSERT_TRUE(r.attrs.count("kernel_shape"));  // required
    std::string key = inputSignature(r) + " t" + std::to_string(r.inputs[0].elemType);
    for (int64_t v : symbolValues(r)) key += " " + std::to_string(v);
    keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(std::unique(keys.begin(), keys.end()), keys.end());
}

TEST(SchemaProbe, SaysWhyASchemaCannotBeProbed) {
  std::string why;
  EXPECT_TRUE(probeRecords("Einsum", 17, 4, 1, &why).empty());  // a required string attribute
  EXPECT_NE(why.find("equation"), std::string::npos);
  EXPECT_TRUE(probeRecords("SequenceAt", 17, 4, 1, &why).empty());
  EXPECT_NE(why.find("tensor"), std::string::npos);
  EXPECT_TRUE(probeRecords("NoSuchOp", 17, 4, 1, &why).empty());
}

TEST(SchemaProbe, IsReproducible) {
  std::string why;
  auto a = probeRecords("Concat", 17, 8, 3, &why), b = probeRecords("Concat", 17, 8, 3, &why);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].inputs, b[i].inputs);
    EXPECT_EQ(a[i].attrs, b[i].attrs);
  }
}

}  // namespace
}  // namespace nnfuzz::infer
