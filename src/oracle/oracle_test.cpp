// oracle_test.cpp - verdicts from run outcomes, and "unsupported" patterns per backend.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "oracle/oracle.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

RunOutcome failed(std::string backend, RunStatus status, std::string phase, std::string type, std::string message) {
  RunOutcome o;
  o.backend = std::move(backend);
  o.mode = "opt";
  o.status = status;
  o.phase = std::move(phase);
  o.errorType = std::move(type);
  o.message = std::move(message);
  return o;
}

RunOutcome ok(std::vector<Tensor> outputs, std::string mode = "opt") {
  RunOutcome o;
  o.backend = "onnxruntime";
  o.mode = std::move(mode);
  o.status = RunStatus::Ok;
  o.outputs = std::move(outputs);
  return o;
}

struct UnsupportedCase {
  const char* backend;
  const char* type;
  const char* message;
  bool unsupported;
};

// Real messages of each SUT (shared/research/suts.md and the SUTs' sources), and real bugs
// that must not be mistaken for rejections.
const UnsupportedCase kUnsupportedCases[] = {
    {"onnxruntime", "NotImplemented",
     "[ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an implementation for Mod(13) node with name 'Mod_3'",
     true},
    {"onnxruntime", "Fail",
     "[ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running Conv node. Name:'Conv_0' "
     "Status Message: Invalid input shape: {1,1}",
     false},
    {"onnxruntime", "InvalidGraph",
     "[ONNXRuntimeError] : 10 : INVALID_GRAPH : This is an invalid model. Type Error: Type 'tensor(int8)' of "
     "input parameter (t3) of operator (Relu) in node (Relu_2) is invalid.",
     false},
    {"openvino", "RuntimeError",
     "Exception from src/frontends/onnx/frontend/src/frontend.cpp:123:\nOpenVINO does not support the following "
     "ONNX operations: Foo",
     true},
    {"openvino", "RuntimeError", "Cannot create Interpolate layer Resize_3 id:12 from unsupported opset: opset11",
     true},
    {"openvino", "RuntimeError",
     "Exception from src/plugins/intel_cpu/src/node.cpp:99:\n[CPU] Eltwise node with name 'Add_1' has incorrect "
     "input shapes",
     false},
    {"tvm", "OpNotImplemented", "The following operators are not supported for frontend ONNX: Trilu", true},
    {"tvm", "NotImplementedError", "Dynamic pads are not supported yet", true},
    {"tvm", "InternalError", "Check failed: (lhs.dtype() == rhs.dtype()) is false: mismatched types. int64 vs. int32",
     false},
    {"opencv", "error",
     "OpenCV(5.0.0) /io/opencv/modules/dnn/src/layers/maxpool_layer.cpp:564: error: (-215:Assertion failed) "
     "inpshape.dims == 4 && \"MaxPool with indices: only 4D (N,C,H,W) inputs supported\" in function 'forward'",
     true},
    {"opencv", "error",
     "OpenCV(5.0.0) /io/opencv/modules/dnn/src/onnx/onnx_importer.cpp:1114: error: (-2:Unspecified error) in "
     "function 'handleNode'\n> Node [LSTM@ai.onnx]:(onnx_node!LSTM_0) parse error: OpenCV(5.0.0) "
     "/io/opencv/modules/dnn/src/onnx/onnx_importer.cpp:1601: error: (-215:Assertion failed) !name.empty() && "
     "constBlobs.count(name) == 1 in function 'parseLSTM'",
     true},
    {"opencv", "error",
     "OpenCV(5.0.0) /io/opencv/modules/dnn/src/layers/resize_layer.cpp:47: error: (-2:Unspecified error) in "
     "function 'cv::dnn::ResizeLayerImpl::ResizeLayerImpl(const cv::dnn::LayerParams&)'\n> :\n>     'interpolation "
     "== \"nearest\" || interpolation == \"opencv_linear\" || interpolation == \"bilinear\"'\n> where\n>     "
     "'interpolation' is cubic",
     true},
    // Real bugs of OpenCV 5.0 (docs/findings.md, issue 11): legal ONNX it fails on.
    {"opencv", "error",
     "OpenCV(5.0.0) /io/opencv/modules/dnn/src/layers/matmul_layer.cpp:63: error: (-2:Unspecified error) in "
     "function 'getMemoryShapes'\n> DNN/MatMul: invalid shape of input A (expected: 'shape_A.size() >= 2')",
     false},
    {"opencv", "error",
     "OpenCV(5.0.0) /io/opencv/modules/dnn/src/layers/constantofshape_layer.cpp:96: error: (-215:Assertion "
     "failed) blobs.size() == 1 in function 'getTypes'",
     false},
    // Old releases' own refusals (OpenVINO 2025.2.0, ONNX Runtime 1.20.1; campaign old-c1) and their
    // real bugs that speak alike.
    {"openvino", "RuntimeError",
     "Errors during ONNX translation:\nCheck '(reduction == \"none\")' failed at "
     "src/frontends/onnx/frontend/src/op/scatter_nd.cpp:25:\nWhile validating ONNX node '<Node(ScatterND): "
     "ScatterND_0>':\nUnsupported value of attribute: `reduction`. Only `none` is supported, got:mul",
     true},
    {"openvino", "RuntimeError", "FrontEnd API failed with GeneralFailure:\nNo nested TensorIterator", true},
    {"openvino", "RuntimeError",
     "Exception from src/plugins/intel_cpu/src/node.cpp:1555:\n[CPU] FakeQuantize node with name 'QuantizeLinear_0' "
     "doesn't support non per-tensor quantization for axis: 2",
     true},
    {"openvino", "RuntimeError",
     "Unexpected: CPU plug-in doesn't support NullNode operation with dynamic rank. Operation name: NullNode_1",
     false},
    {"onnxruntime", "RuntimeException",
     "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Exception during initialization: qlinearconv.cc:117 "
     "W_zero_point_data[i] == W_zero_point_value was false. QLinearConv : zero point of per-channel filter must be "
     "same",
     true},
    {"onnxruntime", "InvalidArgument",
     "[ONNXRuntimeError] : 2 : INVALID_ARGUMENT : Size of X.shape()[axis:] == 2. Size of scale and bias (if "
     "provided) must match this. Got scale size of 1 and bias size of 0",
     false},
    {"mybackend", "Error", "operator Foo is not implemented", true},  // generic pattern
    {"mybackend", "Error", "assertion failed: index < size", false},
};

