// oracle.h - verdicts: what one SUT run means, judged against our reference or against
// another mode of the same SUT.
//
// Classes follow Luo et al. (DESIGN.md §1.2): MCF when the SUT fails to convert/compile
// (prepare phase), IF when running fails (an error, a crash by signal, a timeout, running out
// of memory), DCF when it returns wrong values, shapes or dtypes. An error that the SUT's
// own words mark as unimplemented is Unsupported (see unsupported.h) and never a bug; a worker
// that broke the protocol is a HarnessError: nnfuzz's problem, not the SUT's, never a bug.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "oracle/policy.h"
#include "oracle/unsupported.h"
#include "run/outcome.h"

namespace nnfuzz {

/// The oracle's classes. Only MCF, IF and DCF are bugs.
enum class Verdict { Pass, Unsupported, MCF, IF, DCF, HarnessError };

/// "pass", "unsupported", "mcf", "if", "dcf", "harness-error".
std::string_view verdictName(Verdict verdict);
/// True for MCF, IF and DCF.
inline bool isBug(Verdict v) { return v == Verdict::MCF || v == Verdict::IF || v == Verdict::DCF; }

/// "SIGSEGV" for 11, ... ("signal N" for one without a name here).
std::string signalName(int signal);

/// The judgement of one run.
struct Judgement {
  Verdict verdict = Verdict::Pass;
  std::string backend, mode;
  std::string against;  ///< "reference", or the baseline mode for a mode-vs-mode judgement
  std::string phase;    ///< "prepare" (or a step of it: "convert", "optimize") or "run" (DCF: "run"); empty for Pass
  /// What happened, coarse enough to be part of a bug signature: "error", "crash SIGSEGV",
  /// "timeout", "out-of-memory", or for DCF the DiffKind name of the first differing output.
  std::string symptom;
  std::string reason;              ///< one human line: what went wrong, or why it passed
  std::vector<OutputDiff> diffs;   ///< DCF: the outputs that differ, in position order
  std::string unsupportedPattern;  ///< Unsupported: the pattern that matched

  bool bug() const { return isBug(verdict); }
  /// The positions of the differing outputs (DCF), ascending.
  std::vector<size_t> differingOutputs() const;
};

/// Judges runs with one policy and one unsupported filter. Stateless between calls.
class Oracle {
 public:
  explicit Oracle(Policy policy = {}, UnsupportedFilter filter = UnsupportedFilter::defaults());

  /// A run against our reference outputs (one per model output, in order).
  Judgement judge(const RunOutcome& outcome, const std::vector<Tensor>& reference) const;
  /// A run when no trusted reference exists: errors are still judged, any outputs pass.
  Judgement judgeWithoutReference(const RunOutcome& outcome) const;
  /// `candidate` (e.g. mode "opt") against `baseline` (e.g. "noopt") of the same SUT and case.
  /// nullopt when either run did not finish with outputs: those failures are already
  /// findings of the runs' own judgements and are not compared.
  std::optional<Judgement> judgeModes(const RunOutcome& baseline, const RunOutcome& candidate) const;

  /// `candidate` against another SUT's run (`reference`), for a test without our reference
  /// outputs; `against` names the reference run as "backend:mode". nullopt as for judgeModes.
  std::optional<Judgement> judgeAgainstRun(const RunOutcome& reference, const RunOutcome& candidate) const;

  /// The run ("backend:mode") other SUTs' runs are compared with when a test has no trusted
  /// reference outputs (an operator without our reference kernel, non-finite reference
  /// outputs); empty: such tests are judged mode against mode only.
  const std::string& fallbackReference() const { return fallbackReference_; }
  void setFallbackReference(std::string backendMode) { fallbackReference_ = std::move(backendMode); }

  /// A backend whose outputs our reference does not judge: an ONNX graph optimizer, whose
  /// models ONNX Runtime runs, so a wrong value in every mode is ONNX Runtime's. Its finished
  /// runs are compared mode against mode only; its errors are judged as any backend's.
  void compareModesOnly(std::string backend) { modesOnly_.insert(std::move(backend)); }
  bool comparesModesOnly(const std::string& backend) const { return modesOnly_.count(backend) > 0; }

  const Policy& policy() const { return policy_; }
  const UnsupportedFilter& unsupported() const { return filter_; }

 private:
  Judgement judgeFailure(const RunOutcome& outcome) const;
  Judgement compare(const RunOutcome& outcome, const std::vector<Tensor>& expected, std::string against) const;

  Policy policy_;
  UnsupportedFilter filter_;
  std::set<std::string> modesOnly_;
  std::string fallbackReference_ = "onnxruntime:noopt";
};

}  // namespace nnfuzz
