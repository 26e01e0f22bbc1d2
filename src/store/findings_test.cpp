// findings_test.cpp - one test's runs judged, bundled and recorded; a known bug is counted,
// not bundled again.
#include <gtest/gtest.h>
#include <unistd.h>

#include "store/findings.h"

namespace nnfuzz {
namespace {

namespace fs = std::filesystem;

Tensor f32(std::vector<double> v) {
  const auto n = static_cast<int64_t>(v.size());
  return Tensor({DType::Float32, {n}}, std::move(v));
}

RunOutcome ok(const std::string& backend, const std::string& mode, std::vector<Tensor> outputs) {
  RunOutcome o;
  o.backend = backend;
  o.mode = mode;
  o.status = RunStatus::Ok;
  o.outputs = std::move(outputs);
  return o;
}

TEST(Findings, JudgeBundleAndRecordATest) {
  const fs::path dir = fs::temp_directory_path() / ("nnfuzz_findings_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const Graph graph = parseGraph("graph {\n  %0 = input f32[2]\n  %1 = Relu(%0) : f32[2]\n  return %1\n}\n");
  const std::vector<Tensor> inputs = {f32({1, -1})}, reference = {f32({1, 0})};
  int casesMade = 0;
  auto makeCase = [&] {
    ++casesMade;
    return bundleCase(graph, inputs, reference, {{"seed", 3}});
  };
  CampaignStore store(dir / "campaign.db", {}, {});
  const Oracle oracle;
  BundleContext context;
  context.bugsDir = dir / "bugs";
  TestRecord test;
  test.index = 0;
  test.opTypes = {"Relu"};
  RunOutcome failed;
  failed.backend = "tvm";
  failed.mode = "opt";
  failed.status = RunStatus::PrepareError;
  failed.phase = "prepare";
  failed.message = "The following operators are not supported for frontend ONNX: Relu";
  const std::vector<RunOutcome> outcomes = {ok("onnxruntime", "opt", {f32({1, 5})}),
                                            ok("onnxruntime", "noopt", reference), failed};
  auto runs = recordFindings(store, oracle, context, test, outcomes, &reference, makeCase);
  ASSERT_EQ(runs.size(), 4u);  // three against the reference, opt against noopt
  EXPECT_EQ(runs[0].judgement.verdict, Verdict::DCF);
  EXPECT_TRUE(runs[0].bug->isNew);
  EXPECT_EQ(runs[1].judgement.verdict, Verdict::Pass);
  EXPECT_FALSE(runs[1].bug.has_value());
  EXPECT_EQ(runs[2].judgement.verdict, Verdict::Unsupported);
  EXPECT_EQ(runs[3].judgement.against, "noopt");
  EXPECT_EQ(runs[3].judgement.verdict, Verdict::DCF);
  EXPECT_EQ(casesMade, 1) << "one case serves every bundle of a test";
  EXPECT_TRUE(fs::exists(fs::path(runs[0].bug->bundle) / "repro.py"));
  EXPECT_TRUE(fs::exists(fs::path(runs[3].bug->bundle) / "actual" / "noopt" / "output_0.pb"));
  EXPECT_NE(runs[0].bug->bundle, runs[3].bug->bundle);

  test.index = 1;
  runs = recordFindings(store, oracle, context, test, outcomes, &reference, makeCase);
  EXPECT_FALSE(runs[0].bug->isNew);
  EXPECT_EQ(runs[0].bug->count, 2u);
  EXPECT_EQ(casesMade, 1) << "known bugs need no new bundle";
  EXPECT_EQ(store.bugs().size(), 2u);
  EXPECT_EQ(store.testCount(), 2);
  const auto counts = store.sutCounts();
  EXPECT_EQ(counts.at("onnxruntime/opt").bugs, 2);
  EXPECT_EQ(counts.at("onnxruntime/noopt").pass, 2);
  EXPECT_EQ(counts.at("tvm/opt").unsupported, 2);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nnfuzz
