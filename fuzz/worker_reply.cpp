// worker_reply.cpp - fuzz target: a worker's stdout line (targets.h).
#include <cstdio>
#include <cstdlib>

#include "fuzz/targets.h"
#include "run/protocol.h"

namespace nnfuzz::fuzz {

void workerReply(std::string_view line) {
  const std::string text(line);
  (void)parseHello(text);
  for (const char* phase : {"prepare", "run"}) {
    auto parsed = parseReply(text, 7, phase, 0.5);
    if (auto* reply = std::get_if<Reply>(&parsed))
      if (!reply->stage.empty() && (std::string(phase) != "prepare" || !validStage(reply->stage))) {
        std::fprintf(stderr, "a reply with a bad stage was accepted\n");
        std::abort();
      }
    if (auto* problem = std::get_if<std::string>(&parsed))
      if (problem->empty() || problem->size() > 1000) {
        std::fprintf(stderr, "a problem must be one short line, got %zu characters\n", problem->size());
        std::abort();
      }
  }
}

}  // namespace nnfuzz::fuzz

NNFUZZ_FUZZ_ENTRY(nnfuzz::fuzz::workerReply)
