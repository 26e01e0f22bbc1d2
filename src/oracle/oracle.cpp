// oracle.cpp - classifying runs into verdicts (see oracle.h).
#include "oracle/oracle.h"

#include <csignal>

namespace nnfuzz {

namespace {

// The first line of a message, shortened: reasons are one line.
std::string firstLine(const std::string& text, size_t limit = 200) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > limit) line = line.substr(0, limit) + "...";
  return line;
}

}  // namespace

std::string_view verdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::Pass: return "pass";
    case Verdict::Unsupported: return "unsupported";
    case Verdict::MCF: return "mcf";
    case Verdict::IF: return "if";
    case Verdict::DCF: return "dcf";
    case Verdict::HarnessError: return "harness-error";
  }
  return "pass";
}

std::string signalName(int signal) {
  switch (signal) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGBUS: return "SIGBUS";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    case SIGPIPE: return "SIGPIPE";
    case SIGXCPU: return "SIGXCPU";
    default: return "signal " + std::to_string(signal);
  }
}

std::vector<size_t> Judgement::differingOutputs() const {
  std::vector<size_t> out;
  for (const auto& d : diffs) out.push_back(d.output);
  return out;
}

Oracle::Oracle(Policy policy, UnsupportedFilter filter) : policy_(policy), filter_(std::move(filter)) {}

Judgement Oracle::judgeFailure(const RunOutcome& o) const {
  Judgement j;
  j.backend = o.backend;
  j.mode = o.mode;
  j.against = "reference";
  j.phase = o.phase.empty() ? (o.status == RunStatus::PrepareError ? "prepare" : "run") : o.phase;
  switch (o.status) {
    case RunStatus::Ok: break;  // not a failure; callers do not pass Ok here
    case RunStatus::PrepareError:
    case RunStatus::RunError:
      if (auto p = filter_.match(o.backend, o.errorType, o.message)) {
        j.verdict = Verdict::Unsupported;
        j.unsupportedPattern = *p;
        j.symptom = "unsupported";
        j.reason = "unsupported (matches '" + *p + "'): " + firstLine(o.message);
        return j;
      }
      // A failure is a conversion failure when it happens while preparing, whatever the status
      // says: the phase is where it ended. A worker may name the step of prepare that failed
      // ("convert" for a converter in front of the SUT, "optimize" for a graph optimizer): still
      // MCF, and the phase keeps the converter's bugs apart from the compiler's in signatures.
      j.verdict = j.phase == "run" ? Verdict::IF : Verdict::MCF;
      j.symptom = "error";
      j.reason = j.phase + " failed: " + (o.errorType.empty() ? "" : o.errorType + ": ") + firstLine(o.message);
      return j;
    // Crashes, timeouts and exhaustion are IF in any phase (the classes); the phase
    // stays in the judgement and the signature, so a compile-time crash is still told apart.
    case RunStatus::Crash:
      j.verdict = Verdict::IF;
      j.symptom = "crash " + signalName(o.signal);
      j.reason = "worker died by " + signalName(o.signal) + " during " + j.phase;
      return j;
    case RunStatus::Timeout:
      j.verdict = Verdict::IF;
      j.symptom = "timeout";
      j.reason = j.phase + " ran past its time limit";
      return j;
    case RunStatus::OutOfMemory:
      j.verdict = Verdict::IF;
      j.symptom = "out-of-memory";
      j.reason = j.phase + " ran out of memory";
      return j;
    case RunStatus::WorkerError:
      j.verdict = Verdict::HarnessError;
      j.symptom = "worker-error";
      j.reason = "worker error: " + firstLine(o.message);
      return j;
  }
  return j;
}

Judgement Oracle::compare(const RunOutcome& o, const std::vector<Tensor>& expected, std::string against) const {
  Judgement j;
  j.backend = o.backend;
  j.mode = o.mode;
  j.against = std::move(against);
  const size_t common = std::min(o.outputs.size(), expected.size());
  for (size_t k = 0; k < common; ++k) {
    OutputDiff d = compareOutput(o.outputs[k], expected[k], policy_, k);
    if (!d.ok()) j.diffs.push_back(std::move(d));
  }
  if (o.outputs.size() != expected.size()) {
    // Missing or extra outputs: the first unmatched position differs in shape (it has none).
    OutputDiff d;
    d.output = common;
    d.kind = DiffKind::Shape;
    d.detail = "returned " + std::to_string(o.outputs.size()) + " outputs, expected " +
               std::to_string(expected.size());
    j.diffs.push_back(std::move(d));
  }
  if (j.diffs.empty()) {
    j.reason = "outputs match " + j.against + " (" + std::string(policy_.name()) + ")";
    return j;
  }
  j.verdict = Verdict::DCF;
  j.phase = "run";
  j.symptom = std::string(diffKindName(j.diffs.front().kind));
  j.reason = "wrong output vs " + j.against + ": " + j.diffs.front().detail;
  if (j.diffs.size() > 1) j.reason += " (+" + std::to_string(j.diffs.size() - 1) + " more outputs)";
  return j;
}

Judgement Oracle::judge(const RunOutcome& outcome, const std::vector<Tensor>& reference) const {
  if (outcome.status != RunStatus::Ok) return judgeFailure(outcome);
  if (comparesModesOnly(outcome.backend)) {
    Judgement j = judgeWithoutReference(outcome);
    j.reason = "finished; this backend is judged mode against mode only";
    return j;
  }
  return compare(outcome, reference, "reference");
}

Judgement Oracle::judgeWithoutReference(const RunOutcome& outcome) const {
  if (outcome.status != RunStatus::Ok) return judgeFailure(outcome);
  Judgement j;
  j.backend = outcome.backend;
  j.mode = outcome.mode;
  j.against = "reference";
  j.reason = "finished; no trusted reference to compare with";
  return j;
}

std::optional<Judgement> Oracle::judgeModes(const RunOutcome& baseline, const RunOutcome& candidate) const {
  if (baseline.status != RunStatus::Ok || candidate.status != RunStatus::Ok) return std::nullopt;
  return compare(candidate, baseline.outputs, baseline.mode);
}

std::optional<Judgement> Oracle::judgeAgainstRun(const RunOutcome& reference, const RunOutcome& candidate) const {
  if (reference.status != RunStatus::Ok || candidate.status != RunStatus::Ok) return std::nullopt;
  if (comparesModesOnly(candidate.backend)) return std::nullopt;
  return compare(candidate, reference.outputs, reference.backend + ":" + reference.mode);
}

}  // namespace nnfuzz
