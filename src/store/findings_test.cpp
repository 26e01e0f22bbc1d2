// findings_test.cpp - one test's runs judged, bundled and recorded; a known bug is counted,
// not bundled again.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "onnx/tensor_proto.h"
#include "store/findings.h"

namespace nnfuzz {
namespace {

namespace fs = std::filesystem;

RunOutcome ok(const std::string& backend, const std::string& mode, std::vector<Tensor> outputs) {
  RunOutcome o;
  o.backend = backend;
  o.mode = mode;
  o.status = RunStatus::Ok;
  o.outputs = std::move(outputs);
  return o;
}

RunOutcome prepareError(const std::string& backend, const std::string& mode, std::string message) {
  RunOutcome o;
  o.backend = backend;
  o.mode = mode;
  o.status = RunStatus::PrepareError;
  o.phase = "prepare";
  o.message = std::move(message);
  return o;
}

TEST(Findings, JudgeBundleAndRecordATest) {
  const fs::path dir = fs::temp_directory_path() / ("nnfuzz_findings_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const Graph graph = parseGraph("graph {\n  %0 = input f32[2]\n  %1 = Relu(%0) : f32[2]\n  return %1\n}\n");
  const std::vector<Tensor> inputs = {float32Tensor({1, -1})}, reference = {float32Tensor({1, 0})};
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
  const RunOutcome failed = prepareError("tvm", "opt", "The following operators are not supported for frontend ONNX: Relu");
  const std::vector<RunOutcome> outcomes = {ok("onnxruntime", "opt", {float32Tensor({1, 5})}),
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
  // opt against noopt shows the same wrong values as opt against the reference: one bug (fold.h).
  EXPECT_EQ(runs[0].bug->bundle, runs[3].bug->bundle);
  EXPECT_EQ(runs[0].bugHash, runs[3].bugHash);

  test.index = 1;
  runs = recordFindings(store, oracle, context, test, outcomes, &reference, makeCase);
  EXPECT_FALSE(runs[0].bug->isNew);
  EXPECT_EQ(runs[0].bug->count, 2u);
  EXPECT_EQ(casesMade, 1) << "known bugs need no new bundle";
  ASSERT_EQ(store.bugs().size(), 1u);
  EXPECT_EQ(store.bugs()[0].signature.modes, (std::vector<std::string>{"opt", "opt vs noopt"}));
  EXPECT_EQ(store.testCount(), 2);
  const auto counts = store.sutCounts();
  EXPECT_EQ(counts.at("onnxruntime/opt").bugs, 2);
  EXPECT_EQ(counts.at("onnxruntime/noopt").pass, 2);
  EXPECT_EQ(counts.at("tvm/opt").unsupported, 2);
  fs::remove_all(dir);
}

// A fresh campaign (store, oracle, bundle folder) per test.
class FindingsCampaign : public ::testing::Test {
 protected:
  const fs::path dir = fs::temp_directory_path() /
                       ("nnfuzz_findings_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                        "_" + std::to_string(::getpid()));
  const bool cleared = (fs::remove_all(dir), true);  // before the store opens its database there
  CampaignStore store{dir / "campaign.db", {}, {}};
  const Oracle oracle;
  BundleContext context;
  FindingsCampaign() { context.bugsDir = dir / "bugs"; }
  ~FindingsCampaign() override { fs::remove_all(dir); }

  // A reducer that always shrinks to `small` (Neg of one input), still wrong in its second value.
  FindingReducer reducerTo(const Graph& small, int* calls = nullptr) const {
    return [this, small, calls](const Judgement&, const RunOutcome& run, const Signature&) {
      if (calls) ++*calls;
      ReducedFinding r;
      r.bcase = bundleCase(small, {float32Tensor({1, 0})}, {float32Tensor({-1, 0})}, {{"reduced", {{"to_nodes", 1}}}});
      r.outcome = run;
      r.outcome.outputs = {float32Tensor({-1, 7})};
      r.judgement = oracle.judge(r.outcome, r.bcase.expected);
      return std::optional<ReducedFinding>(r);
    };
  }
};

const char* kSmallNeg = "graph {\n  %0 = input f32[2]\n  %1 = Neg(%0) : f32[2]\n  return %1\n}\n";

TEST_F(FindingsCampaign, EveryModeAndComparisonFailingAlikeIsOneBug) {
  const Graph graph = parseGraph("graph {\n  %0 = input f32[2]\n  %1 = Relu(%0) : f32[2]\n  return %1\n}\n");
  const std::vector<Tensor> inputs = {float32Tensor({1, -1})}, reference = {float32Tensor({1, 0})};
  auto makeCase = [&] { return bundleCase(graph, inputs, reference, {{"seed", 3}}); };
  TestRecord test;
  test.opTypes = {"Relu"};
  // Both modes wrong in the same way: one bug, of mode "any", seen in both modes.
  auto runs = recordFindings(store, oracle, context, test,
                             {ok("openvino", "opt", {float32Tensor({1, 5})}), ok("openvino", "noopt", {float32Tensor({1, 5})})},
                             &reference, makeCase);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].judgement.verdict, Verdict::DCF);
  EXPECT_EQ(runs[1].judgement.verdict, Verdict::DCF);
  EXPECT_EQ(runs[0].bugHash, runs[1].bugHash);
  EXPECT_EQ(runs[2].judgement.verdict, Verdict::Pass) << "the modes agree with each other";
  ASSERT_EQ(store.bugs().size(), 1u);
  EXPECT_EQ(store.bugs()[0].signature.mode, kAnyMode);
  EXPECT_EQ(store.bugs()[0].signature.modes, (std::vector<std::string>{"opt", "noopt"}));
  EXPECT_EQ(store.bugs()[0].count, 1u);
  EXPECT_NE(store.bugs()[0].bundle.find("openvino-any-dcf-"), std::string::npos);

  // Only opt wrong, against the reference and against noopt: the same wrong Relu, so the same bug.
  test.index = 1;
  runs = recordFindings(store, oracle, context, test,
                        {ok("openvino", "opt", {float32Tensor({1, 5})}), ok("openvino", "noopt", reference)}, &reference,
                        makeCase);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].bugHash, runs[2].bugHash);
  EXPECT_EQ(store.bugs().size(), 1u);
  EXPECT_EQ(store.bugs()[0].count, 2u);

