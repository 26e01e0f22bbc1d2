// onnxruntime_worker_test.cpp - the real ONNX Runtime worker through the Worker class:
// generated cases come back equal to the reference in both modes.
//
// Needs the project's Python environment (scripts/setup.sh makes .venv with onnxruntime);
// it fails, rather than skips, without it, because the campaign needs it too.
#include <unistd.h>

#include <gtest/gtest.h>

#include "gen/generator.h"
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
    writeCase(root / std::to_string(i), c.graph, c.inputs, c.outputs, nlohmann::json::object(), config.opset);
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
  }
  fs::remove_all(root);
}

}  // namespace
}  // namespace nnfuzz
