// folder_scan_test.cpp - a folder with a corrupt file, an empty model and an unknown
// operator is reported file by file and never stops the scan.
#include <gtest/gtest.h>

#include <fstream>

#include "onnx/export.h"
#include "search/coverage_report.h"
#include "search/folder_scan.h"
#include "search/test_util.h"
#include "support/error.h"

namespace nnfuzz::search {
namespace {

namespace fs = std::filesystem;
using testing::OnnxBuilder;

class FolderScan : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("nnfuzz_scan_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "sub");
    fs::create_directories(dir_ / "folder.onnx");  // a folder, not a model
    write("corrupt.onnx", "this is not a protobuf \xff\xff\xff\xff");
    write("zero.onnx", "");  // parses, but has no graph
    write("notes.txt", "not a model");

    OnnxBuilder empty;
    empty.input("x", {2});
    save("empty.onnx", empty.model());

    OnnxBuilder unknown;
    unknown.input("x", {2, 3});
    unknown.node("Relu", {"x"}, {"r"});
    unknown.node("FancyOp", {"r"}, {"y"}).set_domain("com.example");
    unknown.node("FancyOp", {"y"}, {"z"}).set_domain("com.example");
    unknown.output("z", {2, 3});
    save("unknown.onnx", unknown.model());

    Graph g;
    const TensorType t{DType::Float32, {4}};
    g.addOutput(g.node(g.addNode("Abs", {g.addInput(t)}, {}, {t})).outputs[0]);
    save("sub/ok.onnx", exportModel(g));
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& bytes) { std::ofstream(dir_ / name, std::ios::binary) << bytes; }
  void save(const std::string& name, const onnx::ModelProto& m) { saveModelFile(dir_ / name, m); }

  fs::path dir_;
};

TEST_F(FolderScan, ReportsEveryBadFileAndCountsTheRest) {
  CoverageTracker tracker(defaultCorpus());
  const ScanResult r = scanFolder(dir_, tracker);
  EXPECT_EQ(r.files, 5);  // corrupt, empty, sub/ok, unknown, zero
  EXPECT_EQ(r.counted, 3);
  EXPECT_EQ(r.skipped, 2);
  EXPECT_EQ(r.emptyModels, 1);
  EXPECT_EQ(r.withUnknownOps, 1);
  EXPECT_EQ(tracker.models(), 3);
  ASSERT_EQ(r.notes.size(), 4u);  // path order; sub/ok.onnx has nothing to say
  EXPECT_EQ(r.notes[0].path, "corrupt.onnx");
  EXPECT_NE(r.notes[0].problem.find("not a valid ONNX model"), std::string::npos) << r.notes[0].problem;
  EXPECT_EQ(r.notes[1].path, "empty.onnx");
  EXPECT_TRUE(r.notes[1].problem.empty());
  EXPECT_TRUE(r.notes[1].emptyModel);
  EXPECT_EQ(r.notes[2].path, "unknown.onnx");
  EXPECT_EQ(r.notes[2].unknownOps, (std::vector<std::string>{"FancyOp x2"}));
  EXPECT_EQ(r.notes[3].path, "zero.onnx");
  EXPECT_NE(r.notes[3].problem.find("no graph"), std::string::npos) << r.notes[3].problem;
  EXPECT_EQ(tracker.unknownOps().at("FancyOp"), 2);
  // The known operators of the file with unknown ones still count.
  const LuoReport luo = tracker.luo()->report();
  for (const auto& row : luo.ops) {
    if (row.op == "Relu") {
      EXPECT_EQ(row.nodes, 1);
      EXPECT_EQ(row.outDegrees, (std::vector<int>{1}));  // FancyOp is a data flow out of Relu
      EXPECT_EQ(row.successors, 0);                      // but not a corpus successor
    }
    if (row.op == "Abs") {
      EXPECT_EQ(row.nodes, 1);
    }
  }
  const auto json = scanToJson(r);
  EXPECT_EQ(json["notes"].size(), 4u);
  EXPECT_EQ(json["notes"][0]["path"], "corrupt.onnx");
}

TEST_F(FolderScan, ThreadsDoNotChangeTheResult) {
  CoverageTracker one(defaultCorpus()), two(defaultCorpus());
  scanFolder(dir_, one, 1);
  scanFolder(dir_, two, 2);
  EXPECT_EQ(coverageToJson(one), coverageToJson(two));
}

TEST_F(FolderScan, OneFileOrAMissingFolder) {
  CoverageTracker tracker(defaultCorpus());
  const ScanResult r = scanFolder(dir_ / "unknown.onnx", tracker);
  EXPECT_EQ(r.files, 1);
  EXPECT_EQ(r.counted, 1);
  EXPECT_THROW(scanFolder(dir_ / "missing", tracker), Error);
}

}  // namespace
}  // namespace nnfuzz::search