  // Another output wrong is another signature (without a culprit to name it).
  test.index = 2;
  runs = recordFindings(store, oracle, context, test, {ok("openvino", "opt", {float32Tensor({1, 5})}), ok("tvm", "opt", {float32Tensor({1, 5})})},
                        &reference, makeCase);
  EXPECT_NE(runs[0].bugHash, runs[1].bugHash) << "another SUT is another bug";
  EXPECT_EQ(store.bugs().size(), 2u);
}

TEST_F(FindingsCampaign, AReducedFindingIsNamedAndBundledByItsSmallCase) {
  const Graph graph = parseGraph(
      "graph {\n  %0 = input f32[2]\n  %1 = Relu(%0) : f32[2]\n  %2 = Neg(%1) : f32[2]\n  return %2\n}\n");
  const Graph small = parseGraph(kSmallNeg);
  const std::vector<Tensor> inputs = {float32Tensor({1, -1})}, reference = {float32Tensor({-1, 0})};
  TestRecord test;
  test.opTypes = {"Neg", "Relu"};
  int reductions = 0;
  auto runs = recordFindings(store, oracle, context, test, {ok("ort", "opt", {float32Tensor({-1, 7})})}, &reference,
                             [&] { return bundleCase(graph, inputs, reference, {}); }, reducerTo(small, &reductions));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(reductions, 1);
  ASSERT_EQ(store.bugs().size(), 1u);
  EXPECT_EQ(store.bugs()[0].signature.opTypes, std::vector<std::string>{"Neg"}) << "the reduced case's operators";
  const fs::path bundle = runs[0].bug->bundle;
  EXPECT_TRUE(fs::exists(bundle / "original.onnx"));
  EXPECT_EQ(readFileBytes(bundle / "model.ir"), printGraph(small));
}

TEST_F(FindingsCampaign, ModesThatReduceToTheSameBugAreOneBug) {
  const Graph graph = parseGraph(
      "graph {\n  %0 = input f32[2]\n  %1 = Relu(%0) : f32[2]\n  %2 = Neg(%1) : f32[2]\n  return %2, %1\n}\n");
  const std::vector<Tensor> inputs = {float32Tensor({1, -1})}, reference = {float32Tensor({-1, 0}), float32Tensor({1, 0})};
  TestRecord test;
  test.opTypes = {"Neg", "Relu"};
  // opt is wrong in both outputs, noopt in the first only: different findings until reduced.
  const std::vector<RunOutcome> outcomes = {ok("ort", "opt", {float32Tensor({-1, 7}), float32Tensor({1, 7})}),
                                            ok("ort", "noopt", {float32Tensor({-1, 7}), float32Tensor({1, 0})})};
  auto runs = recordFindings(store, oracle, context, test, outcomes, &reference,
                             [&] { return bundleCase(graph, inputs, reference, {}); }, reducerTo(parseGraph(kSmallNeg)));
  EXPECT_EQ(runs[0].bugHash, runs[1].bugHash);
  ASSERT_GE(store.bugs().size(), 1u);
  EXPECT_EQ(store.bugs()[0].signature.mode, kAnyMode);
}

// openvino-any-mcf-ff60b727 of the three-SUT campaign: LayerNormalization fails to convert and
// so does its consumer; the reduction cuts the consumer, and the bug is the node that stays.
TEST_F(FindingsCampaign, AConversionFailureNarrowedByTheReductionIsNamedByTheNodeThatStays) {
  const Graph graph = parseGraph(
      "graph {\n  %0 = input f32[2]\n  %1 = Relu(%0) : f32[2]\n  %2 = Neg(%1) : f32[2]\n  return %2\n}\n");
  const std::vector<Tensor> inputs = {float32Tensor({1, -1})}, reference = {float32Tensor({-1, 0})};
  auto failing = [](const std::string& nodes) {
    return prepareError("openvino", "opt", "FrontEnd API failed with OpConversionFailure:\n-- Conversion is failed for: " + nodes);
  };
  auto reduceTo = [&](const std::string& nodes) -> FindingReducer {
    return [&, nodes](const Judgement&, const RunOutcome&, const Signature&) {
      ReducedFinding r;
      r.bcase = bundleCase(parseGraph(kSmallNeg), inputs, reference, {});
      r.outcome = failing(nodes);
      r.judgement = oracle.judge(r.outcome, reference);
      return std::optional<ReducedFinding>(r);
    };
  };
  TestRecord test;
  test.opTypes = {"Neg", "Relu"};
  auto makeCase = [&] { return bundleCase(graph, inputs, reference, {}); };
  auto runs = recordFindings(store, oracle, context, test, {failing("Neg-7, Relu-3")}, &reference, makeCase,
                             reduceTo("Relu-3"));
  ASSERT_EQ(store.bugs().size(), 1u);
  EXPECT_NE(store.bugs()[0].signature.message.find("Conversion is failed for: Relu-<n>"), std::string::npos);
  EXPECT_EQ(store.bugs()[0].signature.message.find("Neg"), std::string::npos) << store.bugs()[0].signature.message;
  // Another node after reduction is not a narrower list: the test's own words stand.
  test.index = 1;
  runs = recordFindings(store, oracle, context, test, {failing("Neg-7, Sigmoid-3")}, &reference, makeCase,
                        reduceTo("Tanh-3"));
  ASSERT_EQ(store.bugs().size(), 2u);
  EXPECT_NE(store.bugs()[1].signature.message.find("Neg-<n>, Sigmoid-<n>"), std::string::npos);
}

}  // namespace
}  // namespace nnfuzz

