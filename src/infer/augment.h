// augment.h - data augmentation by mutation, labelled by an acceptor (seed 002, §3.1).
//
// The acceptor (a real SUT behind an interface, so infer does not depend on run) first
// relabels the seed records: a seed it drops (nondeterministic, value-dependent) or
// rejects under random inputs is dropped. Then per partial operator, until `perPartial`
// mutants: offset mutation (+1 on every single symbol, then on every pair), swapping two
// symbols' values, and the special values 0 and -1 on attribute symbols. Each mutant is
// labelled: passing (with the outputs the SUT produced), counter-example, or dropped.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "infer/record.h"

namespace nnfuzz::infer {

struct Label {
  enum Kind { Pass, Reject, Drop } kind = Drop;
  std::vector<TensorSig> outputs;  // Pass only
};

class Acceptor {
 public:
  virtual ~Acceptor() = default;
  /// "onnxruntime 1.31.1": written to rule files as what labelled the records.
  virtual std::string name() const = 0;
  virtual std::vector<Label> label(const std::vector<Record>& calls) = 0;
};

struct AugmentStats {
  int seeds = 0, seedsKept = 0, mutants = 0, passing = 0, rejected = 0, dropped = 0;
  int probes = 0, probesPassing = 0, probesRejected = 0;
};

/// Writes symbol values (symbolValues order) back into a record's dims and attributes.
void setSymbolValues(Record& r, std::span<const int64_t> values);

/// `probes` (schema_probe.h) are labelled too: a passing probe is a seed like a relabelled
/// node test, a rejected one a counter-example.
std::vector<Record> augment(const std::vector<Record>& seeds, Acceptor& acceptor, int perPartial,
                            AugmentStats* stats, const std::vector<Record>& probes = {});

}  // namespace nnfuzz::infer
