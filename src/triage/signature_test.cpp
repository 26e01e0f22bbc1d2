// signature_test.cpp - equal signatures for the same bug, different ones for different bugs,
// and grouping findings into bugs with counts.
#include <gtest/gtest.h>

#include <csignal>

#include "triage/signature.h"

namespace nnfuzz {
namespace {

RunOutcome error(RunStatus status, std::string phase, std::string type, std::string message) {
  RunOutcome o;
  o.backend = "onnxruntime";
  o.mode = "opt";
  o.status = status;
  o.phase = std::move(phase);
  o.errorType = std::move(type);
  o.message = std::move(message);
  return o;
}

Signature sig(const RunOutcome& o, const std::vector<std::string>& ops = {}) {
  const Oracle oracle;
  return makeSignature(oracle.judge(o, {}), o, ops);
}

TEST(Signature, SameErrorWithOtherNumbersAndNamesIsOneBug) {
  const Signature a = sig(error(RunStatus::RunError, "run", "Fail",
                                "Non-zero status code returned while running Gather node. Name:'Gather_3' idx=7"));
  const Signature b = sig(error(RunStatus::RunError, "run", "Fail",
                                "Non-zero status code returned while running Gather node. Name:'Gather_9' idx=-2"));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a.hash().size(), 16u);
  EXPECT_EQ(a.verdict, "if");
  EXPECT_EQ(a.bundleName(), "onnxruntime-opt-if-" + a.hash().substr(0, 8));
}

TEST(Signature, DifferentTypeModeOrMessageAreDifferentBugs) {
  const RunOutcome base = error(RunStatus::RunError, "run", "Fail", "Gather failed");
  const std::string h = sig(base).hash();
  RunOutcome o = base;
  o.errorType = "RuntimeException";
  EXPECT_NE(sig(o).hash(), h);
  o = base;
  o.mode = "noopt";
  EXPECT_NE(sig(o).hash(), h);
  o = base;
  o.message = "Conv failed";
  EXPECT_NE(sig(o).hash(), h);
  o = base;
  o.backend = "openvino";
  EXPECT_NE(sig(o).hash(), h);
}

TEST(Signature, OneErrorAtPrepareAndAtRunIsOneBug) {
  // ONNX Runtime 1.20.1, ReduceSum(noop_with_empty_axes=1) of a constant: `opt` folds it while
  // creating the session (MCF), `noopt` runs the kernel (IF); one kernel check (old-c1, 2026-11-28).
  const std::string check =
      "/onnxruntime_src/onnxruntime/core/providers/cpu/reduction/reduction_ops.cc:592 void "
      "onnxruntime::ValidateNoTransposeReduce(int64_t) count == 1 was false. Reduction on all axes, output size "
      "should be 1.";
  const Signature atPrepare = sig(error(RunStatus::PrepareError, "prepare", "RuntimeException",
                                        "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Exception during initialization: " + check));
  const Signature atRun = sig(error(RunStatus::RunError, "run", "RuntimeException",
                                    "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : Non-zero status code returned while "
                                    "running ReduceSum node. Name:'ReduceSum_0' Status Message: " + check));
  EXPECT_EQ(atPrepare.verdict, "mcf");
  EXPECT_EQ(atRun.verdict, "if");
  EXPECT_EQ(atPrepare, atRun);
  EXPECT_EQ(atPrepare.hash(), atRun.hash());
  // Phase still tells crashes and timeouts apart: they have no words of their own to go by.
  RunOutcome hang = error(RunStatus::Timeout, "run", "", "");
  const std::string runHang = sig(hang).hash();
  hang.phase = "prepare";
  EXPECT_NE(sig(hang).hash(), runHang);
}

TEST(Signature, CrashesBySignalFatalLineAndFrames) {
  RunOutcome crash = error(RunStatus::Crash, "run", "", "");
  crash.signal = SIGABRT;
  crash.stderrTail = "free(): invalid pointer\n/opt/libort.so(_ZN3ort4Gemm7ComputeEv+0x1c)[0x7f00]\n";
  const Signature a = sig(crash);
  EXPECT_EQ(a.symptom, "crash SIGABRT");
  EXPECT_EQ(a.message, "free(): invalid pointer");
  EXPECT_EQ(a.frames, std::vector<std::string>{"ort::Gemm::Compute"});
  RunOutcome other = crash;  // same death, other addresses: same bug
  other.stderrTail = "earlier noise 42\nfree(): invalid pointer\n/x/libort.so(_ZN3ort4Gemm7ComputeEv+0x99)[0x7f99]\n";
  EXPECT_EQ(sig(other).hash(), a.hash());
  other.stderrTail = "free(): invalid pointer\n/opt/libort.so(_ZN3ort4Conv7ComputeEv+0x1c)[0x7f00]\n";
  EXPECT_NE(sig(other).hash(), a.hash());
  other = crash;
  other.signal = SIGSEGV;
  EXPECT_NE(sig(other).hash(), a.hash());
}

TEST(Signature, WrongResultsByOperatorSetAndOutputs) {
  const Oracle oracle;
  RunOutcome o;
  o.backend = "onnxruntime";
  o.mode = "opt";
  o.status = RunStatus::Ok;
  o.outputs = {float32Tensor({1}), float32Tensor({5})};
  const std::vector<Tensor> ref = {float32Tensor({1}), float32Tensor({2})};
  const Judgement j = oracle.judge(o, ref);
  const Signature a = makeSignature(j, o, {"Relu", "Conv", "Relu"});
  EXPECT_EQ(a.opTypes, (std::vector<std::string>{"Conv", "Relu"}));
  EXPECT_EQ(a.outputs, std::vector<size_t>{1});
  EXPECT_EQ(a.symptom, "values");
  EXPECT_EQ(makeSignature(j, o, {"Conv", "Relu"}).hash(), a.hash());  // order and repeats do not matter
  EXPECT_NE(makeSignature(j, o, {"Conv", "Relu", "Add"}).hash(), a.hash());
  RunOutcome first = o;
  first.outputs = {float32Tensor({9}), float32Tensor({2})};
  EXPECT_NE(makeSignature(oracle.judge(first, ref), first, {"Conv", "Relu"}).hash(), a.hash());
  // The same disagreement against the other mode is a different finding.
  RunOutcome noopt = o;
  noopt.mode = "noopt";
  noopt.outputs = ref;
  const Judgement m = *oracle.judgeModes(noopt, o);
  const Signature s = makeSignature(m, o, {"Conv", "Relu"});
  EXPECT_NE(s.hash(), a.hash());
  EXPECT_EQ(s.bundleName().substr(0, 29), "onnxruntime-opt-vs-noopt-dcf-");
}

TEST(Signature, HashIsStableAcrossBuilds) {
  // A fixed signature must keep its name forever: bundles and databases refer to it.
  Signature s;
  s.backend = "onnxruntime";
  s.mode = "opt";
  s.against = "reference";
  s.phase = "run";
  s.verdict = "if";
  s.symptom = "error";
  s.errorType = "Fail";
  s.message = "Gather failed";
  // Since 2026-11-28 an error's phase and class are not part of its identity (before: 3b56202c15a2b9f8).
  EXPECT_EQ(s.hash(), "5733b0638291e05d");
  EXPECT_EQ(Signature::fromJson(s.toJson()), s);
  Signature wrong;  // a wrong result's name did not change
  wrong.backend = "openvino";
  wrong.mode = "any";
  wrong.against = "reference";
  wrong.phase = "run";
  wrong.verdict = "dcf";
  wrong.symptom = "wrong";
  wrong.opTypes = {"ReduceL1"};
  EXPECT_EQ(wrong.hash().substr(0, 8), "ec151ccc");  // openvino-any-dcf-ec151ccc, in old-c1 and c15 alike
}

TEST(BugTable, CountsFindingsPerBug) {
  BugTable table;
  const Signature a = sig(error(RunStatus::RunError, "run", "Fail", "Gather_1 failed at 3"));
  const Signature b = sig(error(RunStatus::RunError, "run", "Fail", "Gather_7 failed at 9"));
  const Signature c = sig(error(RunStatus::PrepareError, "prepare", "InvalidGraph", "bad graph"));
  EXPECT_TRUE(table.record(a).second);
  EXPECT_FALSE(table.record(b).second);
  EXPECT_TRUE(table.record(c).second);
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(table.find(a.hash())->count, 2u);
  table.seed(c, 10);
  table.record(c);
  EXPECT_EQ(table.find(c.hash())->count, 11u);
}

}  // namespace
}  // namespace nnfuzz