namespace nnfuzz {
namespace {

TEST(Findings, WithoutAReferenceOtherSutsAreJudgedAgainstTheFallbackRun) {
  const fs::path dir = fs::temp_directory_path() / ("nnfuzz_fallback_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const Graph graph = parseGraph("graph {\n  %0 = input f32[2]\n  %1 = Relu(%0) : f32[2]\n  return %1\n}\n");
  const std::vector<Tensor> inputs = {float32Tensor({1, -1})};
  auto makeCase = [&] { return bundleCase(graph, inputs, {float32Tensor({1, 0})}, {{"seed", 3}}); };
  CampaignStore store(dir / "campaign.db", {}, {});
  const Oracle oracle;  // fallback: onnxruntime:noopt
  BundleContext context;
  context.bugsDir = dir / "bugs";
  TestRecord test;
  test.opTypes = {"Relu"};
  const std::vector<RunOutcome> outcomes = {ok("onnxruntime", "noopt", {float32Tensor({1, 0})}),
                                            ok("openvino", "noopt", {float32Tensor({1, 0})}), ok("tvm", "noopt", {float32Tensor({1, 9})})};
  auto runs = recordFindings(store, oracle, context, test, outcomes, nullptr, makeCase);
  ASSERT_EQ(runs.size(), 5u);  // three without a reference, two against onnxruntime:noopt
  EXPECT_EQ(runs[3].judgement.against, "onnxruntime:noopt");
  EXPECT_EQ(runs[3].judgement.verdict, Verdict::Pass);
  EXPECT_EQ(runs[4].judgement.backend, "tvm");
  EXPECT_EQ(runs[4].judgement.verdict, Verdict::DCF);
  ASSERT_EQ(store.bugs().size(), 1u);
  const fs::path bundle = store.bugs()[0].bundle;
  EXPECT_TRUE(fs::exists(bundle / "actual" / "onnxruntime-noopt" / "output_0.pb")) << bundle;
  std::ifstream in(bundle / "meta.json");
  const auto meta = nlohmann::json::parse(in);
  EXPECT_NE(meta.at("expected_outputs").get<std::string>().find("onnxruntime:noopt"), std::string::npos);

  Oracle modesOnly;
  modesOnly.setFallbackReference("");
  EXPECT_EQ(recordFindings(store, modesOnly, context, test, outcomes, nullptr, makeCase).size(), 3u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nnfuzz
