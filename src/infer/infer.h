// infer.h - the rule inference pipeline: records -> partial operators -> rules per operator.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "infer/enumerator.h"
#include "infer/rule_file.h"
#include "infer/synth.h"

namespace nnfuzz::infer {

struct InferOptions {
  BankLimits bank;
  SynthLimits synth;
  std::string labelledBy;  // e.g. "onnx node-test outputs (debian libonnx-testdata, onnx 1.22)"
};

/// What inference of one partial operator took, for the figures (not written to rule files).
struct PartialTiming {
  std::string signature;
  double seconds = 0;
  bool shapeInferred = false;
  ConstraintStatus constraintStatus = ConstraintStatus::PassingOnly;
  bool cutByClock = false;
};

/// Called as each operator's rules are complete (a long run writes and reports as it goes).
using OperatorDone = std::function<void(const OperatorRules&)>;

/// Infers the rules of every operator in `records`, operators in (domain, op) order.
std::vector<OperatorRules> inferRules(const std::vector<Record>& records, const InferOptions& options,
                                      std::vector<PartialTiming>* timings = nullptr, const OperatorDone& done = {});

}  // namespace nnfuzz::infer
