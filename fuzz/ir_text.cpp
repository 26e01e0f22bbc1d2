// ir_text.cpp - fuzz target: GraphIR text from untrusted bytes (targets.h).
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
    broken(std::string("printed text parses: ") + e.what(), printed);
  }
  if (again != printed) broken("the text form round-trips", printed + "---\n" + again);
  (void)verifyStructure(graph);
}

}  // namespace nnfuzz::fuzz

NNFUZZ_FUZZ_ENTRY(nnfuzz::fuzz::irText)
