// golden_test_util.h - golden-text checks for the generator tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace nnfuzz {

/// Expects `text` to equal the file `relative` under the source tree; NNFUZZ_UPDATE_GOLDEN=1
/// rewrites the file instead, after an intended change of the generator.
inline void expectGoldenText(const std::string& text, const std::string& relative) {
  const std::string path = std::string(NNFUZZ_SOURCE_DIR) + "/" + relative;
  if (std::getenv("NNFUZZ_UPDATE_GOLDEN")) std::ofstream(path) << text;
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing " << path;
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(text, expected.str()) << relative;
}

}  // namespace nnfuzz
