// unwrap_test.cpp - Dynamo's wrappers against the real messages of the 30-minute PyTorch
// campaign (testdata/pytorch_messages.jsonl, labelled with docs/findings.md's root causes).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "triage/normalize.h"
#include "triage/unwrap.h"

namespace nnfuzz {
namespace {

struct Message {
  std::string root, source, key;  ///< key: the inner type and the normalised message, as a signature has them
};

std::map<std::string, Message> pytorchMessages() {
  std::ifstream in(std::string(NNFUZZ_SOURCE_DIR) + "/src/triage/testdata/pytorch_messages.jsonl");
  std::map<std::string, Message> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto j = nlohmann::json::parse(line);
    const std::string message = j.at("message");
    const std::string type = unwrapCompilerError(j.at("type").get<std::string>(), message).type;
    out[j.at("source")] = {j.at("root"), j.at("source"), type + ": " + normalizeMessage(message)};
  }
  return out;
}

TEST(UnwrapCompilerError, EagerAndCompiledRunsOfOneFailureSignAlike) {
  const auto messages = pytorchMessages();
  ASSERT_EQ(messages.size(), 41u);
  // Nine of the judge's eleven pairs: noopt (eager) first, opt (torch.compile) second; and the
  // four Dynamo torch.Size() signatures (D2) and inductor's two kernel asserts (T12).
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"702ef72b", "29779558"}, {"e035cefa", "31398256"}, {"2238dee4", "fd3af59d"}, {"9b307045", "0599d345"},
      {"b858a12b", "0a077bf6"}, {"bac5c18b", "3b65043f"}, {"df4723bc", "a4d5f120"}, {"08b4e5fe", "8d90126e"},
      {"709ef90a", "fbadaf20"}, {"663610d1", "4e012a3b"}, {"663610d1", "a8f4c2d6"}, {"663610d1", "ef09ac57"},
      {"40fc888e", "9b723d1b"}};
  // The other two stay apart: the compiled run fails in a fake-tensor (meta) kernel that words
  // its check otherwise ("mat1 and mat2 shapes cannot be multiplied" vs "a and b must have same
  // reduction dim"; "dim 2 appears multiple times" vs "duplicate value in the list of dims").
  for (const auto& [eager, compiled] : {std::pair<std::string, std::string>{"c39b9be6", "dd92a09d"},
                                        {"4a3ec1fc", "f6d38930"}})
    EXPECT_NE(messages.at("pytorch-any-if-" + eager).key, messages.at("pytorch-any-if-" + compiled).key);
  for (const auto& [eager, compiled] : pairs) {
    const Message& e = messages.at("pytorch-any-if-" + eager);
    const Message& c = messages.at("pytorch-any-if-" + compiled);
    EXPECT_EQ(e.root, c.root);
    EXPECT_EQ(e.key, c.key) << e.source << " vs " << c.source;
    EXPECT_EQ(c.key.find("from user code"), std::string::npos) << c.key;
    EXPECT_EQ(c.key.find("fake tensor"), std::string::npos) << c.key;
  }
}

TEST(UnwrapCompilerError, NoTwoRootCausesMerged) {
  const auto messages = pytorchMessages();
  // 41 signatures in the campaign, 26 once unwrapped, and (below) none over two root causes.
  std::set<std::string> keys;
  for (const auto& [source, m] : messages) keys.insert(m.key);
  EXPECT_EQ(keys.size(), 26u);
  size_t compared = 0;
  for (const auto& [a, x] : messages)
    for (const auto& [b, y] : messages)
      if (a < b && x.root != y.root) {
        ++compared;
        EXPECT_NE(x.key, y.key) << x.source << " (" << x.root << ") vs " << y.source << " (" << y.root << ")";
      }
  EXPECT_GT(compared, 500u);
}

TEST(UnwrapCompilerError, TheInnerExceptionOfEachWrapper) {
  // InternalTorchDynamoError: the inner type leads the message.
  auto u = unwrapCompilerError("InternalTorchDynamoError",
                               "AttributeError: 'tuple' object has no attribute 'shape'\n\nfrom user code:\n   File x\n");
  EXPECT_EQ(u.type, "AttributeError");
  EXPECT_EQ(u.message, "'tuple' object has no attribute 'shape'");
  // Fake tensors: the quoted exception, its escapes undone.
  u = unwrapCompilerError("TorchRuntimeError",
                          "RuntimeError when making fake tensor call\n  Explanation: Dynamo failed to run FX node with "
                          "fake tensors: call_function <f>(*(), **{}): got RuntimeError('mode \"reflect\" doesn\\'t "
                          "take a value')\n  Hint: ...\n\nfrom user code:\n   File y");
  EXPECT_EQ(u.type, "RuntimeError");
  EXPECT_EQ(u.message, "mode \"reflect\" doesn't take a value");
  // The inductor backend's failure.
  u = unwrapCompilerError("BackendCompilerFailed",
                          "backend='inductor' raised:\nCompilationError: at 3:4: bad\n\nSet TORCHDYNAMO_VERBOSE=1 for");
  EXPECT_EQ(u.type, "CompilationError");
  EXPECT_EQ(u.message, "at 3:4: bad");
}

TEST(UnwrapCompilerError, OtherMessagesAreLeftAlone) {
  // Without Dynamo's trailer a leading "XError: " is the SUT's own wording, and stays.
  for (const std::string m : {"[ONNXRuntimeError] : 1 : FAIL : Non-zero status code", "TVMError: Check failed: x",
                              "RuntimeError when making fake tensor call (no quoted exception)", ""}) {
    const auto u = unwrapCompilerError("Fail", m);
    EXPECT_EQ(u.type, "Fail");
    EXPECT_EQ(u.message, m);
  }
}

}  // namespace
}  // namespace nnfuzz
