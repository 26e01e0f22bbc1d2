// committed_rules_test.cpp - the rule files committed under rules/ are what `nnfuzz infer`
// builds. Rebuilding every operator takes minutes, so this rebuilds a fixed subset from
// Debian's node tests with the CLI's default options and compares the JSON exactly. The
// subset's rules finish within every deterministic limit (candidates, Z3's rlimit), so
// the test runs without the wall-clock budget, which only cuts slower partial operators
// (marked cut_by_clock in their files) and would make a slow ASan run differ.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "infer/infer.h"
#include "infer/record.h"
#include "infer/rule_file.h"

namespace nnfuzz::infer {
namespace {

namespace fs = std::filesystem;

TEST(CommittedRules, EqualWhatInferBuilds) {
  const fs::path node = fs::path(NNFUZZ_TESTDATA_DIR) / "node";
  if (!fs::is_directory(node)) GTEST_SKIP() << node << " is missing (Debian's libonnx-testdata)";
  // Six common operators, and NegativeLogLikelihoodLoss: the full run used to stall on it.
  const std::vector<std::string> ops = {"Relu",    "Add",     "Transpose", "Concat",
                                        "Softmax", "Flatten", "NegativeLogLikelihoodLoss"};
  std::string labelledBy;
  RecordSet set = collectNodeTests({node.string()}, ops, &labelledBy);
  ASSERT_FALSE(set.records.empty());
  InferOptions options;  // the CLI's defaults, but the clock
  options.synth.seconds = 0;
  options.labelledBy = labelledBy;
  auto built = inferRules(set.records, options);
  ASSERT_EQ(built.size(), ops.size());
  for (const auto& rules : built) {
    fs::path path = fs::path(NNFUZZ_SOURCE_DIR) / "rules" / ruleFileName(rules.op, rules.domain);
    std::ifstream in(path);
    ASSERT_TRUE(in) << path << " is not committed";
    auto committed = nlohmann::json::parse(in);
    EXPECT_EQ(committed, toJson(rules)) << path << " differs from what nnfuzz infer builds; rerun it";
  }
}

// The operators outside the subset are as reproducible only if no committed rule depends
// on the clock.
TEST(CommittedRules, NoneWasCutByTheClock) {
  const auto all = readRuleFiles((fs::path(NNFUZZ_SOURCE_DIR) / "rules").string());
  ASSERT_GT(all.size(), 100u);
  for (const auto& rules : all)
    for (const auto& p : rules.partials) EXPECT_FALSE(p.rule.cutByClock) << rules.op << ": " << p.signature;
}

}  // namespace
}  // namespace nnfuzz::infer