TEST(Unsupported, DefaultPatternsPerBackend) {
  const UnsupportedFilter f = UnsupportedFilter::defaults();
  for (const auto& c : kUnsupportedCases)
    EXPECT_EQ(f.match(c.backend, c.type, c.message).has_value(), c.unsupported) << c.backend << ": " << c.message;
  EXPECT_FALSE(f.patterns("generic").empty());
  EXPECT_FALSE(f.patterns("tvm").empty());
}

TEST(Unsupported, BackendPatternsDoNotLeakToOtherBackends) {
  const UnsupportedFilter f = UnsupportedFilter::defaults();
  // "Cannot create X layer" is OpenVINO's rejection; from ONNX Runtime it means nothing special.
  EXPECT_TRUE(f.match("openvino", "", "Cannot create Foo layer").has_value());
  EXPECT_FALSE(f.match("onnxruntime", "", "Cannot create Foo layer").has_value());
}

TEST(Unsupported, AFileExtendsOrReplaces) {
  const auto path = std::filesystem::temp_directory_path() / ("nnfuzz_unsup_" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream(path) << R"({"backends": {"onnxruntime": ["Invalid input shape"]}})";
  }
  UnsupportedFilter f = UnsupportedFilter::load(path);
  EXPECT_TRUE(f.match("onnxruntime", "", "Status Message: Invalid input shape: {1}").has_value());
  EXPECT_TRUE(f.match("onnxruntime", "", "Could not find an implementation for X").has_value());  // kept
  {
    std::ofstream(path) << R"({"mode": "replace", "generic": [], "backends": {"onnxruntime": ["only this"]}})";
  }
  f = UnsupportedFilter::load(path);
  EXPECT_FALSE(f.match("onnxruntime", "", "Could not find an implementation for X").has_value());
  EXPECT_FALSE(f.match("mybackend", "", "not implemented").has_value());
  EXPECT_TRUE(f.match("onnxruntime", "", "only this").has_value());
  {
    std::ofstream(path) << R"({"backends": {"tvm": ["(unclosed"]}})";
  }
  EXPECT_THROW(UnsupportedFilter::load(path), Error);
  {
    std::ofstream(path) << R"({"backend": {}})";
  }
  EXPECT_THROW(UnsupportedFilter::load(path), Error);
  std::filesystem::remove(path);
}

TEST(Unsupported, LongMessagesAreSearchedAtBothEnds) {
  const UnsupportedFilter f = UnsupportedFilter::defaults();
  const std::string body(200000, 'x');
  EXPECT_TRUE(f.match("tvm", "", body + "\nOpNotImplemented: Trilu").has_value());
  EXPECT_FALSE(f.match("tvm", "", body).has_value());
}

TEST(Oracle, ErrorsByPhase) {
  const Oracle oracle;
  Judgement j = oracle.judge(failed("onnxruntime", RunStatus::PrepareError, "prepare", "InvalidGraph", "bad"), {});
  EXPECT_EQ(j.verdict, Verdict::MCF);
  EXPECT_TRUE(j.bug());
  EXPECT_EQ(j.symptom, "error");
  j = oracle.judge(failed("onnxruntime", RunStatus::RunError, "run", "Fail", "Invalid input shape"), {});
  EXPECT_EQ(j.verdict, Verdict::IF);
  EXPECT_EQ(j.phase, "run");
  j = oracle.judge(failed("onnxruntime", RunStatus::PrepareError, "prepare", "NotImplemented",
                          "Could not find an implementation for Mod(13)"),
                   {});
  EXPECT_EQ(j.verdict, Verdict::Unsupported);
  EXPECT_FALSE(j.bug());
  EXPECT_EQ(j.unsupportedPattern, "Could not find an implementation");
  // A named step of prepare (a converter or graph optimizer in front of the SUT) is still MCF.
  j = oracle.judge(failed("mnn", RunStatus::PrepareError, "convert", "ConversionError", "Converted Failed"), {});
  EXPECT_EQ(j.verdict, Verdict::MCF);
  EXPECT_EQ(j.phase, "convert");
  EXPECT_EQ(j.reason, "convert failed: ConversionError: Converted Failed");
}

TEST(Oracle, CrashTimeoutAndMemoryAreInferenceFailures) {
  const Oracle oracle;
  RunOutcome crash = failed("tvm", RunStatus::Crash, "prepare", "", "");
  crash.signal = SIGSEGV;
  Judgement j = oracle.judge(crash, {});
  EXPECT_EQ(j.verdict, Verdict::IF);
  EXPECT_EQ(j.symptom, "crash SIGSEGV");
  EXPECT_EQ(j.phase, "prepare");
  // A crash is a bug even when the dying SUT printed "not supported".
  crash.message = "not supported";
  EXPECT_EQ(oracle.judge(crash, {}).verdict, Verdict::IF);
  EXPECT_EQ(oracle.judge(failed("tvm", RunStatus::Timeout, "run", "", ""), {}).symptom, "timeout");
  EXPECT_EQ(oracle.judge(failed("tvm", RunStatus::OutOfMemory, "run", "", ""), {}).verdict, Verdict::IF);
  const Judgement h = oracle.judge(failed("tvm", RunStatus::WorkerError, "", "", "bad reply"), {});
  EXPECT_EQ(h.verdict, Verdict::HarnessError);
  EXPECT_FALSE(h.bug());
}

TEST(Oracle, WrongOutputsSayWhichAndHow) {
  const Oracle oracle;
  const std::vector<Tensor> ref = {float32Tensor({1, 2}), float32Tensor({3}), Tensor({DType::Int64, {1}}, {7})};
  EXPECT_EQ(oracle.judge(ok(ref), ref).verdict, Verdict::Pass);
  Judgement j = oracle.judge(ok({float32Tensor({1, 2}), float32Tensor({3.5}), Tensor({DType::Int32, {1}}, {7})}), ref);
  EXPECT_EQ(j.verdict, Verdict::DCF);
  ASSERT_EQ(j.diffs.size(), 2u);
  EXPECT_EQ(j.differingOutputs(), (std::vector<size_t>{1, 2}));
  EXPECT_EQ(j.diffs[0].kind, DiffKind::Values);
  EXPECT_EQ(j.diffs[1].kind, DiffKind::DType);
  EXPECT_EQ(j.symptom, "values");
  EXPECT_NE(j.reason.find("+1 more outputs"), std::string::npos) << j.reason;
  // A missing output.
  j = oracle.judge(ok({float32Tensor({1, 2})}), ref);
  EXPECT_EQ(j.verdict, Verdict::DCF);
  EXPECT_EQ(j.differingOutputs(), std::vector<size_t>{1});
  EXPECT_EQ(j.diffs[0].kind, DiffKind::Shape);
  // Without a reference, outputs pass.
  EXPECT_EQ(oracle.judgeWithoutReference(ok({float32Tensor({99})})).verdict, Verdict::Pass);
}

TEST(Oracle, ModeAgainstMode) {
  const Oracle oracle;
  const RunOutcome noopt = ok({float32Tensor({1, 2})}, "noopt");
  Judgement j = *oracle.judgeModes(noopt, ok({float32Tensor({1, 2.5})}, "opt"));
  EXPECT_EQ(j.verdict, Verdict::DCF);
  EXPECT_EQ(j.mode, "opt");
  EXPECT_EQ(j.against, "noopt");
  EXPECT_EQ(oracle.judgeModes(noopt, ok({float32Tensor({1, 2})}, "opt"))->verdict, Verdict::Pass);
  // A failed mode is not compared: its own judgement already reports it.
  EXPECT_FALSE(oracle.judgeModes(noopt, failed("onnxruntime", RunStatus::RunError, "run", "", "x")).has_value());
}

// An optimizer's models run on ONNX Runtime: a Loop whose body condition ORT wrongly obeys
// gave the same wrong value in both modes and was filed against onnxoptimizer and onnxsim
// (the issue-11 campaign's PF1/SF1). Only a difference between its modes is the optimizer's.
TEST(Oracle, ModesOnlyBackendsAreNotJudgedByTheReference) {
  Oracle oracle;
  oracle.compareModesOnly("onnxoptimizer");
  const std::vector<Tensor> ref = {float32Tensor({1, 2})};
  RunOutcome noopt = ok({float32Tensor({1, 9})}, "noopt"), opt = ok({float32Tensor({1, 9})}, "opt");
  noopt.backend = opt.backend = "onnxoptimizer";
  EXPECT_EQ(oracle.judge(noopt, ref).verdict, Verdict::Pass);
  EXPECT_EQ(oracle.judge(opt, ref).verdict, Verdict::Pass);
  EXPECT_EQ(oracle.judgeModes(noopt, opt)->verdict, Verdict::Pass);
  opt.outputs = {float32Tensor({1, 2})};
  EXPECT_EQ(oracle.judgeModes(noopt, opt)->verdict, Verdict::DCF);
  EXPECT_FALSE(oracle.judgeAgainstRun(ok({float32Tensor({1, 2})}, "noopt"), opt).has_value());
  // Errors are still the backend's; other backends still meet the reference.
  RunOutcome crashed = failed("onnxoptimizer", RunStatus::PrepareError, "optimize", "ValueError", "pass failed");
  EXPECT_EQ(oracle.judge(crashed, ref).verdict, Verdict::MCF);
  EXPECT_EQ(oracle.judge(ok({float32Tensor({1, 9})}), ref).verdict, Verdict::DCF);
}

TEST(Oracle, PolicyIsTheOracles) {
  const Oracle luo(*Policy::named("luo"));
  const Oracle allclose;
  const std::vector<Tensor> ref = {float32Tensor({10})};
  const RunOutcome o = ok({float32Tensor({10.05})});  // 0.5% off: allclose passes, luo fails
  EXPECT_EQ(allclose.judge(o, ref).verdict, Verdict::Pass);
  EXPECT_EQ(luo.judge(o, ref).verdict, Verdict::DCF);
}

}  // namespace
}  // namespace nnfuzz
