// onnxruntime_worker_test.cpp - the real ONNX Runtime worker through the Worker class:
// generated cases come back equal to the reference in both modes.
//
// Needs the project's Python environment (scripts/setup.sh makes .venv with onnxruntime);
// it fails, rather than skips, without it, because the campaign needs it too.
#include <unistd.h>

#include <gtest/gtest.h>

#include "gen/generator.h"
#include "interp/interpreter.h"
#include "onnx/case_folder.h"
#include "onnx/compare.h"
#include "run/backends.h"

namespace nnfuzz {
namespace {

namespace fs = std::filesystem;

TEST(OnnxRuntimeWorker, GeneratedCasesMatchTheReferenceInBothModes) {
  const BackendDef* ort = nullptr;
  std::vector<BackendDef> backends = builtinBackends(defaultBackendPaths());
  ASSERT_NE(ort = findBackend(backends, "onnxruntime"), nullptr);
  BackendInfo info = probe(*ort);
  ASSERT_TRUE(info.installed) << info.problem << " (run scripts/setup.sh)";

  fs::path root = fs::temp_directory_path() / ("nnfuzz-ort-test-" + std::to_string(getpid()));
  fs::remove_all(root);
  GenConfig config = defaultConfig();
  config.seed = 11;
  config.minOps = 1;
  config.maxOps = 12;
  const int cases = 15;
  std::vector<GeneratedCase> generated;
  for (int i = 0; i < cases; ++i) {
    generated.push_back(generateCase(config, static_cast<uint64_t>(i)));
    const GeneratedCase& c = generated.back();
    // Both layouts: a protocol-2 worker reads the packed one as it is.
    writeCase(root / std::to_string(i), c.graph, c.inputs, c.outputs, nlohmann::json::object(), config.opset,
              i % 2 ? CaseLayout::Onnx : CaseLayout::Packed);
  }
  for (const std::string mode : {"opt", "noopt"}) {
    Worker worker(workerSpec(*ort, mode));
    for (int i = 0; i < cases; ++i) {
      RunOutcome o = worker.runCase(root / std::to_string(i));
      ASSERT_EQ(o.status, RunStatus::Ok) << mode << " case " << i << ": " << o.message << "\n" << o.stderrTail;
      EXPECT_EQ(o.version, info.version);
      ASSERT_EQ(o.outputs.size(), generated[i].outputs.size());
      for (size_t k = 0; k < o.outputs.size(); ++k) {
        CompareResult r = compareTensors(o.outputs[k], generated[i].outputs[k], Tolerance{1e-2, 1e-3});
        EXPECT_TRUE(r.ok) << mode << " case " << i << " output " << k << ": " << r.problem;
      }
      EXPECT_GT(o.prepareSeconds, 0);
      EXPECT_GE(o.wallSeconds, o.prepareSeconds + o.runSeconds);
    }
    EXPECT_EQ(worker.starts(), 1);
    EXPECT_EQ(worker.hello().protocol, 2);
  }
  fs::remove_all(root);
}

// ORT 1.31's FuseReluClip rule assumes a float Clip: a double one fails session creation
// with optimisations on. Switching that one rule off by name (hello's "passes") runs it.
TEST(OnnxRuntimeWorker, OptModeSwitchesOffANamedPass) {
  std::vector<BackendDef> backends = builtinBackends(defaultBackendPaths());
  const BackendDef* ort = findBackend(backends, "onnxruntime");
  ASSERT_NE(ort, nullptr);
  const Graph g = parseGraph(R"(graph {
  %0 = input f64[3]
  %1 = weight f64[] [0.0]
  %2 = weight f64[] [1.5]
  %3 = Relu(%0) : f64[3]
  %4 = Clip(%3, %1, %2) : f64[3]
  return %4
})");
  const std::vector<Tensor> inputs{Tensor({DType::Float64, {3}}, {-1.0, 0.5, 2.0})};
  const fs::path dir = fs::temp_directory_path() / ("nnfuzz-ort-pass-" + std::to_string(getpid()));
  writeCase(dir, g, inputs, runGraph(g, inputs), nlohmann::json::object(), 17);
  Worker opt(workerSpec(*ort, "opt"));
  const RunOutcome failing = opt.runCase(dir);
  ASSERT_EQ(failing.status, RunStatus::PrepareError) << failing.message;
  EXPECT_NE(failing.message.find("relu_clip_fusion"), std::string::npos) << failing.message;
  const auto& passes = opt.hello().passes;
  EXPECT_NE(std::find(passes.begin(), passes.end(), "FuseReluClip"), passes.end());
  const RunOutcome fixed = opt.runCase(dir, {"FuseReluClip"});
  ASSERT_EQ(fixed.status, RunStatus::Ok) << fixed.message;
  ASSERT_EQ(fixed.outputs.size(), 1u);
  EXPECT_EQ(fixed.outputs[0].data, (std::vector<double>{0.0, 0.5, 1.5}));
  Worker noopt(workerSpec(*ort, "noopt"));
  EXPECT_EQ(noopt.runCase(dir).status, RunStatus::Ok);
  EXPECT_TRUE(noopt.hello().passes.empty());  // nothing to switch off there
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nnfuzz
