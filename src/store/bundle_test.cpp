// bundle_test.cpp - bug bundles: their contents, and repro.py run for real against ONNX Runtime
// (present while the recorded bug is there, absent otherwise), plus the Python normaliser's
// agreement with the C++ one.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>

#include "interp/interpreter.h"
#include "onnx/tensor_proto.h"
#include "store/bundle.h"
#include "store/repro.h"
#include "triage/normalize.h"

namespace nnfuzz {
namespace {

namespace fs = std::filesystem;

struct Command {
  int exitCode = -1;
  std::string output;
};

// Runs a shell command, stdout and stderr together.
Command run(const std::string& command) {
  Command c;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return c;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) c.output.append(buf, n);
  const int status = pclose(pipe);
  c.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return c;
}

bool pythonHas(const std::string& module) { return run("python3 -c 'import " + module + "'").exitCode == 0; }

const char* const kModel = R"(graph {
  %0 = input f32[2,3]
  %1 = input f32[2,3]
  %2 = Add(%0, %1) : f32[2,3]
  %3 = Relu(%2) : f32[2,3]
  %4 = Sigmoid(%0) : f32[2,3]
  return %3, %4
}
)";

class Bundle : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("nnfuzz_bundle_" + std::to_string(::getpid()));
    fs::remove_all(root);
    graph = parseGraph(kModel);
    inputs = {Tensor({DType::Float32, {2, 3}}, {0.5, -1.0, 2.0, 0.25, -0.75, 1.5}),
              Tensor({DType::Float32, {2, 3}}, {-0.25, 0.5, 1.0, -2.0, 0.125, 0.5})};
    reference = runGraph(graph, inputs);
  }
  void TearDown() override { fs::remove_all(root); }

  // A DCF of `backend`'s `opt` (ONNX Runtime's unless named) against `expected` (what the
  // bundle will call the reference).
  fs::path writeDcf(const std::vector<Tensor>& expected, const std::string& tag,
                    const std::string& backend = "onnxruntime") {
    const Oracle oracle;
    RunOutcome o;
    o.backend = backend;
    o.mode = "opt";
    o.version = "1.31.1";
    o.status = RunStatus::Ok;
    o.outputs = reference;
    o.outputs[1].data[4] = roundTo(DType::Float32, o.outputs[1].data[4] + 0.5);  // a wrong SUT's answer
    BundleFinding f;
    f.judgement = oracle.judge(o, expected);
    auto ops = opTypesOf(graph);
    if (!tag.empty()) ops.push_back(tag);  // another signature, so another bundle
    f.signature = makeSignature(f.judgement, o, ops);
    f.outcome = o;
    f.versions = {{backend, backend == "onnxruntime" ? "1.31.1" : "3.13.0"}};
    f.env = {{"OMP_NUM_THREADS", "1"}};
    return writeBundle(root, bundleCase(graph, inputs, expected, {{"seed", 7}, {"test_index", 42}}), f);
  }

  fs::path root;
  Graph graph;
  std::vector<Tensor> inputs, reference;
};

