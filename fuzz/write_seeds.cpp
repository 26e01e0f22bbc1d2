// write_seeds.cpp - writes each fuzz target's seed corpus: nnfuzz_fuzz_seeds DIR makes
// DIR/onnx_model, DIR/ir_text, DIR/config_json and DIR/worker_reply (scripts/fuzz.sh).
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "fuzz/targets.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: nnfuzz_fuzz_seeds DIR\n");
    return 2;
  }
  namespace fs = std::filesystem;
  using namespace nnfuzz::fuzz;
  const std::pair<const char*, std::vector<std::string>> sets[] = {{"onnx_model", onnxModelSeeds(200)},
                                                                    {"ir_text", irTextSeeds(200)},
                                                                    {"config_json", configJsonSeeds()},
                                                                    {"worker_reply", workerReplySeeds()}};
  for (const auto& [name, seeds] : sets) {
    const fs::path dir = fs::path(argv[1]) / name;
    fs::create_directories(dir);
    for (size_t i = 0; i < seeds.size(); ++i) std::ofstream(dir / ("seed_" + std::to_string(i)), std::ios::binary) << seeds[i];
  }
  return 0;
}
