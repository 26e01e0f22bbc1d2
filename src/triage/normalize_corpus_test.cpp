// normalize_corpus_test.cpp - message normalisation against every distinct error message of the
// fixed triage corpus (testdata/messages.txt, labelled with docs/findings.md's root causes):
// one bug's messages normalise equal, and no two root causes' messages do.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "triage/normalize.h"

namespace nnfuzz {
namespace {

struct Labelled {
  std::string root, source, normalized;
};

std::vector<Labelled> corpus() {
  std::ifstream in(std::string(NNFUZZ_SOURCE_DIR) + "/src/triage/testdata/messages.txt");
  std::vector<Labelled> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto j = nlohmann::json::parse(line);
    out.push_back({j.at("root"), j.at("source"), normalizeMessage(j.at("message").get<std::string>())});
  }
  return out;
}

// Expected rejections are labelled by what they reject; their wording varies with the model
// (operand names, quoted types), and they are never signatures, so only "differ" is asked of them.
bool isRejection(const Labelled& m) { return m.root.find(" unsupported: ") != std::string::npos; }

TEST(NormalizeCorpus, OneRootCauseOneTextAndNoTwoRootCausesMerged) {
  const auto messages = corpus();
  ASSERT_GE(messages.size(), 10u);
  size_t samePairs = 0;
  for (size_t a = 0; a < messages.size(); ++a) {
    for (size_t b = a + 1; b < messages.size(); ++b) {
      const Labelled &x = messages[a], &y = messages[b];
      if (x.root == y.root) {
        if (isRejection(x)) continue;
        ++samePairs;
        EXPECT_EQ(x.normalized, y.normalized) << x.root << ": " << x.source << " vs " << y.source;
      } else {
        EXPECT_NE(x.normalized, y.normalized) << x.root << " vs " << y.root;
      }
    }
  }
  EXPECT_GT(samePairs, 0u);
}

}  // namespace
}  // namespace nnfuzz