TEST_F(Bundle, ContentsAndAtomicity) {
  const fs::path dir = writeDcf(reference, "");
  EXPECT_EQ(dir.parent_path(), root);
  EXPECT_EQ(dir.filename().string().substr(0, 20), "onnxruntime-opt-dcf-");
  for (const char* file : {"model.onnx", "test_data_set_0/input_1.pb", "test_data_set_0/output_1.pb",
                           "actual/output_0.pb", "actual/output_1.pb", "error.txt", "meta.json", "model.ir",
                           "README.md", "repro.py"})
    EXPECT_TRUE(fs::exists(dir / file)) << file;
  // Only the bundle is left in root: no temporary folder.
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(root)) ++entries;
  EXPECT_EQ(entries, 1u);

  // The case replays: readCase sees the model, inputs and reference outputs.
  const CaseData c = readCase(dir);
  ASSERT_TRUE(c.graph.has_value()) << c.importProblem;
  EXPECT_EQ(c.inputs, inputs);
  EXPECT_EQ(c.expected, reference);
  EXPECT_EQ(readTensorFile(dir / "actual" / "output_1.pb").data[4], roundTo(DType::Float32, reference[1].data[4] + 0.5));
  EXPECT_EQ(printGraph(parseGraph(readFileBytes(dir / "model.ir"))), printGraph(graph));

  const auto meta = nlohmann::json::parse(readFileBytes(dir / "meta.json"));
  EXPECT_EQ(meta["class"], "dcf");
  EXPECT_EQ(meta["seed"], 7);
  EXPECT_EQ(meta["versions"]["onnxruntime"], "1.31.1");
  EXPECT_EQ(meta["policy"]["policy"], "allclose");
  EXPECT_EQ(meta["signature"]["outputs"], nlohmann::json::array({1}));
  EXPECT_EQ(meta["hash"].get<std::string>().substr(0, 8), dir.filename().string().substr(20));
  EXPECT_EQ(meta["diffs"][0]["kind"], "values");
  const std::string readme = readFileBytes(dir / "README.md");
  EXPECT_NE(readme.find("python3 repro.py"), std::string::npos);
  EXPECT_NE(readme.find("Add, Relu, Sigmoid"), std::string::npos);
  EXPECT_NE(readFileBytes(dir / "error.txt").find("differs: output 1:"), std::string::npos);

  // A writer killed mid-bundle leaves a hidden partial folder; resuming clears it away.
  fs::create_directories(root / ".onnxruntime-opt-dcf-12345678.partial-99-0" / "actual");
  EXPECT_EQ(removePartialBundles(root), 1u);
  EXPECT_TRUE(fs::exists(dir));
  EXPECT_EQ(removePartialBundles(root / "nowhere"), 0u);

  // Writing the same bug again keeps the first example.
  const auto before = fs::last_write_time(dir / "meta.json");
  EXPECT_EQ(writeDcf(reference, ""), dir);
  EXPECT_EQ(fs::last_write_time(dir / "meta.json"), before);
}

TEST_F(Bundle, EveryBackendsReproCompiles) {
  if (run("python3 --version").exitCode != 0) GTEST_SKIP() << "python3 is not available";
  for (const std::string backend :
       {"onnxruntime", "openvino", "tvm", "opencv", "mnn", "onnxoptimizer", "onnxsim", "pytorch", "ncnn", "iree",
        "litert", "my-npu"}) {
    const nlohmann::json bug = {{"bundle", backend + "-opt-if-00000000"},
                                {"reason", "run failed: \"quoted\" \\ text '''"},
                                {"backend", backend},
                                {"mode", "opt"},
                                {"against", "reference"},
                                {"class", "if"},
                                {"phase", "run"},
                                {"symptom", "crash SIGSEGV"},
                                {"message", "a \"\"\" b\\"},
                                {"policy", Policy{}.toJson()},
                                {"env", nlohmann::json::object()},
                                {"timeout_seconds", 10},
                                {"memory_limit_mb", 0}};
    fs::create_directories(root);
    const fs::path script = root / (backend + "_repro.py");
    writeFileBytes(script, renderRepro(bug));
    const Command c = run("python3 -m py_compile " + script.string());
    EXPECT_EQ(c.exitCode, 0) << backend << ": " << c.output;
    EXPECT_EQ(hasReproTemplate(backend), backend != "my-npu");
  }
}

