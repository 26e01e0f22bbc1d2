// backends_test.cpp - backends.json parsing, placeholders, probing installed and missing SUTs.
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "run/backends.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

namespace fs = std::filesystem;

BackendDef def(std::string name, std::vector<std::string> command, std::vector<std::string> modes,
               std::string description = "") {
  BackendDef b;
  b.name = std::move(name);
  b.command = std::move(command);
  b.modes = std::move(modes);
  b.description = std::move(description);
  return b;
}

class BackendsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nnfuzz-backends-test-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    paths_.root = "/opt/nnfuzz";
    paths_.python = "/usr/bin/python3";
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& text) {
    fs::path file = dir_ / "backends.json";
    std::ofstream(file) << text;
    return file;
  }
  std::string loadError(const std::string& text) {
    try {
      loadBackends(write(text), paths_);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
  BackendPaths paths_;
};

TEST_F(BackendsTest, ExpandsPlaceholders) {
  auto backends = loadBackends(write(R"({"backends": [{"name": "mine", "command": ["{python}", "{root}/w.py", "{dir}/x"],
      "modes": ["a", "b"], "env": {"HOME_OF": "{root}"}}]})"),
                               paths_);
  ASSERT_EQ(backends.size(), 1u);
  EXPECT_EQ(backends[0].command, (std::vector<std::string>{"/usr/bin/python3", "/opt/nnfuzz/w.py", dir_.string() + "/x"}));
  EXPECT_EQ(backends[0].modes, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(backends[0].env.at(0).second, "/opt/nnfuzz");
}

TEST_F(BackendsTest, RejectsMalformedFilesWithOneLine) {
  EXPECT_NE(loadError("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(loadError(R"({"backends": [{"name": "a", "command": ["x"], "modes": ["m"], "colour": 1}]})")
                .find("backend 'a': unknown field 'colour'"),
            std::string::npos);
  EXPECT_NE(loadError(R"({"backends": [{"name": "a", "command": [], "modes": ["m"]}]})").find("command must be"),
            std::string::npos);
  EXPECT_NE(loadError(R"({"backends": [{"name": "a", "command": ["x"]}]})").find("modes is missing"),
            std::string::npos);
  EXPECT_NE(loadError(R"({"backends": [{"name": "a", "command": ["x"], "modes": ["m"]},
                                       {"name": "a", "command": ["y"], "modes": ["m"]}]})")
                .find("listed twice"),
            std::string::npos);
  EXPECT_NE(loadError(R"({"backend": []})").find("expected {\"backends\""), std::string::npos);
}

TEST_F(BackendsTest, ReadsTheEnginesOwnUnsupportedPatterns) {
  auto backends = loadBackends(write(R"({"backends": [{"name": "mine", "command": ["w"], "modes": ["a"],
      "unsupported": ["E42: op \\S+ is not in this release"]}]})"),
                               paths_);
  ASSERT_EQ(backends[0].unsupported, (std::vector<std::string>{"E42: op \\S+ is not in this release"}));
  EXPECT_NE(loadError(R"({"backends": [{"name": "a", "command": ["x"], "modes": ["m"], "unsupported": ["(unclosed"]}]})")
                .find("backend 'a': unsupported pattern '(unclosed' is not a regex"),
            std::string::npos);
  EXPECT_NE(loadError(R"({"backends": [{"name": "a", "command": ["x"], "modes": ["m"], "unsupported": "E42"}]})")
                .find("backend 'a': unsupported must be"),
            std::string::npos);
}

TEST_F(BackendsTest, CompareSaysWhetherTheReferenceJudgesTheBackend) {
  auto backends = loadBackends(write(R"({"backends": [{"name": "opt", "command": ["w"], "modes": ["a"], "compare": "modes"},
      {"name": "eng", "command": ["w"], "modes": ["a"]}]})"),
                               paths_);
  EXPECT_TRUE(backends[0].modesOnly);
  EXPECT_FALSE(backends[1].modesOnly);
  EXPECT_NE(loadError(R"({"backends": [{"name": "a", "command": ["x"], "modes": ["m"], "compare": "both"}]})")
                .find("backend 'a': compare must be \"reference\" or \"modes\""),
            std::string::npos);
}

