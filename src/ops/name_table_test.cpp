// name_table_test.cpp - the name-keyed lookups of the registry, the schema history and the
// opset conversions (support/name_table.h): every operator name finds its own entry, names
// that share long prefixes or suffixes stay apart, and an unknown name finds nothing.
#include <gtest/gtest.h>

#include <string>

#include "ops/registry.h"
#include "ops/schema_history.h"
#include "support/name_table.h"

namespace nnfuzz {
namespace {

TEST(NameTable, EveryOperatorFindsItsOwnSpec) {
  ASSERT_GT(allOps().size(), 150u);
  size_t withHistory = 0;
  for (const OpSpec* spec : allOps()) {
    EXPECT_EQ(findOp(spec->name), spec) << spec->name;
    EXPECT_EQ(hasSchemaHistory(spec->name), !schemaVersions(spec->name).empty()) << spec->name;
    for (const SchemaVersion* v : schemaVersions(spec->name)) EXPECT_EQ(v->op, spec->name);
    withHistory += hasSchemaHistory(spec->name) ? 1 : 0;
  }
  EXPECT_GT(withHistory, 150u);
  for (std::string_view unknown : {"", "Reduce", "ReduceSumX", "reducesum", "Conv ", "ConvTransposeX", "QLinearConvX"})
    EXPECT_EQ(findOp(unknown), nullptr) << unknown;
}

TEST(NameTable, SharedEndsAndDuplicates) {
  // Names alike in their first and last eight bytes, differing only in the middle.
  std::vector<std::string> names;
  for (char c = 'a'; c <= 'z'; ++c) names.push_back("Prefix__" + std::string(1, c) + "__Suffix");
  names.push_back("A");
  names.push_back("AB");
  std::vector<std::pair<std::string_view, int>> entries;
  for (size_t i = 0; i < names.size(); ++i) entries.emplace_back(names[i], static_cast<int>(i));
  entries.emplace_back(names[0], 99);  // a second entry of a name: the first wins
  const NameTable<int> table(entries);
  for (size_t i = 0; i < names.size(); ++i) {
    const int* found = table.find(names[i]);
    ASSERT_NE(found, nullptr) << names[i];
    EXPECT_EQ(*found, static_cast<int>(i));
  }
  EXPECT_EQ(table.find("Prefix__A__Suffix"), nullptr);
  EXPECT_EQ(table.find("ABC"), nullptr);
  EXPECT_EQ(table.find(""), nullptr);
}

}  // namespace
}  // namespace nnfuzz