TEST_F(Bundle, OnnxRuntimeReproDetectsWrongOutputs) {
  if (!pythonHas("onnxruntime") || !pythonHas("onnx")) GTEST_SKIP() << "python3 with onnxruntime and onnx needed";
  // Against the true reference, ONNX Runtime is right: the recorded "bug" is absent.
  const fs::path good = writeDcf(reference, "");
  Command c = run("python3 " + (good / "repro.py").string());
  EXPECT_EQ(c.exitCode, 0) << c.output;
  EXPECT_NE(c.output.find("bug absent"), std::string::npos) << c.output;
  // Against a tampered reference, it disagrees: present, saying which output and where.
  std::vector<Tensor> tampered = reference;
  tampered[1].data[2] += 0.25;
  const fs::path bad = writeDcf(tampered, "tampered");
  c = run("python3 " + (bad / "repro.py").string());
  EXPECT_EQ(c.exitCode, 1) << c.output;
  EXPECT_NE(c.output.find("output 1: 1 of 6 values differ, first at [0,2]: got 0.880797088, expected 1.13079715"), std::string::npos) << c.output;
  EXPECT_NE(c.output.find("BUG PRESENT"), std::string::npos) << c.output;
}

// The IREE template for real: import, compile (O2, host CPU) and run; right against the true
// reference, wrong against a tampered one.
TEST_F(Bundle, IreeReproDetectsWrongOutputs) {
  if (!pythonHas("iree.runtime") || !pythonHas("iree.compiler")) GTEST_SKIP() << "python3 with IREE needed";
  const fs::path good = writeDcf(reference, "", "iree");
  Command c = run("python3 " + (good / "repro.py").string());
  EXPECT_EQ(c.exitCode, 0) << c.output;
  EXPECT_NE(c.output.find("bug absent"), std::string::npos) << c.output;
  std::vector<Tensor> tampered = reference;
  tampered[0].data[3] += 0.5;
  c = run("python3 " + (writeDcf(tampered, "tampered", "iree") / "repro.py").string());
  EXPECT_EQ(c.exitCode, 1) << c.output;
  EXPECT_NE(c.output.find("output 0: 1 of 6 values differ, first at [1,0]"), std::string::npos) << c.output;
}

// An inference failure ONNX Runtime really has: Gather with an index out of range.
TEST_F(Bundle, OnnxRuntimeReproDetectsTheSameError) {
  if (!pythonHas("onnxruntime") || !pythonHas("onnx")) GTEST_SKIP() << "python3 with onnxruntime and onnx needed";
  const Graph gather = parseGraph(R"(graph {
  %0 = input f32[3]
  %1 = input i64[1]
  %2 = Gather(%0, %1) {axis=0} : f32[1]
  return %2
}
)");
  const std::vector<Tensor> data = {Tensor({DType::Float32, {3}}, {1, 2, 3}), Tensor({DType::Int64, {1}}, {7})};
  // The message ONNX Runtime gives for it here.
  fs::create_directories(root);
  const fs::path probe = root / "probe.py";
  writeFileBytes(probe,
                 "import numpy as np, onnxruntime as ort, onnx, sys\n"
                 "s = ort.InferenceSession(sys.argv[1], providers=['CPUExecutionProvider'])\n"
                 "try:\n s.run(None, {'input_0': np.array([1,2,3], np.float32), 'input_1': np.array([7])})\n"
                 "except Exception as e:\n print(type(e).__name__); print(str(e).split('\\n')[0])\n");
  saveModelFile(root / "gather.onnx", exportModel(gather));
  const Command probed = run("(python3 " + probe.string() + " " + (root / "gather.onnx").string() + " 2>/dev/null)");
  const size_t nl = probed.output.find('\n');
  ASSERT_NE(nl, std::string::npos) << probed.output;
  RunOutcome o;
  o.backend = "onnxruntime";
  o.mode = "opt";
  o.status = RunStatus::RunError;
  o.phase = "run";
  o.errorType = probed.output.substr(0, nl);
  o.message = probed.output.substr(nl + 1);
  const Oracle oracle;
  BundleFinding f;
  f.judgement = oracle.judge(o, {});
  ASSERT_EQ(f.judgement.verdict, Verdict::IF) << f.judgement.reason;
  f.signature = makeSignature(f.judgement, o, opTypesOf(gather));
  f.outcome = o;
  const std::vector<Tensor> expected = {Tensor({DType::Float32, {1}}, {0})};
  const fs::path dir = writeBundle(root / "bugs", bundleCase(gather, data, expected, {}), f);
  Command c = run("python3 " + (dir / "repro.py").string());
  EXPECT_EQ(c.exitCode, 1) << c.output;
  EXPECT_NE(c.output.find("indices element out of data bounds"), std::string::npos) << c.output;

  // Once the index is in range the failure is gone.
  writeTensorFile(dir / "test_data_set_0" / "input_1.pb", Tensor({DType::Int64, {1}}, {1}), "input_1");
  c = run("python3 " + (dir / "repro.py").string());
  EXPECT_EQ(c.exitCode, 0) << c.output;
  // A different failure is not this bug: a negative, still out-of-range index gives the same
  // words (numbers are normalised away), a wrong dtype another message.
  writeTensorFile(dir / "test_data_set_0" / "input_1.pb", Tensor({DType::Int64, {1}}, {-9}), "input_1");
  EXPECT_EQ(run("python3 " + (dir / "repro.py").string()).exitCode, 1);
  writeTensorFile(dir / "test_data_set_0" / "input_1.pb", Tensor({DType::Int32, {1}}, {1}), "input_1");
  c = run("python3 " + (dir / "repro.py").string());
  EXPECT_EQ(c.exitCode, 2) << c.output;
}

