// ir_text.cpp - fuzz target: GraphIR text from untrusted bytes (targets.h).
#include <cstdio>
#include <cstdlib>

#include "fuzz/targets.h"
#include "ir/graph.h"
#include "support/error.h"

namespace nnfuzz::fuzz {

void irText(std::string_view text) {
  Graph graph;
  try {
    graph = parseGraph(text);
  } catch (const Error&) {
    return;
  }
  const std::string printed = printGraph(graph);
  std::string again;
  try {
    again = printGraph(parseGraph(printed));
  } catch (const Error& e) {
    std::fprintf(stderr, "printed text does not parse: %s\n%s\n", e.what(), printed.c_str());
    std::abort();
  }
  if (again != printed) {
    std::fprintf(stderr, "text form does not round-trip:\n%s\n---\n%s\n", printed.c_str(), again.c_str());
    std::abort();
  }
  (void)verifyStructure(graph);
}

}  // namespace nnfuzz::fuzz

NNFUZZ_FUZZ_ENTRY(nnfuzz::fuzz::irText)
