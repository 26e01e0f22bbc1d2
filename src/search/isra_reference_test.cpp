// isra_reference_test.cpp - our Isra metrics against the numbers Isra's own script
// (criterion.py @9a70269, run here with Python onnx 1.22) printed for the same test set:
// the 932 ONNX backend node-test models Debian ships, under a fixed 36-operator corpus.
// Those models are another tool's: unknown operators, empty operands, multi-output nodes,
// graph outputs read by other nodes. Skipped when the test data is not installed.
#include <gtest/gtest.h>

#include <filesystem>

#include "search/folder_scan.h"

namespace nnfuzz::search {
namespace {

BlockCorpus fixedCorpus() {
  const std::vector<std::pair<const char*, std::vector<int>>> ops = {
      {"Abs", {1}},          {"Add", {2}},         {"Sub", {2}},
      {"Mul", {2}},          {"Div", {2}},         {"Relu", {1}},
      {"Sigmoid", {1}},      {"Identity", {1}},    {"Cast", {1}},
      {"Conv", {2, 3}},      {"MatMul", {2}},      {"Gemm", {2, 3}},
      {"BatchNormalization", {5}},                 {"MaxPool", {1}},
      {"AveragePool", {1}},  {"Softmax", {1}},     {"Concat", {1, 2, 3, 4, 5}},
      {"Split", {1, 2}},     {"Slice", {3, 4, 5}}, {"Pad", {2, 3}},
      {"Reshape", {2}},      {"Transpose", {1}},   {"Unsqueeze", {2}},
      {"Squeeze", {1, 2}},   {"Flatten", {1}},     {"Expand", {2}},
      {"Tile", {2}},         {"Gather", {2}},      {"Where", {3}},
      {"Clip", {1, 2, 3}},   {"Resize", {1, 2, 3, 4}}, {"Sum", {1, 2, 3, 4, 5}},
      {"Max", {1, 2, 3, 4, 5}}, {"ReduceMean", {1}}, {"ReduceSum", {1, 2}},
      {"Dropout", {1, 2, 3}}};
  std::vector<Block> blocks;
  for (const auto& [name, in] : ops) blocks.push_back({name, in, {0, 1, 2, 3, 4, 5}, {}, {}});
  return BlockCorpus(std::move(blocks));
}

TEST(IsraReference, NodeTestsMatchIsrasScript) {
  const std::filesystem::path dir = std::filesystem::path(NNFUZZ_TESTDATA_DIR) / "node";
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no ONNX test data at " << dir;
  TrackerOptions o;
  o.metrics = MetricSets::Isra;
  CoverageTracker t(fixedCorpus(), o);
  const ScanResult scan = scanFolder(dir, t, 2);
  if (scan.counted != 932) GTEST_SKIP() << "expected libonnx-testdata 1.12's 932 node tests, found " << scan.counted;
  const IsraReport r = t.isra()->report();
  constexpr double kEps = 1e-12;
  EXPECT_NEAR(r.otc, 1.0, kEps);
  EXPECT_NEAR(r.idc, 0.9208333333333335, kEps);
  EXPECT_NEAR(r.odc, 1.3888888888888888, kEps);
  EXPECT_NEAR(r.sec, 0.042438271604938266, kEps);
  EXPECT_NEAR(r.dec, 0.0011359739368998628, kEps);
  EXPECT_NEAR(r.sac, 12.63888888888889, kEps);
  EXPECT_NEAR(r.noo, 1.2317596566523605, kEps);
  EXPECT_NEAR(r.notypes, 0.8047210300429185, kEps);
  EXPECT_NEAR(r.nop, 0.7060085836909872, kEps);
  EXPECT_NEAR(r.ntr, 0.5879828326180258, kEps);
  EXPECT_NEAR(r.nsa, 2.046137339055794, kEps);
}

}  // namespace
}  // namespace nnfuzz::search