// Crashes and hangs: the recorded symptom comes back when the SUT dies or hangs in the child
// (simulated by patching the generated script's prepare()), and is absent when it does not.
TEST_F(Bundle, OnnxRuntimeReproDetectsCrashesAndHangs) {
  if (!pythonHas("onnxruntime") || !pythonHas("onnx")) GTEST_SKIP() << "python3 with onnxruntime and onnx needed";
  const Oracle oracle;
  auto write = [&](RunStatus status, int signal, const std::string& body) {
    RunOutcome o;
    o.backend = "onnxruntime";
    o.mode = "noopt";
    o.status = status;
    o.phase = "prepare";
    o.signal = signal;
    BundleFinding f;
    f.judgement = oracle.judge(o, {});
    f.signature = makeSignature(f.judgement, o, opTypesOf(graph));
    f.outcome = o;
    f.prepareLimitSeconds = 3;
    const fs::path dir = writeBundle(root, bundleCase(graph, inputs, reference, {}), f);
    const Command clean = run("python3 " + (dir / "repro.py").string());
    std::string text = readFileBytes(dir / "repro.py");
    const std::string def = "def prepare(model_path, mode):\n";
    text.replace(text.find(def), def.size(), def + "    " + body + "\n");
    writeFileBytes(dir / "repro.py", text);
    return std::pair{clean, run("python3 " + (dir / "repro.py").string())};
  };
  auto [clean, crashed] = write(RunStatus::Crash, SIGSEGV, "os.kill(os.getpid(), 11)");
  EXPECT_EQ(clean.exitCode, 0) << clean.output;
  EXPECT_EQ(crashed.exitCode, 1) << crashed.output;
  EXPECT_NE(crashed.output.find("died by signal 11 during prepare"), std::string::npos) << crashed.output;
  auto [clean2, hung] = write(RunStatus::Timeout, 0, "import time; time.sleep(30)");
  EXPECT_EQ(clean2.exitCode, 0) << clean2.output;
  EXPECT_EQ(hung.exitCode, 1) << hung.output;
  EXPECT_NE(hung.output.find("timeout during prepare"), std::string::npos) << hung.output;
}

