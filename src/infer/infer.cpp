// infer.cpp - runs synthesis over every partial operator, one hole bank for all.
#include "infer/infer.h"

#include <chrono>

#include "infer/partial_op.h"

namespace nnfuzz::infer {

std::vector<OperatorRules> inferRules(const std::vector<Record>& records, const InferOptions& options,
                                      std::vector<PartialTiming>* timings, const OperatorDone& done) {
  const HoleBank bank(options.bank);
  ReuseCache reuse;
  std::vector<OperatorRules> out;
  for (const PartialOp& p : groupPartialOps(records)) {
    if (out.empty() || out.back().op != p.op || out.back().domain != p.domain) {
      if (!out.empty() && done) done(out.back());
      out.push_back({p.op, p.domain, options.labelledBy, {}});
      // Reuse stays within one operator, so an operator's rules do not depend on which
      // other operators were inferred in the same run.
      reuse = {};
    }
    auto start = std::chrono::steady_clock::now();
    PartialRule rule{p.signature, p.symbols, p.outputs, p.outputRanks, synthesize(p, bank, options.synth, &reuse), {}};
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (const Record* r : p.passing) rule.records.push_back(*r);
    for (const Record* r : p.counterExamples) rule.records.push_back(*r);
    if (timings) timings->push_back({p.signature, seconds, rule.rule.shapeInferred(), rule.rule.constraintStatus,
                                  rule.rule.cutByClock});
    out.back().partials.push_back(std::move(rule));
  }
  if (!out.empty() && done) done(out.back());
  return out;
}

}  // namespace nnfuzz::infer
