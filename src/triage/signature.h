// signature.h - bug signatures: two findings with equal signatures are one bug.
//
// A signature holds what identifies a bug across the tests that hit it (DESIGN.md §2 triage):
// the SUT, mode (and the mode it was compared against), phase and class; for errors the SUT's
// exception type and its normalised message; for crashes the fatal stderr line and the top
// native frames; for wrong results (DCF) the sorted set of operator types in the model and
// which outputs differ, by position, and how the first one differs. An error's phase and class
// are not part of its identity (the first seen names the bundle): ONNX Runtime's constant folding
// runs a kernel while preparing, so one kernel check fails at prepare in one mode and at run in
// another. A stable 64-bit hash of
// the canonical text names the bug; the first 8 hex digits name its bundle folder.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/graph.h"
#include "onnx/onnx_pb.h"
#include "oracle/oracle.h"

namespace nnfuzz {

/// What identifies one bug (see the file comment).
struct Signature {
  std::string backend, mode;
  std::string against;  ///< "reference" or the baseline mode
  std::string phase;    ///< "prepare" or "run"
  std::string verdict;  ///< "mcf", "if" or "dcf"
  std::string symptom;  ///< Judgement::symptom: "error", "crash SIGSEGV", "timeout", "values", ...
  std::string errorType;  ///< the SUT's exception type (errors only)
  std::string message;    ///< normalised error message, or a crash's normalised fatal line
  std::vector<std::string> frames;   ///< crashes: top native frames, innermost first
  std::vector<std::string> opTypes;  ///< DCF: sorted operator types of the model
  std::vector<size_t> outputs;       ///< DCF: positions of the differing outputs
  /// Where a folded bug was seen ("opt", "noopt vs opt", ...): a property, not part of the
  /// identity (not in canonical(), not compared by ==). See fold.h.
  std::vector<std::string> modes;

  /// One "key: value" line per field, in a fixed order: what the hash is taken of.
  std::string canonical() const;
  /// 16 lowercase hex digits of FNV-1a-64 over canonical(): the same on every machine.
  std::string hash() const;
  /// `<sut>-<mode>[-vs-<against>]-<class>-<hash8>`, e.g. "onnxruntime-opt-dcf-1a2b3c4d".
  std::string bundleName() const;

  nlohmann::json toJson() const;
  /// Reads toJson()'s form; throws nlohmann::json errors on a malformed document.
  static Signature fromJson(const nlohmann::json& j);
  /// Equal identities: every field but `modes`.
  bool operator==(const Signature& other) const { return canonical() == other.canonical(); }
};

/// The signature of a bug finding. `outcome` is the run judged (its message and stderr tail);
/// `opTypes` the model's operator types (any order, duplicates allowed; used for DCF only).
Signature makeSignature(const Judgement& judgement, const RunOutcome& outcome, const std::vector<std::string>& opTypes);

/// The sorted, distinct operator types of a graph / of an ONNX model.
std::vector<std::string> opTypesOf(const Graph& graph);
std::vector<std::string> opTypesOf(const onnx::ModelProto& model);

/// Findings grouped into bugs in memory: equal signatures are one bug with a count. The
/// campaign store keeps the same counts durably; this table serves runs without a store
/// (`nnfuzz run`) and tests, and can be seeded from a resumed store.
class BugTable {
 public:
  struct Entry {
    Signature signature;
    uint64_t count = 0;
  };
  /// Records one finding; returns its hash and true when the bug was not known before.
  std::pair<std::string, bool> record(const Signature& signature);
  /// Seeds a known bug (e.g. from a resumed campaign) with its count so far.
  void seed(const Signature& signature, uint64_t count);
  const Entry* find(const std::string& hash) const;
  size_t size() const { return bugs_.size(); }
  const std::map<std::string, Entry>& bugs() const { return bugs_; }

 private:
  std::map<std::string, Entry> bugs_;
};

}  // namespace nnfuzz
