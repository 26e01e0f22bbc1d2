// case_folder_test.cpp - writeCase is atomic, readCase reads back, checkCase catches tampering.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "interp/interpreter.h"
#include "onnx/case_folder.h"
#include "onnx/onnx-data.pb.h"
#include "onnx/tensor_proto.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

namespace fs = std::filesystem;

const char* const kText = R"(graph {
  %0 = input f32[2,3]
  %1 = input i32[4]
  %2 = weight f32[2,3] [0.5, -1.25, 3.0, 0.0, 2.0, -7.0]
  %3 = Sin(%0) : f32[2,3]
  %4 = Abs(%1) : i32[4]
  %5 = Neg(%2) : f32[2,3]
  %6 = Exp(%3) : f32[2,3]
  return %6, %4, %5
}
)";

class CaseFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("nnfuzz_case_" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root);
    graph = parseGraph(kText);
    inputs = {Tensor({DType::Float32, {2, 3}}, {0.1, -0.2, 0.3, 1.5, -2.5, 3.0}),
              Tensor({DType::Int32, {4}}, {-3, 0, 7, -100})};
    for (double& x : inputs[0].data) x = roundTo(DType::Float32, x);  // tensors hold dtype-exact values
    expected = runGraph(graph, inputs);
  }
  void TearDown() override { fs::remove_all(root); }
  // Names in `root`, hidden ones included.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(root)) names.push_back(e.path().filename().string());
    return names;
  }

  fs::path root;
  Graph graph;
  std::vector<Tensor> inputs, expected;
};

// Every file under `dir`, relative, sorted.
std::vector<std::string> filesUnder(const fs::path& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(fs::relative(e.path(), dir).string());
  std::sort(files.begin(), files.end());
  return files;
}

TEST_F(CaseFolder, PackedLayoutIsFourFilesAndReadsAsTheOnnxOne) {
  writeCase(root / "packed", graph, inputs, expected, {{"seed", 7}});
  writeCase(root / "onnx", graph, inputs, expected, {{"seed", 7}}, kDefaultOpset, CaseLayout::Onnx);
  EXPECT_EQ(filesUnder(root / "packed"), (std::vector<std::string>{"meta.json", "model.onnx", "test_data_set_0/inputs.pb",
                                                                    "test_data_set_0/outputs.pb"}));
  EXPECT_EQ(filesUnder(root / "onnx").size(), 2u + 2u + 3u);
  const CaseData p = readCase(root / "packed"), o = readCase(root / "onnx");
  EXPECT_EQ(p.inputs, o.inputs);
  EXPECT_EQ(p.expected, o.expected);
  EXPECT_EQ(p.inputNames, o.inputNames);
  EXPECT_EQ(p.outputNames, o.outputNames);
  const CaseCheck check = checkCase(root / "packed");
  EXPECT_TRUE(check.ok && check.rerun) << check.problem << check.note;
  EXPECT_EQ(check.inputs, 2);
  EXPECT_EQ(check.outputs, 3);
  EXPECT_EQ(caseLayoutNamed("onnx"), CaseLayout::Onnx);
  EXPECT_THROW(caseLayoutNamed("npz"), Error);
}

TEST_F(CaseFolder, WorkersGetOnnxsLayoutOfAPackedCase) {
  writeCase(root / "packed", graph, inputs, expected, {{"seed", 7}});
  writeCase(root / "onnx", graph, inputs, expected, {}, kDefaultOpset, CaseLayout::Onnx);
  EXPECT_EQ(onnxLayoutCase(root / "onnx", root / "copy"), root / "onnx");
  EXPECT_FALSE(fs::exists(root / "copy"));
  const fs::path copy = onnxLayoutCase(root / "packed", root / "copy");
  EXPECT_EQ(copy, root / "copy");
  EXPECT_TRUE(fs::is_symlink(copy / "model.onnx"));
  EXPECT_TRUE(fs::is_symlink(copy / "meta.json"));
  EXPECT_TRUE(fs::exists(copy / "test_data_set_0" / "input_1.pb"));
  EXPECT_TRUE(fs::exists(copy / "test_data_set_0" / "output_2.pb"));
  EXPECT_FALSE(fs::exists(copy / "test_data_set_0" / "inputs.pb"));
  const CaseData c = readCase(copy);
  EXPECT_EQ(c.inputs, inputs);
  EXPECT_EQ(c.expected, expected);
  EXPECT_EQ(onnxLayoutCase(root / "packed", root / "copy"), copy);  // replaced, not refused
}

