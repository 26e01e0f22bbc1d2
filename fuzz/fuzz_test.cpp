// fuzz_test.cpp - every fuzz target on its seeds and on deterministic mutants of them: the
// bounded run CI makes of each (under ASan/UBSan too). scripts/fuzz.sh runs libFuzzer.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include "fuzz/targets.h"

namespace nnfuzz::fuzz {
namespace {

// Mutants per target: 4000 in the normal build, scaled by NNFUZZ_TEST_SCALE (0.1 under ASan).
int mutantCount() {
  const char* scale = std::getenv("NNFUZZ_TEST_SCALE");
  return static_cast<int>(4000 * (scale ? std::atof(scale) : 1.0));
}

void runTarget(const std::function<void(std::string_view)>& target, const std::vector<std::string>& seeds) {
  ASSERT_FALSE(seeds.empty());
  for (const std::string& s : seeds) target(s);
  const int n = mutantCount();
  for (int i = 0; i < n; ++i) target(mutate(seeds[static_cast<size_t>(i) % seeds.size()], static_cast<uint64_t>(i)));
}

TEST(FuzzTargets, OnnxModel) { runTarget(onnxModel, onnxModelSeeds(20)); }
TEST(FuzzTargets, IrText) { runTarget(irText, irTextSeeds(20)); }
TEST(FuzzTargets, ConfigJson) { runTarget(configJson, configJsonSeeds()); }
TEST(FuzzTargets, WorkerReply) { runTarget(workerReply, workerReplySeeds()); }

// Inputs libFuzzer once crashed a target with (fuzz/regressions/TARGET/), kept as they were.
TEST(FuzzTargets, EarlierCrashesStayFixed) {
  const std::filesystem::path dir = std::filesystem::path(NNFUZZ_SOURCE_DIR) / "fuzz" / "regressions" / "onnx_model";
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(bytes.empty()) << entry.path();
    onnxModel(bytes);
    ++n;
  }
  EXPECT_GE(n, 2);
}

TEST(FuzzTargets, MutantsDifferFromTheirSeedAndAreReproducible) {
  const std::string seed = workerReplySeeds()[1];
  int changed = 0;
  for (uint64_t i = 0; i < 100; ++i) {
    EXPECT_EQ(mutate(seed, i), mutate(seed, i));
    changed += mutate(seed, i) != seed;
  }
  EXPECT_GT(changed, 90);
}

}  // namespace
}  // namespace nnfuzz::fuzz
