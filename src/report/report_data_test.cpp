// report_data_test.cpp - the report's data from a real campaign database made with the store
// API (tests, judgements, bugs with bundles, coverage rows, kept models); a report read while
// the campaign writes; an old campaign without coverage rows; the HTML page's parts.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include <fmt/core.h>

#include "interp/interpreter.h"
#include "onnx/tensor_proto.h"
#include "report/html_report.h"
#include "report/report_data.h"
#include "store/bundle.h"
#include "support/error.h"

namespace nnfuzz::report {
namespace {

namespace fs = std::filesystem;

const char* const kKeptModels[] = {
    "graph {\n  %0 = input f32[2,3]\n  %1 = Relu(%0) : f32[2,3]\n  return %1\n}\n",
    "graph {\n  %0 = input f32[2,3]\n  %1 = Sigmoid(%0) : f32[2,3]\n  %2 = Add(%1, %0) : f32[2,3]\n  return %2\n}\n",
};

TestRecord test(int64_t index) {
  TestRecord t;
  t.index = index;
  t.seed = 100 + static_cast<uint64_t>(index);
  t.generator = "isra";
  t.opTypes = {"Relu"};
  return t;
}

ResultRecord result(const std::string& mode, const std::string& against, Verdict v, const std::string& bug = "") {
  ResultRecord r;
  r.backend = "onnxruntime";
  r.mode = mode;
  r.against = against;
  r.verdict = v;
  r.bugHash = bug;
  return r;
}

class CampaignReport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("nnfuzz_report_" + std::to_string(::getpid()));
    fs::remove_all(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  /// A DCF of Relu in mode opt, bundled for real.
  std::pair<Signature, BundleFinding> reluBug() const {
    const Graph g = parseGraph(kKeptModels[0]);
    const std::vector<Tensor> in = {Tensor({DType::Float32, {2, 3}}, {1, -1, 2, -2, 3, -3})};
    RunOutcome o;
    o.backend = "onnxruntime";
    o.mode = "opt";
    o.version = "1.31.1";
    o.status = RunStatus::Ok;
    o.outputs = runGraph(g, in);
    o.outputs[0].data[1] = 5;
    BundleFinding f;
    f.judgement = Oracle().judge(o, runGraph(g, in));
    f.signature = makeSignature(f.judgement, o, {"Relu"});
    f.outcome = o;
    f.versions = {{"onnxruntime", "1.31.1"}};
    return {f.signature, f};
  }

  /// Six tests: every opt run a DCF of one bug, test 3's noopt an error (a second bug).
  void makeCampaign(bool withCoverageRows) {
    CampaignStore store(dir / "campaign.db", {{"generator", "isra"}}, {{"onnxruntime", "1.31.1"}});
    auto [dcf, finding] = reluBug();
    Signature error = dcf;
    error.mode = "noopt";
    error.verdict = "if";
    error.symptom = "error";
    error.errorType = "Fail";
    error.message = "node <n> failed";
    error.opTypes.clear();
    Judgement j;
    j.reason = "wrong output";
    const Graph g = parseGraph(kKeptModels[0]);
    for (int64_t i = 0; i < 6; ++i) {
      store.recordBug(dcf, j, i, [&] {
        return writeBundle(dir / "bugs", bundleCase(g, {Tensor({DType::Float32, {2, 3}}, {1, -1, 2, -2, 3, -3})},
                                                    finding.outcome.outputs, {{"seed", 1}}), finding);
      });
      std::vector<ResultRecord> results = {result("opt", "reference", Verdict::DCF, dcf.hash()),
                                           result("noopt", "reference", Verdict::Pass),
                                           result("opt", "noopt", Verdict::DCF, dcf.hash())};
      if (i == 3) {
        store.recordBug(error, j, i, {});
        results[1] = result("noopt", "reference", Verdict::IF, error.hash());
      }
      store.recordTest(test(i), results);
      if (i < 2) writeFileBytes(dir / "corpus" / fmt::format("{:06}.ir", i), kKeptModels[i]);
      if (withCoverageRows) store.recordCoverage({0.1 * double(i), i + 1, {{"luo.olc", 0.1 * double(i + 1)}}});
    }
  }

  fs::path dir;
};

TEST_F(CampaignReport, FromARealCampaign) {
  fs::create_directories(dir / "corpus");
  makeCampaign(true);
  const ReportData r = collectReport(dir, {.drawModels = false});
  EXPECT_EQ(r.tests, 6);
  EXPECT_EQ(r.sessions, 1u);
  EXPECT_EQ(r.versions["onnxruntime"], "1.31.1");
  ASSERT_EQ(r.testsOverTime.size(), 7u);  // every test, then the last again
  EXPECT_EQ(r.testsOverTime.back().value, 6);
  EXPECT_EQ(r.bugsOverTime.back().value, 2);

  // Outcomes: against the reference first, then mode vs mode.
  ASSERT_EQ(r.outcomes.size(), 3u);
  EXPECT_EQ(r.outcomes[0].mode, "noopt");
  EXPECT_EQ(r.outcomes[0].verdicts.at("pass"), 5);
  EXPECT_EQ(r.outcomes[0].verdicts.at("if"), 1);
  EXPECT_EQ(r.outcomes[1].mode, "opt");
  EXPECT_EQ(r.outcomes[1].verdicts.at("dcf"), 6);
  EXPECT_EQ(r.outcomes[2].against, "noopt");
  EXPECT_EQ(r.outcomes[2].total, 6);

  // Bugs: first seen first, with their bundle, IR, repro command and every judgement that hit them.
  ASSERT_EQ(r.bugs.size(), 2u);
  const BugEntry& relu = r.bugs[0];
  EXPECT_EQ(relu.rootCause, "wrong result: Relu");
  EXPECT_EQ(relu.row.bug.count, 6u);
  EXPECT_EQ(relu.version, "1.31.1");
  EXPECT_EQ(relu.row.seenIn, (std::vector<std::string>{"opt", "opt vs noopt"}));
  ASSERT_FALSE(relu.bundleDir.empty());
  EXPECT_TRUE(fs::exists(relu.bundleDir / "README.md"));
  EXPECT_NE(relu.modelIr.find("Relu"), std::string::npos);
  EXPECT_EQ(relu.reproCommand, "cd bugs/" + relu.bundleDir.filename().string() + " && python3 repro.py");
  EXPECT_EQ(r.bugs[1].rootCause, "error Fail: node <n> failed");
  EXPECT_TRUE(r.bugs[1].bundleDir.empty());  // recorded without a bundle

  // The optimizer pass the reducer named, when there is one, joins the root cause's name.
  auto meta = nlohmann::json::parse(readFileBytes(relu.bundleDir / "meta.json"));
  meta["case"]["reduced"]["culprit_passes"] = {"FuseReluClip"};
  writeFileBytes(relu.bundleDir / "meta.json", meta.dump());
  EXPECT_EQ(collectReport(dir, {.drawModels = false}).bugs[0].rootCause, "wrong result: Relu [pass: FuseReluClip]");

  // Luo's coverage from the campaign's rows; Isra's (not recorded) from the two kept models.
  EXPECT_EQ(r.luo.source, "recorded by the campaign (6 rows)");
  EXPECT_DOUBLE_EQ(r.luo.metrics.at("olc").back(), 0.6);
  ASSERT_EQ(r.isra.minutes.size(), 3u);  // two kept models, then flat to the last test
  EXPECT_NE(r.isra.source.find("2 kept models"), std::string::npos);
  EXPECT_GT(r.isra.metrics.at("otc")[1], r.isra.metrics.at("otc")[0]);  // Sigmoid and Add are new types
  EXPECT_EQ(r.isra.tests[0], 1);
  EXPECT_EQ(r.isra.tests.back(), 6);

  // Bugs by name or hash prefix.
  const auto bugs = CampaignReader(dir / "campaign.db").bugs();
  EXPECT_EQ(&findBug(bugs, relu.row.bug.hash.substr(0, 6)), &bugs[0]);
  EXPECT_EQ(&findBug(bugs, relu.bundleDir.filename().string()), &bugs[0]);
  EXPECT_THROW(findBug(bugs, "ffffffffffffff"), Error);
  EXPECT_THROW(findBug(bugs, "abc"), Error);  // too short to be a hash prefix
}

TEST_F(CampaignReport, AnOldCampaignGetsCoverageFromItsKeptModels) {
  fs::create_directories(dir / "corpus");
  makeCampaign(false);
  sqlite3* db = nullptr;  // as a campaign made before the coverage table existed
  ASSERT_EQ(sqlite3_open((dir / "campaign.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DROP TABLE coverage", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  const ReportData r = collectReport(dir, {.drawModels = false});
  ASSERT_EQ(r.luo.minutes.size(), 3u);
  EXPECT_NE(r.luo.source.find("computed from the 2 kept models"), std::string::npos);
  EXPECT_GT(r.luo.metrics.at("olc")[1], r.luo.metrics.at("olc")[0]);
  EXPECT_EQ(r.luo.metrics.at("olc")[2], r.luo.metrics.at("olc")[1]);
}

TEST_F(CampaignReport, ReadsWhileTheCampaignWrites) {
  fs::create_directories(dir);
  CampaignStore store(dir / "campaign.db", {}, {});
  std::atomic<bool> stop{false};
  std::atomic<int64_t> written{0};
  std::thread writer([&] {
    for (int64_t i = 0; !stop && i < 100000; ++i) {
      store.recordTest(test(i), {result("opt", "reference", Verdict::Pass), result("noopt", "reference", Verdict::Pass)});
      written = i + 1;
    }
  });
  int64_t last = 0;
  int reads = 0;
  while (written < 400) {
    const CampaignReader reader(dir / "campaign.db");
    const CampaignSnapshot snap = reader.snapshot();
    const auto n = static_cast<int64_t>(snap.tests.size());
    EXPECT_GE(n, last) << "a later read saw fewer tests";
    int64_t results = 0;
    for (const auto& o : snap.outcomes) results += o.count;
    EXPECT_EQ(results, 2 * n) << "a read saw a test without its judgements";
    last = n;
    ++reads;
  }
  stop = true;
  writer.join();
  EXPECT_GT(reads, 1);
  EXPECT_EQ(collectReport(dir, {.drawModels = false}).tests, written.load());
}

TEST_F(CampaignReport, NotACampaign) {
  EXPECT_THROW(collectReport(dir), Error);
  fs::create_directories(dir);
  writeFileBytes(dir / "campaign.db", "not a database");
  EXPECT_THROW(collectReport(dir), Error);
}

TEST_F(CampaignReport, ThePageHoldsChartsDataAndRelativeLinks) {
  fs::create_directories(dir / "corpus");
  makeCampaign(true);
  const ReportData r = collectReport(dir, {.drawModels = false});
  const std::string html = renderHtml(r, "window.Chart = function () {};", dir);
  for (const char* id : {"chart-throughput", "chart-bugs", "chart-luo", "chart-isra"})
    EXPECT_NE(html.find(std::string("<canvas id=\"") + id + "\">"), std::string::npos) << id;
  EXPECT_NE(html.find("id=\"report-data\""), std::string::npos);
  EXPECT_NE(html.find("window.Chart = function () {};"), std::string::npos);
  const std::string bundle = r.bugs[0].bundleDir.filename().string();
  EXPECT_NE(html.find("<a href=\"bugs/" + bundle + "/README.md\">"), std::string::npos);
  // Written elsewhere, the links climb back to the campaign.
  const std::string away = renderHtml(r, "", dir / "reports" / "today");
  EXPECT_NE(away.find("<a href=\"../../bugs/" + bundle + "/\">"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos) << "the page must not need the network";
}

}  // namespace
}  // namespace nnfuzz::report