TEST_F(BackendsTest, PerBackendLimitsOverrideTheCampaigns) {
  auto backends = loadBackends(write(R"({"backends": [{"name": "slow", "command": ["w"], "modes": ["a"],
      "limits": {"memory_gb": 16, "prepare_seconds": 600}}]})"),
                               paths_);
  WorkerLimits campaign;
  campaign.run = std::chrono::milliseconds(5000);
  const WorkerSpec spec = workerSpec(backends[0], "a", campaign);
  EXPECT_EQ(spec.limits.memoryBytes, uint64_t{16} << 30);
  EXPECT_EQ(spec.limits.prepare, std::chrono::milliseconds(600000));
  EXPECT_EQ(spec.limits.run, std::chrono::milliseconds(5000));  // not set: the campaign's
  EXPECT_NE(loadError(R"({"backends": [{"name": "a", "command": ["x"], "modes": ["m"], "limits": {"memory_gb": -1}}]})")
                .find("backend 'a': limits.memory_gb must be a positive number"),
            std::string::npos);
  EXPECT_NE(loadError(R"({"backends": [{"name": "a", "command": ["x"], "modes": ["m"], "limits": {"cpus": 2}}]})")
                .find("unknown limit 'cpus'"),
            std::string::npos);
}

TEST_F(BackendsTest, MergeReplacesByName) {
  std::vector<BackendDef> base = {def("a", {"x"}, {"m"}), def("b", {"y"}, {"m"})};
  mergeBackends(base, {def("b", {"z"}, {"m"}, "new"), def("c", {"w"}, {"m"})});
  ASSERT_EQ(base.size(), 3u);
  EXPECT_EQ(findBackend(base, "b")->command.front(), "z");
  EXPECT_NE(findBackend(base, "c"), nullptr);
  EXPECT_EQ(findBackend(base, "d"), nullptr);
}

TEST_F(BackendsTest, WorkerSpecChecksTheMode) {
  BackendDef b = def("a", {"x"}, {"opt", "noopt"});
  b.env = {{"K", "V"}};
  EXPECT_EQ(workerSpec(b, "noopt").command, b.command);
  EXPECT_EQ(workerSpec(b, "noopt").env, b.env);
  EXPECT_THROW(workerSpec(b, "fast"), Error);
}

TEST_F(BackendsTest, ProbeReportsInstalledAndMissingWithoutThrowing) {
  BackendDef fake = def("fake", {NNFUZZ_FAKE_WORKER}, {"ok"}, "test worker");
  BackendDef missing = def("missing", {"/nonexistent/worker"}, {"opt"});
  BackendDef notInstalled = def("absent", {NNFUZZ_FAKE_WORKER}, {"no-hello"});
  std::vector<BackendInfo> infos = probeAll({fake, missing, notInstalled});
  ASSERT_EQ(infos.size(), 3u);
  EXPECT_TRUE(infos[0].installed) << infos[0].problem;
  EXPECT_EQ(infos[0].version, "0.1");
  EXPECT_EQ(infos[0].modes, (std::vector<std::string>{"ok"}));  // the file's, of the hello's
  EXPECT_FALSE(infos[1].installed);
  EXPECT_NE(infos[1].problem.find("cannot run"), std::string::npos) << infos[1].problem;
  EXPECT_FALSE(infos[2].installed);
  EXPECT_NE(infos[2].problem.find("not installed"), std::string::npos) << infos[2].problem;
  BackendDef wrongModes = def("wrong", {NNFUZZ_FAKE_WORKER}, {"ok", "turbo"});
  const BackendInfo some = probe(wrongModes);
  EXPECT_TRUE(some.installed);
  EXPECT_EQ(some.modes, (std::vector<std::string>{"ok"}));
}

TEST_F(BackendsTest, BuiltinListNamesTheThreeSuts) {
  auto backends = builtinBackends(defaultBackendPaths());
  for (const char* name : {"onnxruntime", "openvino", "tvm"}) {
    const BackendDef* b = findBackend(backends, name);
    ASSERT_NE(b, nullptr) << name;
    EXPECT_EQ(b->modes, (std::vector<std::string>{"opt", "noopt"})) << name;
    EXPECT_TRUE(fs::exists(b->command.at(1))) << b->command.at(1);
  }
}

TEST_F(BackendsTest, BuiltinPytorchLeavesTimeToCompile) {
  // torch.compile compiles at a model's first run (up to ~30 s under load in campaign c11b)
  // and warms Inductor up before its hello: the campaign's 30 s run and 60 s start are too tight.
  const auto backends = builtinBackends(defaultBackendPaths());
  const BackendDef* b = findBackend(backends, "pytorch");
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->runSeconds && b->startSeconds);
  EXPECT_GE(*b->runSeconds, 120.0);
  EXPECT_GE(*b->startSeconds, 180.0);
}

}  // namespace
}  // namespace nnfuzz
