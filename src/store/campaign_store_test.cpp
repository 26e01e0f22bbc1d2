// campaign_store_test.cpp - the campaign database: records, resume, and no recorded finding
// lost when the writing process is killed with SIGKILL in the middle of its writes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <set>

#include "store/campaign_store.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

namespace fs = std::filesystem;

Signature bugSignature(int k) {
  Signature s;
  s.backend = "onnxruntime";
  s.mode = k % 2 ? "opt" : "noopt";
  s.against = "reference";
  s.phase = "run";
  s.verdict = "if";
  s.symptom = "error";
  s.errorType = "Fail";
  s.message = "failure number " + std::to_string(k);
  return s;
}

Judgement bugJudgement() {
  Judgement j;
  j.verdict = Verdict::IF;
  j.reason = "run failed";
  return j;
}

TestRecord test(int64_t index) {
  TestRecord t;
  t.index = index;
  t.seed = 1000 + static_cast<uint64_t>(index);
  t.generator = "isra";
  t.opTypes = {"Conv", "Relu", "Add"};
  return t;
}

ResultRecord result(std::string mode, std::string against, Verdict verdict) {
  ResultRecord r;
  r.backend = "onnxruntime";
  r.mode = std::move(mode);
  r.against = std::move(against);
  r.verdict = verdict;
  r.status = verdict == Verdict::Pass || verdict == Verdict::DCF ? RunStatus::Ok : RunStatus::RunError;
  return r;
}

// opt judged `opt`, noopt unsupported, and opt vs noopt a DCF (mode-vs-mode rows are not
// counted per SUT).
std::vector<ResultRecord> results(Verdict opt) {
  return {result("opt", "reference", opt), result("noopt", "reference", Verdict::Unsupported),
          result("opt", "noopt", Verdict::DCF)};
}

class Store : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("nnfuzz_store_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
};

TEST_F(Store, RecordsAndResumes) {
  const fs::path db = dir / "campaign.db";
  {
    CampaignStore store(db, {{"generator", "isra"}, {"seed", 7}}, {{"onnxruntime", "1.31.1"}});
    EXPECT_FALSE(store.resumed());
    EXPECT_EQ(store.nextTestIndex(), 0);
    store.recordTest(test(0), results(Verdict::Pass));
    store.recordTest(test(1), results(Verdict::IF));
    store.recordTest(test(3), results(Verdict::Pass));  // 2 was in flight
    int bundles = 0;
    auto bundle = [&] {
      ++bundles;
      return dir / "bugs" / "b";
    };
    BugUpdate u = store.recordBug(bugSignature(1), bugJudgement(), 1, bundle);
    EXPECT_TRUE(u.isNew);
    EXPECT_EQ(u.count, 1u);
    u = store.recordBug(bugSignature(1), bugJudgement(), 3, bundle);
    EXPECT_FALSE(u.isNew);
    EXPECT_EQ(u.count, 2u);
    EXPECT_EQ(u.bundle, (dir / "bugs" / "b").string());
    EXPECT_EQ(bundles, 1) << "a known bug's bundle is not written again";
    store.recordStats({12.5, 4, 0.32, 1, {{"onnxruntime/opt", {3, 0, 1, 0}}}});
  }
  CampaignStore store(db, {{"generator", "other"}}, {{"onnxruntime", "1.32.0"}});
  EXPECT_TRUE(store.resumed());
  EXPECT_EQ(store.config()["seed"], 7) << "the campaign keeps its first config";
  EXPECT_EQ(store.nextTestIndex(), 4);
  EXPECT_EQ(store.missingTests(), std::vector<int64_t>{2});
  EXPECT_EQ(store.testCount(), 3);
  const auto bugs = store.bugs();
  ASSERT_EQ(bugs.size(), 1u);
  EXPECT_EQ(bugs[0].signature, bugSignature(1));
  EXPECT_EQ(bugs[0].hash, bugSignature(1).hash());
  EXPECT_EQ(bugs[0].count, 2u);
  EXPECT_EQ(bugs[0].exampleTest, 1);
  EXPECT_LE(bugs[0].firstSeen, bugs[0].lastSeen);
  const auto counts = store.sutCounts();
  EXPECT_EQ(counts.at("onnxruntime/opt").pass, 2);
  EXPECT_EQ(counts.at("onnxruntime/opt").bugs, 1);
  EXPECT_EQ(counts.at("onnxruntime/noopt").unsupported, 3);
}

TEST_F(Store, RejectsAFileThatIsNotADatabase) {
  const fs::path bogus = dir / "bogus.db";
  FILE* f = std::fopen(bogus.c_str(), "w");
  std::fputs("this is not sqlite, just some text long enough to be a header ........................", f);
  std::fclose(f);
  EXPECT_THROW(CampaignStore(bogus, {}, {}), Error);
}

// A child records tests and bugs as fast as it can and tells the parent, through a pipe, each
// record it has committed; the parent kills it with SIGKILL mid-stream. Everything the child had
// acknowledged must be in the database afterwards, with its bundle.
TEST_F(Store, NothingRecordedIsLostToKillMinus9) {
  const fs::path db = dir / "campaign.db";
  const fs::path bugs = dir / "bugs";
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    try {
      CampaignStore store(db, {{"seed", 1}}, {});
      for (int64_t i = 0;; ++i) {
        store.recordTest(test(i), results(i % 3 ? Verdict::Pass : Verdict::IF));
        int64_t ack = i;
        if (i % 3 == 0) {
          store.recordBug(bugSignature(static_cast<int>(i)), bugJudgement(), i, [&] {
            // A bundle written as writeBundle does: temp folder, then rename.
            const fs::path temp = bugs / (".b" + std::to_string(i) + ".partial");
            fs::create_directories(temp);
            FILE* f = std::fopen((temp / "meta.json").c_str(), "w");
            std::fputs("{}", f);
            std::fclose(f);
            fs::rename(temp, bugs / ("b" + std::to_string(i)));
            return bugs / ("b" + std::to_string(i));
          });
          ack = -i - 1;  // negative: test and bug committed
        }
        if (::write(fds[1], &ack, sizeof ack) != sizeof ack) ::_exit(3);
      }
    } catch (...) {
      ::_exit(2);
    }
  }
  ::close(fds[1]);
  std::set<int64_t> tests, bugsAcked;
  int64_t ack;
  while (tests.size() < 300 && ::read(fds[0], &ack, sizeof ack) == sizeof ack) {
    const int64_t i = ack < 0 ? -ack - 1 : ack;
    tests.insert(i);
    if (ack < 0) bugsAcked.insert(i);
  }
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(fds[0]);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the child must have died by SIGKILL";
  ASSERT_EQ(tests.size(), 300u);

  CampaignStore store(db, {}, {});
  EXPECT_TRUE(store.resumed());
  EXPECT_GE(store.nextTestIndex(), 300);
  EXPECT_TRUE(store.missingTests().empty());  // one writer, in order: no gaps
  EXPECT_GE(store.testCount(), 300);
  std::set<int64_t> stored;
  for (const auto& b : store.bugs()) {
    stored.insert(b.exampleTest);
    EXPECT_TRUE(fs::exists(fs::path(b.bundle) / "meta.json")) << "a bug row points to a whole bundle: " << b.bundle;
  }
  for (int64_t i : bugsAcked) EXPECT_TRUE(stored.count(i)) << "bug of test " << i << " was lost";
  // The campaign goes on where it stopped.
  store.recordTest(test(store.nextTestIndex()), results(Verdict::Pass));
}

}  // namespace
}  // namespace nnfuzz