TEST_F(CaseFolder, WriteReadCheck) {
  const fs::path dir = root / "case_1";
  writeCase(dir, graph, inputs, expected, {{"seed", 7}, {"generator", "nnfuzz"}}, kDefaultOpset, CaseLayout::Onnx);
  EXPECT_EQ(entries(), std::vector<std::string>{"case_1"});  // no temp folder left
  EXPECT_TRUE(fs::exists(dir / "model.onnx"));
  EXPECT_TRUE(fs::exists(dir / "test_data_set_0" / "input_1.pb"));
  EXPECT_TRUE(fs::exists(dir / "test_data_set_0" / "output_2.pb"));

  const CaseData c = readCase(dir);
  ASSERT_TRUE(c.graph.has_value()) << c.importProblem;
  EXPECT_EQ(printGraph(*c.graph), kText);
  EXPECT_EQ(c.inputs, inputs);
  EXPECT_EQ(c.expected, expected);
  EXPECT_EQ(c.inputNames, (std::vector<std::string>{"input_0", "input_1"}));
  EXPECT_EQ(c.outputNames, (std::vector<std::string>{"output_0", "output_1", "output_2"}));
  ASSERT_TRUE(c.meta.has_value());
  EXPECT_EQ((*c.meta)["seed"], 7);

  const CaseCheck check = checkCase(dir);
  EXPECT_TRUE(check.ok) << check.problem;
  EXPECT_TRUE(check.rerun) << check.note;
  EXPECT_EQ(check.dataSets, 1);
  EXPECT_EQ(check.inputs, 2);
  EXPECT_EQ(check.outputs, 3);

  EXPECT_THROW(writeCase(dir, graph, inputs, expected, {}), Error);  // exists
  writeCase(root / "sub" / "case_2" / "", graph, inputs, expected, {});  // trailing slash, new parent
  EXPECT_TRUE(checkCase(root / "sub" / "case_2").ok);
  EXPECT_EQ(fs::directory_iterator(root / "sub")->path().filename(), "case_2");
}

TEST_F(CaseFolder, TamperedPackedOutputFails) {
  const fs::path dir = root / "case_p";
  writeCase(dir, graph, inputs, expected, nlohmann::json::object());
  const fs::path outputs = dir / "test_data_set_0" / "outputs.pb";
  std::string bytes = readFileBytes(outputs);
  onnx::SequenceProto seq;
  ASSERT_TRUE(seq.ParseFromString(bytes));
  Tensor wrong = expected[1];
  wrong.data[0] += 1;
  *seq.mutable_tensor_values(1) = toTensorProto(wrong, "output_1");
  writeFileBytes(outputs, seq.SerializeAsString());
  const CaseCheck check = checkCase(dir);
  EXPECT_FALSE(check.ok);
  EXPECT_NE(check.problem.find("outputs.pb[1]"), std::string::npos) << check.problem;
  writeFileBytes(outputs, "not a sequence");
  EXPECT_FALSE(checkCase(dir).ok);
  EXPECT_THROW(readCase(dir), Error);
}

TEST_F(CaseFolder, TamperedOutputFails) {
  const fs::path dir = root / "case_t";
  writeCase(dir, graph, inputs, expected, nlohmann::json::object(), kDefaultOpset, CaseLayout::Onnx);
  Tensor wrong = expected[0];
  wrong.data[4] += 0.01;
  writeTensorFile(dir / "test_data_set_0" / "output_0.pb", wrong, "output_0");
  CaseCheck check = checkCase(dir);
  EXPECT_FALSE(check.ok);
  EXPECT_NE(check.problem.find("output_0.pb"), std::string::npos) << check.problem;
  EXPECT_EQ(check.problem.find('\n'), std::string::npos) << check.problem;

  writeTensorFile(dir / "test_data_set_0" / "output_0.pb", expected[0], "output_0");
  EXPECT_TRUE(checkCase(dir).ok);
  writeTensorFile(dir / "test_data_set_0" / "output_0.pb", Tensor({DType::Float64, {2, 3}}), "output_0");
  EXPECT_FALSE(checkCase(dir).ok);  // wrong dtype
  writeTensorFile(dir / "test_data_set_0" / "output_0.pb", expected[0], "renamed");
  EXPECT_FALSE(checkCase(dir).ok);  // wrong name
  writeTensorFile(dir / "test_data_set_0" / "output_0.pb", expected[0], "output_0");
  fs::remove(dir / "test_data_set_0" / "input_1.pb");
  EXPECT_FALSE(checkCase(dir).ok);  // missing input
  EXPECT_FALSE(checkCase(root / "nowhere").ok);
}

TEST_F(CaseFolder, UnwritableDestinationThrowsAndLeavesNothing) {
  writeFileBytes(root / "a_file", "x");
  try {
    writeCase(root / "a_file" / "case", graph, inputs, expected, {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  EXPECT_EQ(entries(), std::vector<std::string>{"a_file"});
  // Tensors that do not fit the graph: an error before anything is written.
  EXPECT_THROW(writeCase(root / "case", graph, {inputs[0]}, expected, {}), Error);
  EXPECT_THROW(writeCase(root / "case", graph, {inputs[1], inputs[0]}, expected, {}), Error);
  EXPECT_EQ(entries(), std::vector<std::string>{"a_file"});
}

TEST_F(CaseFolder, ChecksOtherToolsCases) {
  const fs::path data = fs::path(NNFUZZ_TESTDATA_DIR) / "node";
  if (!fs::exists(data / "test_abs")) GTEST_SKIP() << "no ONNX test data at " << data;
  const CaseCheck abs = checkCase(data / "test_abs");
  EXPECT_TRUE(abs.ok) << abs.problem;
  EXPECT_TRUE(abs.rerun) << abs.note;
  const CaseData c = readCase(data / "test_abs");
  EXPECT_FALSE(c.meta.has_value());
  const CaseCheck conv = checkCase(data / "test_basic_conv_with_padding");  // Conv may not be ours yet
  EXPECT_TRUE(conv.ok) << conv.problem;
  const CaseCheck sin6 = checkCase(data / "test_sin");  // opset 7 selects Sin-7: rerun
  EXPECT_TRUE(sin6.ok && sin6.rerun) << sin6.problem << sin6.note;
}

}  // namespace
}  // namespace nnfuzz
