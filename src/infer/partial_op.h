// partial_op.h - partial operators: records grouped so one arithmetic rule can fit them.
//
// A partial operator (seed 002, §3.2) fixes an operator's tensor signature (arity, which
// optional inputs are present, every input and output rank), which integer attributes are
// given (and the length of integer lists), and the values of rule-relevant non-integer
// attributes (strings such as auto_pad, mode). Float attributes are rule-orthogonal and
// ignored. Its symbols, in a fixed order, are the input dims "i<k>_<d>" and the integer
// attributes "a.<name>" / "a.<name>_<j>"; its targets are the output dims "o<k>_<d>".
#pragma once

#include <string>
#include <vector>

#include "infer/record.h"

namespace nnfuzz::infer {

/// The input-side key (everything but output ranks) and the full key.
std::string inputSignature(const Record& r);
std::string partialSignature(const Record& r);

std::vector<std::string> symbolNames(const Record& r);
std::vector<int64_t> symbolValues(const Record& r);
std::vector<std::string> outputNames(const Record& r);
std::vector<int64_t> outputValues(const Record& r);

struct PartialOp {
  std::string op, domain, signature;
  std::vector<std::string> symbols, outputs;
  std::vector<int> outputRanks;
  std::vector<const Record*> passing, counterExamples;
};

/// Groups records into partial operators, ordered by (domain, op, signature); each
/// counter-example joins every partial operator with its input signature.
std::vector<PartialOp> groupPartialOps(const std::vector<Record>& records);

}  // namespace nnfuzz::infer