TEST_F(Bundle, PythonNormaliserAgreesWithCpp) {
  if (!pythonHas("numpy") || !pythonHas("onnx")) GTEST_SKIP() << "python3 with numpy and onnx needed";
  const fs::path dir = writeDcf(reference, "");
  const std::vector<std::string> messages = {
      "Attempting to broadcast an axis by a dimension other than 1. 3 by 4",
      "axis -1 out of range [-2, 1] got 0.5 and 1e-05 and 2.5E+10 shape 3x4x5, 64KiB",
      "SEGV on unknown address 0x000000000010 object at deadbeef0042 freed",
      "Load model from /tmp/nnfuzz/case_17/model.onnx failed at onnxruntime/core/a.cc:560 and/or",
      "Node (Conv_4) Op (Conv) output_3 input t17 lv2 gv12 weight_0 float32 int64 Conv2d",
      "caf\xc3\xa9 \xe2\x80\x94 done\t\ttabs",
      "Traceback (most recent call last):\n  File \"/x.py\", line 1, in f\n    f()\n    ^^^\n  0: tvm::Foo\n#1 0x7f in g\n"
      "one\ntwo\nthree\nfour\nInternalError: Check failed: (ndim == 4) is false",
      std::string(700, 'z') + " 12",
      "LLVM module verification failed: \nInvalid operand types for FCmp instruction\n  %6 = fcmp oeq i1 false, %5\n",
      "[ONNXRuntimeError] : 6 : FAIL shape [1,?,3] vs (2, 2) and 1..3, error code 13, a ? b, 3x4KiB, 4x5",
      "first\nInvalid operand\n  %1 = x\nInvalid operand\nlast",
      "a.cc:52 void f(T*, const X&) [with T = signed char; F = std::function<void(float*)>] was false",
      "void f(T*) [T = int] x; g() [with T = std::array<int, 2>[3]] y; shape [1, 2] and [axis = 3]; h() [with T = in",
      "FrontEnd API failed with OpConversionFailure:\n-- Conversion is failed for: DFT-17, LayerNormalization-17, Scan-17",
      "-- Conversion is failed for: Compress-17, If-17, , Loop-17, If-17",
      "-- Conversion is failed for: Compress-17, Mul-17",
      // Dynamo's wrappers (triage/unwrap.h), as torch 2.13 writes them.
      "AttributeError: 'tuple' object has no attribute 'shape'\n\nfrom user code:\n   File \"<eval_with_key>.1677\", "
      "line 9, in forward\n    mean_1 = self.Mean_1(x)\n\nSet TORCHDYNAMO_VERBOSE=1 for the internal stack trace",
      "RuntimeError when making fake tensor call\n  Explanation: Dynamo failed to run FX node with fake tensors: "
      "call_function <built-in function pad>(*(FakeTensor(..., size=(1, 2)), [0, -1], 'reflect'), **{}): got "
      "RuntimeError('Padding mode \"reflect\" doesn\\'t take in value argument')\n  Hint: Your code may result",
      "backend='inductor' raised:\nRuntimeError: index out of bounds: 0 <= tmp2 < 5L\n\nSet TORCHDYNAMO_VERBOSE=1 x",
      // ONNX Runtime's wrappers, nested, and at initialisation; names numbered inside a word.
      "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while running If node. Name:'If_21' "
      "Status Message: Non-zero status code returned while running ReduceSum node. Name:'If_21_then_branch/ReduceSum_3' "
      "Status Message: a.cc:484 count == 1 was false.",
      "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Exception during initialization: a.cc:484 count == 1 was false.",
      "Model references undeclared parameters: opset1::Parameter Loop_2_body/output_1 () -> (boolean[])",
      "QuantizeLinear_12Parameter axis 1 out of tensor range [0, 0]; Operation name: Squeeze_3.0, Loop_0.5x",
      "src.type() == CV_32F || CV_8UC3 in If_4_then_branch/Loop_0_body, lower_3_case",
  };
  std::string joined, expected;
  for (const auto& m : messages) {
    joined += (joined.empty() ? "" : std::string(1, '\0')) + m;
    expected += normalizeMessage(m) + "\n";
  }
  const fs::path in = root / "messages.bin";
  writeFileBytes(in, joined);
  const Command c = run("python3 " + (dir / "repro.py").string() + " --normalize < " + in.string());
  ASSERT_EQ(c.exitCode, 0) << c.output;
  EXPECT_EQ(c.output, expected);
}

}  // namespace
}  // namespace nnfuzz
