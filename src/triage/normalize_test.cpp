// normalize_test.cpp - message normalisation with before/after examples, and crash stderr
// (fatal lines, backtraces of glibc, ASan, gdb and Python's faulthandler).
#include <gtest/gtest.h>

#include "triage/frames.h"
#include "triage/normalize.h"

namespace nnfuzz {
namespace {

struct Example {
  const char* before;
  const char* after;
};

const Example kLines[] = {
    // numbers, signs, decimals, exponents, numbers glued to words
    {"Attempting to broadcast an axis by a dimension other than 1. 3 by 4",
     "Attempting to broadcast an axis by a dimension other than <n>. <n> by <n>"},
    {"axis -1 out of range [-2, 1]", "axis <n> out of range [<n>]"},
    {"got 0.5 and 1e-05 and 2.5E+10", "got <n> and <n> and <n>"},
    {"shape 3x4x5, 64KiB used", "shape <n>, <n>KiB used"},
    {"{1,3,224,224} vs {1,3}", "{<n>} vs {<n>}"},
    // tuples and shapes of any length are one <n>; '?' is a dynamic dim inside them
    {"Expected rank 4, got shape [1,?,3] and (2, 2) and 1..3", "Expected rank <n>, got shape [<n>] and (<n>) and <n>"},
    {"a ? b and [?]", "a ? b and [?]"},
    // error codes keep their digits
    {"[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : node 3", "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : node <n>"},
    {"failed with error code 13 after 4 tries, errno: 2", "failed with error code 13 after <n> tries, errno: 2"},
    // dtype and op names keep their digits
    {"type float32 vs int64 in Conv2d at opset17", "type float32 vs int64 in Conv2d at opset17"},
    // hex addresses
    {"SEGV on unknown address 0x000000000010 (pc 0x7f3a2b1c bp 0x7ffd)", "SEGV on unknown address <hex> (pc <hex> bp <hex>)"},
    {"object at deadbeef0042 freed", "object at <hex> freed"},
    // paths, absolute and relative source locations
    {"Load model from /tmp/nnfuzz/case_17/model.onnx failed", "Load model from <path> failed"},
    {"onnxruntime/core/providers/cpu/math/element_wise_ops.h:560 void Init()", "<path>:<n> void Init()"},
    {"Exception from src/plugins/intel_cpu/src/node.cpp:99:", "Exception from <path>:<n>:"},
    {"and/or stays", "and/or stays"},
    // tensor and node names
    {"Node (Conv_4) Op (Conv) output_3 input t17", "Node (<name>) Op (Conv) <name> input <name>"},
    {"in node 'Mod_3' of lv2 and gv12, weight_0", "in node '<name>' of <name> and <name>, <name>"},
    {"tensor t is fine, and so is to", "tensor t is fine, and so is to"},
    // node numbers inside a word, and a tensor's output port (OpenVINO 2025.2, old-c1)
    {"opset1::Parameter Loop_2_body/output_1 () -> (boolean[])", "opset1::Parameter Loop_<n>_body/<name> () -> (boolean[])"},
    {"QuantizeLinear_5Parameter axis 1 out of tensor range [0, 0]", "QuantizeLinear_<n>Parameter axis <n> out of tensor range [<n>]"},
    {"Operation name: Squeeze_3.0", "Operation name: <name>"},
    {"int64_t uint8_t opset10 x86_64 _M_range_check", "int64_t uint8_t opset10 <name> _M_range_check"},
    {"src.type() == CV_32F || CV_8UC3, If_4_then_branch", "src.type() == CV_32F || CV_8UC3, If_<n>_then_branch"},
    // whitespace and non-ASCII
    {"  many   spaces\tand\ttabs  ", "many spaces and tabs"},
    {"caf\xc3\xa9 \xe2\x80\x94 done", "caf? ? done"},
};

TEST(Normalize, LinesBeforeAndAfter) {
  for (const auto& e : kLines) EXPECT_EQ(normalizeLine(e.before), e.after) << "before: " << e.before;
}

TEST(Normalize, OnnxRuntimeKernelWordsAreTheSameWhereverTheKernelRan) {
  // ONNX Runtime 1.20.1 (old-c1): QLinearConv's check at run in `noopt`, inside constant folding
  // while the session is created in `opt`, and inside an If's branch.
  const std::string check =
      "/onnxruntime_src/onnxruntime/core/providers/cpu/quantization/qlinearconv.cc:117 static void "
      "onnxruntime::QLinearConv<ActType>::ComputeOffset(onnxruntime::OpKernelContext*, int64_t, ActType&, ActType&, "
      "uint8_t&) [with ActType = unsigned char; int64_t = long int; uint8_t = unsigned char] W_zero_point_data[i] == "
      "W_zero_point_value was false. QLinearConv : zero point of per-channel filter must be same";
  const std::string atRun = normalizeMessage(
      "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while running QLinearConv node. "
      "Name:'QLinearConv_0' Status Message: " + check);
  EXPECT_EQ(atRun, normalizeMessage("[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Exception during initialization: " + check));
  EXPECT_EQ(atRun, normalizeMessage(
                       "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while running If node. "
                       "Name:'If_2' Status Message: Non-zero status code returned while running QLinearConv node. "
                       "Name:'If_2_then_branch/QLinearConv_0' Status Message: " + check));
  EXPECT_EQ(atRun.find("Non-zero"), std::string::npos);
  // The kernel's words stay: another check of another kernel is another bug.
  EXPECT_NE(atRun, normalizeMessage("[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Exception during initialization: "
                                    "/a/reduction_ops.cc:484 void onnxruntime::ValidateNoTransposeReduce(int64_t) "
                                    "count == 1 was false. Reduction on all axes, output size should be 1."));
}

TEST(Normalize, SameBugDifferentDetailsGiveTheSameText) {
  const std::string a = normalizeMessage(
      "[ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running Gather node. Name:'Gather_3' "
      "Status Message: indices element out of data bounds, idx=7 must be within the inclusive range [-5,4]");
  const std::string b = normalizeMessage(
      "[ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running Gather node. Name:'Gather_12' "
      "Status Message: indices element out of data bounds, idx=-9 must be within the inclusive range [-3,2]");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, normalizeMessage("[ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running "
                                "Conv node. Name:'Conv_3' Status Message: kernel too big"));
}

// ONNX Runtime's ORT_ENFORCE quotes __PRETTY_FUNCTION__, template arguments included: one
// kernel constructor failing for int8 and for uint8 was two signatures (mcf-5d427ed8 and
// mcf-5f708080 of the QDQ campaign).
TEST(Normalize, TemplateArgumentsAreDropped) {
  const std::string head =
      "[ONNXRuntimeError] : 1 : FAIL : Exception during initialization: /onnxruntime_src/onnxruntime/contrib_ops/cpu/"
      "quantization/qlinear_lookup_table.cc:52 void onnxruntime::contrib::QlinearBuildLookupTable(uint8_t*, const "
      "onnxruntime::Tensor*, const LookupTableArrayTransformer&) [with T = ";
  const std::string tail =
      "; uint8_t = unsigned char; LookupTableArrayTransformer = std::function<void(const float*, float*, long "
      "unsigned int)>] IsScalarOr1ElementVector(tensor_y_scale) was false. QlinearBuildLookupTable : input Y_scale "
      "must be a scalar or 1D tensor of size 1";
  const std::string i8 = normalizeMessage(head + "signed char" + tail), u8 = normalizeMessage(head + "unsigned char" + tail);
  EXPECT_EQ(i8, u8);
  EXPECT_EQ(i8.find("[with"), std::string::npos) << i8;
  EXPECT_NE(i8.find("Transformer&) IsScalarOr1ElementVector"), std::string::npos) << i8;
  EXPECT_EQ(normalizeLine("void f(T*) [T = int] failed"), "void f(T*) failed");             // clang's form
  EXPECT_EQ(normalizeLine("g() [with T = int; U = std::array<int, 2>[3]] x"), "g() x");  // nested brackets
  EXPECT_EQ(normalizeLine("g() [with T = in"), "g()");                                   // cut off
  EXPECT_EQ(normalizeLine("shape [1, 2] and [axis = 3]"), "shape [<n>] and [axis = <n>]");  // no template here
}

TEST(Normalize, TracebacksAreDropped) {
  const char* tvm =
      "Traceback (most recent call last):\n"
      "  File \"/usr/lib/python3/tvm/relax/frontend/onnx.py\", line 120, in from_onnx\n"
      "    return g.from_onnx(graph, opset)\n"
      "           ^^^^^^^^^^^^^^^^^^^^^^^^^\n"
      "  3: tvm::relax::BlockBuilderImpl::Normalize(tvm::RelaxExpr const&)\n"
      "  0: tvm::runtime::Backtrace[abi:cxx11]()\n"
      "#0 0x7f00 in foo\n"
      "\n"
      "InternalError: Check failed: (ndim == 4) is false: conv2d expects 4-D input, got 3\n";
  // The Python source line is the only non-frame line before the error.
  EXPECT_EQ(normalizeMessage(tvm),
            "return g.from_onnx(graph, opset) | InternalError: Check failed: (ndim == <n>) is false: conv2d expects "
            "<n>-D input, got <n>");
}

TEST(Normalize, QuotedLlvmInstructionsAreDropped) {
  // TVM's LLVM verifier quotes the failing instruction; its registers differ from model to model.
  const char* a = "LLVM module verification failed with the following errors: \n"
                  "Invalid operand types for FCmp instruction\n  %6 = fcmp oeq i1 false, %5, !dbg !36\n";
  const char* b = "LLVM module verification failed with the following errors: \n"
                  "Invalid operand types for FCmp instruction\n  %17 = fcmp oeq i1 %13, %16, !dbg !60\n";
  EXPECT_EQ(normalizeMessage(a), normalizeMessage(b));
  EXPECT_EQ(normalizeMessage(a),
            "LLVM module verification failed with the following errors: | Invalid operand types for FCmp instruction");
}

TEST(Normalize, TvmOffendingCallIsDropped) {
  // tvm-any-mcf-48e815cd and -7106db59 of the three-SUT campaign: Compress feeds Add in one and
  // Sub in the other; the unlowered data-dependent shape is the one bug.
  const char* add = "CodeGenVM cannot emit this Relax operator directly. Run the appropriate lowering pass, or "
                    "route the operator to an external codegen before VM codegen.\nOffending call:\n"
                    "R.add(metadata[\"ir.GenericConst\"][0], alloc1)\n# Metadata omitted.";
  const char* sub = "CodeGenVM cannot emit this Relax operator directly. Run the appropriate lowering pass, or "
                    "route the operator to an external codegen before VM codegen.\nOffending call:\n"
                    "R.subtract(alloc, lv3)";
  EXPECT_EQ(normalizeMessage(add), normalizeMessage(sub));
  EXPECT_EQ(normalizeMessage(add),
            "CodeGenVM cannot emit this Relax operator directly. Run the appropriate lowering pass, or route the "
            "operator to an external codegen before VM codegen.");
}

TEST(Normalize, LongMessagesKeepFirstThreeAndLastLines) {
  const std::string msg = "one\ntwo\nthree\nfour\nfive\nsix: the end";
  EXPECT_EQ(normalizeMessage(msg), "one | two | three | six: the end");
  const std::string huge(5000, 'a');
  EXPECT_EQ(normalizeMessage(huge).size(), kMaxNormalizedMessage);
}

TEST(Frames, GlibcBacktraceSymbols) {
  const char* tail =
      "some warning from an earlier test\n"
      "Obtained 6 stack frames.\n"
      "/lib/x86_64-linux-gnu/libc.so.6(gsignal+0xcb)[0x7f1c2a9e8ebc]\n"
      "/lib/x86_64-linux-gnu/libc.so.6(abort+0xd3)[0x7f1c2a99e472]\n"
      "/opt/lib/libonnxruntime.so(_ZN11onnxruntime4Gemm7ComputeEv+0x1c)[0x7f00deadbeef]\n"
      "/opt/lib/libonnxruntime.so(+0x12345)[0x7f00deadbe00]\n"
      "/usr/bin/python3(_PyEval_EvalFrameDefault+0x99)[0x55555]\n";
  EXPECT_EQ(extractFrames(tail), (std::vector<std::string>{"onnxruntime::Gemm::Compute", "libonnxruntime.so"}));
}

TEST(Frames, AsanReportTakesTheErrorStack) {
  const char* tail =
      "=================================================================\n"
      "==123==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000014 at pc 0x55d2 bp 0x7ffd\n"
      "READ of size 4 at 0x602000000014 thread T0\n"
      "    #0 0x55d2 in onnxruntime::(anonymous namespace)::Gather<float>::Compute(Ctx*) const /src/gather.cc:12:3\n"
      "    #1 0x55d3 in operator()(int) /src/x.cc:4\n"
      "    #2 0x7f00 (/lib/libfoo.so+0x1234)\n"
      "\n"
      "0x602000000014 is located 0 bytes to the right of 4-byte region\n"
      "allocated by thread T0 here:\n"
      "    #0 0x7f11 in __interceptor_malloc\n"
      "    #1 0x55d9 in make_buffer /src/buf.cc:8\n"
      "SUMMARY: AddressSanitizer: heap-buffer-overflow /src/gather.cc:12:3 in Gather\n";
  EXPECT_EQ(extractFrames(tail), (std::vector<std::string>{"onnxruntime::{anon}::Gather<float>::Compute",
                                                           "operator{call}", "libfoo.so"}));
  EXPECT_EQ(fatalLine(tail),
            "==<n>==ERROR: AddressSanitizer: heap-buffer-overflow on address <hex> at pc <hex> bp <hex>");
}

TEST(Frames, FaulthandlerCurrentThread) {
  const char* tail =
      "Fatal Python error: Segmentation fault\n"
      "\n"
      "Thread 0x00007f2 (most recent call first):\n"
      "  File \"/usr/lib/python3.11/threading.py\", line 320 in wait\n"
      "\n"
      "Current thread 0x00007f1 (most recent call first):\n"
      "  File \"/venv/onnxruntime/capi/onnxruntime_inference_collection.py\", line 266 in run\n"
      "  File \"/work/tools/workers/ort_worker.py\", line 40 in handle\n"
      "  File \"/work/tools/workers/ort_worker.py\", line 80 in <module>\n"
      "\n"
      "Extension modules: numpy.core._multiarray_umath (total: 12)\n";
  EXPECT_EQ(extractFrames(tail), (std::vector<std::string>{"run", "handle"}));
  EXPECT_EQ(fatalLine(tail), "Fatal Python error: Segmentation fault");
}

TEST(Frames, GdbAndPython313NativeStacks) {
  const char* gdb =
      "#0  0x00007ffff7a42e2c in __pthread_kill_implementation (no_tid=0) at ./nptl/pthread_kill.c:44\n"
      "#1  0x00007ffff79f3fb2 in raise (sig=6) at ../sysdeps/posix/raise.c:26\n"
      "#2  tvm::codegen::CodeGenLLVM::VisitExpr_(tvm::tir::CallNode const*) (this=0x1) at codegen.cc:10\n";
  EXPECT_EQ(extractFrames(gdb), std::vector<std::string>{"tvm::codegen::CodeGenLLVM::VisitExpr_"});
  const char* py313 =
      "Current thread's C stack trace (most recent call first):\n"
      "  Binary file \"/lib/x86_64-linux-gnu/libc.so.6\", at abort+0xd3 [0x7f1c2a99e472]\n"
      "  Binary file \"/opt/libopenvino.so\", at _ZN2ov4Node8validateEv+0x10 [0x7f00]\n"
      "  Binary file \"/opt/libopenvino_intel_cpu_plugin.so\", at +0x1234 [0x7f01]\n";
  EXPECT_EQ(extractFrames(py313),
            (std::vector<std::string>{"ov::Node::validate()", "libopenvino_intel_cpu_plugin.so"}));
}

TEST(Frames, GlibcHeapCheckAndUncaughtException) {
  EXPECT_EQ(fatalLine("warming up\nfree(): invalid pointer\n"), "free(): invalid pointer");
  EXPECT_EQ(fatalLine("malloc(): corrupted top size\n"), "malloc(): corrupted top size");
  EXPECT_EQ(fatalLine("terminate called after throwing an instance of 'std::out_of_range'\n"
                      "  what():  vector::_M_range_check: __n (which is 7) >= this->size() (which is 3)\n"),
            "terminate called after throwing an instance of 'std::out_of_range' what(): vector::_M_range_check: __n "
            "(which is <n>) >= this->size() (which is <n>)");
  EXPECT_EQ(fatalLine("python3: /src/x.cc:12: void f(): Assertion `n > 0' failed.\n"),
            "python3: <path>:<n>: void f(): Assertion `n > <n>' failed.");
  EXPECT_EQ(fatalLine("nothing to see\n"), "");
  EXPECT_TRUE(extractFrames("no frames here\n").empty());
}

}  // namespace
}  // namespace nnfuzz
