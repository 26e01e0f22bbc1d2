// worker_reply.cpp - fuzz target: a worker's stdout line (targets.h).
#include "fuzz/targets.h"
#include "run/protocol.h"

namespace nnfuzz::fuzz {

void workerReply(std::string_view line) {
  const std::string text(line);
  (void)parseHello(text);
  for (const char* phase : {"prepare", "run"}) {
    auto parsed = parseReply(text, 7, phase, 0.5);
    if (auto* reply = std::get_if<Reply>(&parsed))
      if (!reply->stage.empty() && (std::string(phase) != "prepare" || !validStage(reply->stage)))
        broken("only prepare replies carry a stage, a valid one", text);
    if (auto* problem = std::get_if<std::string>(&parsed))
      if (problem->empty() || problem->size() > 1000)
        broken("a problem is one short line", std::to_string(problem->size()) + " characters");
  }
}

}  // namespace nnfuzz::fuzz

NNFUZZ_FUZZ_ENTRY(nnfuzz::fuzz::workerReply)
