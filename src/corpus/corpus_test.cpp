// corpus_test.cpp - the regression corpus: a real SQLite file, tier 1 and 2 contents checked
// against the reference, tier 3 import from a bundle folder, and the regression view.
#include <gtest/gtest.h>

#include <fstream>
#include <unistd.h>

#include "corpus/classic_nets.h"
#include "corpus/corpus_db.h"
#include "corpus/replay.h"
#include "corpus/tiers.h"
#include "interp/interpreter.h"
#include "onnx/case_folder.h"
#include "ops/infer_node.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("nnfuzz-corpus-test-" + std::to_string(::getpid()) + "-" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() { fs::remove_all(path), fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

bool hasOp(const Graph& g, const std::string& op, const char* attr = nullptr) {
  for (NodeId id : g.nodes())
    if (g.node(id).op == op && (!attr || g.node(id).attrs.has(attr))) return true;
  return false;
}

TEST(Corpus, ClassicNetworksVerifyAndTheirOutputsAreTheReference) {
  const std::vector<BuiltNet> nets = classicNets(3);
  ASSERT_EQ(nets.size(), classicNetNames().size());
  for (const BuiltNet& net : nets) {
    SCOPED_TRACE(net.name);
    EXPECT_EQ(verifyGraph(net.graph), std::nullopt);
    const std::vector<Tensor> rerun = runGraph(net.graph, net.inputs);
    ASSERT_EQ(rerun.size(), net.outputs.size());
    for (size_t i = 0; i < rerun.size(); ++i) {
      EXPECT_EQ(rerun[i], net.outputs[i]);
      EXPECT_TRUE(allFinite(rerun[i]));
    }
  }
  auto net = [&](const std::string& name) -> const Graph& {
    for (const BuiltNet& n : nets)
      if (n.name == name) return n.graph;
    throw std::runtime_error("no " + name);
  };
  EXPECT_TRUE(hasOp(net("AlexNet"), "LRN"));
  EXPECT_TRUE(hasOp(net("MobileNet-v1 blocks"), "Conv", "group"));  // depthwise
  EXPECT_TRUE(hasOp(net("MobileNet-v2 blocks"), "Clip"));           // ReLU6
  EXPECT_TRUE(hasOp(net("ResNet-18 stage"), "Add"));
  EXPECT_TRUE(hasOp(net("SSD head"), "Concat"));
  EXPECT_EQ(net("SSD head").outputs().size(), 2u);
  EXPECT_TRUE(hasOp(net("Inception block"), "MaxPool"));
}

TEST(Corpus, TiersFillAndListInReplayOrder) {
  TempDir dir;
  CorpusDb db(dir.path / "corpus.db");
  const int ops = fillOperatorTier(db, 1);
  EXPECT_GE(ops, 140);
  EXPECT_EQ(fillNetworkTier(db, 1), static_cast<int>(classicNetNames().size()));
  EXPECT_EQ(fillOperatorTier(db, 2), ops);  // regenerated, not doubled
  // A bug bundle's case folder, as a campaign writes it.
  const BuiltNet lenet = classicNets(1).front();
  const fs::path bundle = dir.path / "campaign" / "bugs" / "onnxruntime-opt-dcf-12345678";
  writeCase(bundle, lenet.graph, lenet.inputs, lenet.outputs, nlohmann::json::object());
  std::ofstream(bundle / "meta.json") << R"({"backend": "onnxruntime", "mode": "opt", "against": "reference",
      "class": "dcf", "versions": {"onnxruntime": "1.31.1"}})";
  EXPECT_EQ(importCampaignBugs(db, dir.path / "campaign"), 1);
  EXPECT_EQ(importCampaignBugs(db, dir.path / "campaign"), 0);  // already there

  const std::vector<CorpusEntry> all = db.entries();
  ASSERT_EQ(all.size(), static_cast<size_t>(ops) + classicNetNames().size() + 1);
  EXPECT_EQ(all.front().tier, 3);
  EXPECT_EQ(all.front().sut, "onnxruntime");
  EXPECT_EQ(all.front().version, "1.31.1");
  EXPECT_EQ(all.front().verdict, "dcf opt");
  EXPECT_EQ(all[1].tier, 1);
  EXPECT_EQ(all.back().tier, 2);
  // Every tier 1 entry is one operator; every entry materialises as a valid case folder.
  for (const CorpusEntry& e : db.entries(1)) {
    const Graph g = parseGraph(e.ir);
    ASSERT_EQ(g.numNodes(), 1u) << e.name;
    EXPECT_EQ("op/" + g.node(g.nodes().front()).op, e.name);
  }
  for (const CorpusEntry& e : {all.front(), all[1], all.back()}) {
    const fs::path out = dir.path / ("case" + std::to_string(e.id));
    db.materialize(e.id, out);
    const CaseCheck check = checkCase(out);
    EXPECT_TRUE(check.ok) << e.name << ": " << check.problem;
  }
}

TEST(Corpus, RegressionViewComparesWithThePreviousReplay) {
  const std::vector<CorpusEntry> entries{{1, 1, "op/A", "onnx", "", "", "", "", "", 0},
                                         {2, 1, "op/B", "onnx", "", "", "", "", "", 0},
                                         {3, 2, "net/C", "onnx", "", "", "", "", "", 0}};
  auto r = [](int64_t entry, bool bug) { return ReplayResult{entry, "ort", "opt", "reference", bug ? "dcf" : "pass", bug, ""}; };
  const auto lines = regressions(entries, {r(1, true), r(2, true), r(3, false)}, {r(1, true), r(2, false), r(3, true)});
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].status, "still-failing");
  EXPECT_EQ(lines[0].entry, "tier 1 op/A");
  EXPECT_EQ(lines[1].status, "now-passing");
  EXPECT_EQ(lines[2].status, "newly-failing");
  // Without a previous replay every bug is new.
  EXPECT_EQ(regressions(entries, {}, {r(1, true)}).front().status, "newly-failing");
}

TEST(Corpus, ReplaysAreStoredPerSut) {
  TempDir dir;
  CorpusDb db(dir.path / "corpus.db");
  const int64_t first = db.startReplay("ort", "1.0");
  db.finishReplay(first, 1.5);
  const int64_t other = db.startReplay("opencv", "5.0");
  db.finishReplay(other, 1.0);
  const int64_t second = db.startReplay("ort", "1.1");
  const auto previous = db.previousReplay("ort", second);
  ASSERT_TRUE(previous);
  EXPECT_EQ(previous->id, first);
  EXPECT_EQ(previous->version, "1.0");
  EXPECT_FALSE(db.previousReplay("ort", first));
}

TEST(Corpus, AnUnwritableCorpusIsAOneLineError) {
  try {
    CorpusDb db("/proc/nope/corpus.db");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open corpus"), std::string::npos);
  }
}

}  // namespace
}  // namespace nnfuzz
