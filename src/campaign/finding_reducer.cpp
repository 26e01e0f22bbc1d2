// finding_reducer.cpp - reducing one campaign finding on live workers (see finding_reducer.h).
#include "campaign/finding_reducer.h"

#include <algorithm>

#include "caffe/export.h"
#include "onnx/case_folder.h"
#include "interp/interpreter.h"
#include "triage/blame.h"
#include "triage/experiments.h"
#include "triage/fold.h"
#include "triage/reduce.h"
#include "triage/reduce_schedule.h"

namespace nnfuzz::campaign {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::vector<std::string> Culprits::of(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = ops_.find(key);
  return it == ops_.end() ? std::vector<std::string>{} : it->second;
}

void Culprits::add(const std::string& key, const std::string& op) {
  std::lock_guard lock(mu_);
  auto& ops = ops_[key];
  if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
}

namespace {

Worker* findWorker(const std::vector<std::unique_ptr<Worker>>& workers, const std::string& backend,
                   const std::string& mode) {
  for (const auto& w : workers)
    if (w->spec().backend == backend && w->spec().mode == mode) return w.get();
  return nullptr;
}

// The part of a signature that does not depend on the model.
Signature withoutModel(Signature s) {
  s.opTypes.clear();
  s.outputs.clear();
  return s;
}

/// The SUT passes that, each switched off alone, make `sub` pass: the optimisation behind the
/// bug. None when there are no passes to switch off, or when the bug survives all of them off
/// at once (it is not an optimisation's then). At most three are named.
/// A run refused for want of time reads as "passes", so every answer is checked against
/// `inTime`: out of time, nothing is claimed.
std::vector<std::string> passesBehind(const std::vector<std::string>& passes, const SubCase& sub,
                                      const std::function<bool(const SubCase&, const std::vector<std::string>&)>& fails,
                                      const std::function<bool()>& inTime) {
  std::vector<std::string> behind;
  if (passes.empty() || fails(sub, passes) || !inTime()) return {};
  for (const std::string& pass : passes) {
    const bool stillFails = fails(sub, {pass});
    if (!inTime()) return {};
    if (!stillFails) behind.push_back(pass);
    if (behind.size() == 3) break;
  }
  return behind;
}

}  // namespace

FindingReducer makeFindingReducer(const std::vector<std::unique_ptr<Worker>>& workers, const Oracle& oracle,
                                  Culprits& culprits, const ReducerSettings& settings, const Graph& graph,
                                  const std::vector<Tensor>& inputs, bool haveReference, const nlohmann::json& meta) {
  return [&, settings, haveReference](const Judgement& j, const RunOutcome& outcome,
                                      const Signature& seen) -> std::optional<ReducedFinding> {
    // A hang or memory blow-up would cost its full limit per try: kept whole.
    if (j.symptom == "timeout" || j.symptom == "out-of-memory") return std::nullopt;
    Worker* subject = findWorker(workers, j.backend, j.mode);
    // The baseline is a mode of the same SUT, or (no trusted reference) "backend:mode" of another.
    const size_t colon = j.against.find(':');
    Worker* baseline = j.against == "reference"       ? nullptr
                       : colon == std::string::npos ? findWorker(workers, j.backend, j.against)
                                                    : findWorker(workers, j.against.substr(0, colon), j.against.substr(colon + 1));
    if (!subject || (j.against != "reference" && !baseline)) return std::nullopt;
    Signature target = withoutModel(makeSignature(j, outcome, {}));  // as this mode's run shows it
    const std::string key = j.backend + "/" + j.against;  // a SUT's modes share most kernels
    const fs::path dir = settings.scratch / "reduce";
    const auto deadline = Clock::now() + settings.budget;
    nlohmann::json subMeta = meta;
    subMeta["reduced_from"] = meta;

    auto runOn = [&](Worker* worker, const SubCase& sub, const std::vector<std::string>& disable = {}) {
      std::error_code ec;
      fs::remove_all(dir, ec);
      writeCase(dir, sub.graph, sub.inputs, sub.expected, subMeta, settings.opset, CaseLayout::Onnx);
      if (settings.caffe) tryWriteCaffeCase(dir, sub.graph, sub.inputs, sub.expected);
      return worker->runCase(dir, disable);
    };
    std::optional<ReducedFinding> last;
    // Whether `sub` still fails the same way. With `disable` the subject runs with those
    // passes off and the question is only whether it now passes cleanly (anything else,
    // such as a compile that needs the pass, counts as failing); `last` is left alone.
    auto failsWith = [&](const SubCase& sub, const std::vector<std::string>& disable) {
      if (Clock::now() > deadline) return false;
      RunOutcome run = runOn(subject, sub, disable);
      std::optional<RunOutcome> base;
      Judgement judged;
      if (!baseline) {
        judged = haveReference ? oracle.judge(run, sub.expected) : oracle.judgeWithoutReference(run);
      } else {
        base = runOn(baseline, sub);
        auto modes = oracle.judgeModes(*base, run);
        if (!modes) return !disable.empty();
        judged = std::move(*modes);
      }
      if (!disable.empty()) return judged.verdict != Verdict::Pass;
      if (!judged.bug()) return false;
      Signature candidate = withoutModel(makeSignature(judged, run, {}));
      if (!stillTheBug(candidate, target)) return false;
      target = std::move(candidate);  // a narrower conversion failure stays narrow
      last = ReducedFinding{bundleCase(sub.graph, sub.inputs, sub.expected, subMeta, settings.opset, settings.caffe),
                            std::move(judged), std::move(run), std::move(base), std::nullopt, {}};
      return true;
    };
    auto stillFails = [&](const SubCase& sub) { return failsWith(sub, {}); };
    // Nodes first (ddmin), then blame on what is left, then the other passes, only for a bug
    // not known yet: they make the bundle small, and cost runs a repeat does not need.
    ReduceOptions options;
    options.maxTries = settings.maxTries;
    options.maxPassTries = 0;
    options.suspects = culprits.of(key);
    if (j.verdict == Verdict::DCF) options.focusOutputs = j.differingOutputs();
    const Reduction r = reduceCase(graph, inputs, stillFails, options);
    // Nothing smaller fails: the case itself, with its own outputs. (A sub-case of all its
    // nodes would make every unused result an output, Dropout's mask and MaxPool's indices
    // too, which Caffe cannot write: the bundle of a Caffe backend lost its Caffe form.)
    auto whole = [&] {
      const std::vector<Tensor> values = runGraphAll(graph, inputs);
      SubCase c{graph, inputs, {}};
      for (ValueId v : graph.outputs()) c.expected.push_back(values[v]);
      return c;
    };
    const SubCase small = r.shrunk ? r.reduced : whole();
    std::optional<Culprit> culprit;
    size_t blameRuns = 0;
    const Agrees agrees = [&](const Tensor& a, const Tensor& e) { return compareOutput(a, e, oracle.policy()).ok(); };
    // The first divergence in `sub` as `worker` runs it.
    const auto blameOn = [&](Worker* worker, const SubCase& sub) {
      const SutRun run = [&](const SubCase& tried) -> std::optional<std::vector<Tensor>> {
        RunOutcome o = runOn(worker, tried);
        if (o.status != RunStatus::Ok) return std::nullopt;
        return std::move(o.outputs);
      };
      const Blame blame = blameFirstDivergence(sub, run, agrees, j.verdict != Verdict::DCF);
      blameRuns += blame.runs;
      return blame.culprit;
    };
    if (haveReference && Clock::now() < deadline) {
      // Mode against mode: whichever of the two the reference finds wrong is the one to blame.
      for (Worker* worker : {subject, baseline})
        if (worker && !culprit) culprit = blameOn(worker, small);
      // An error is folded into a wrong value only if every mode that shows the error computes
      // that value wrong (triage/fold.h's agreedCulprit).
      if (culprit && j.verdict != Verdict::DCF) {
        std::vector<std::optional<Culprit>> perMode{culprit};
        for (const std::string& where : seen.modes) {
          Worker* other = findWorker(workers, j.backend, where.substr(0, where.find(" vs ")));
          if (other && other != subject)  // out of time: not shown, so not folded
            perMode.push_back(Clock::now() < deadline ? blameOn(other, small) : std::nullopt);
        }
        culprit = agreedCulprit(perMode);
      }
    }
    // An error with no wrong value behind it that passes once the trailing omitted inputs are
    // left off is the frontend's handling of omitted inputs, whichever operator words it.
    std::string namedBy;
    if (!culprit && j.verdict != Verdict::DCF && Clock::now() < deadline)
      if (const auto plain = withoutTrailingOmittedInputs(small)) {
        RunOutcome run = runOn(subject, *plain);
        if (baseline ? run.status == RunStatus::Ok : oracle.judgeWithoutReference(run).verdict == Verdict::Pass)
          namedBy = kOmittedInputExperiment;
      }
    // The reduced run's words: a conversion failure may name fewer nodes than the test's did.
    Signature named = foldModes(makeSignature(last ? last->judgement : j, last ? last->outcome : outcome, opTypesOf(small.graph)));
    if (culprit) named = foldModes(j.verdict == Verdict::DCF ? culpritSignature(named, *culprit) : foldDownstream(named, culprit));
    if (!namedBy.empty()) named = foldModes(namedByExperiment(named, namedBy));
    PassReduction passes;
    const bool known = settings.known && settings.known(named.hash());
    if (!known && settings.maxPassTries > 0 && Clock::now() < deadline)
      passes = reduceWithPasses(small, stillFails, settings.maxPassTries);
    // A pass that inlined a body can take the culprit's node with it (blame named an If whose
    // branch holds the wrong operator): blame again on what the passes left.
    if (culprit && j.verdict == Verdict::DCF && passes.changed && Clock::now() < deadline &&
        !containsOp(passes.reduced.graph, culprit->op))
      if (auto again = blameOn(subject, passes.reduced)) culprit = again;
    // Tries refused for want of time look like "still passes": no minimality claim then.
    const bool outOfTime = Clock::now() > deadline;
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (!r.shrunk && !passes.changed) {
      if (!culprit && namedBy.empty()) return std::nullopt;
      // Nothing smaller fails, but the culprit or the experiment still names the bug: the case itself stands.
      last = ReducedFinding{bundleCase(small.graph, small.inputs, small.expected, subMeta, settings.opset, settings.caffe),
                            j, outcome, std::nullopt, std::nullopt, {}};
    }
    if (!last) return std::nullopt;
    last->culprit = culprit;
    last->namedBy = namedBy;
    const SubCase& shown = passes.changed ? passes.reduced : small;
    const std::vector<std::string> culpritPasses =
        known || outOfTime ? std::vector<std::string>{} : passesBehind(subject->hello().passes, shown, failsWith,
                                                            [&] { return Clock::now() <= deadline; });
    last->bcase.meta["reduced"] = {{"from_nodes", graph.numNodes()},
                                   {"to_nodes", shown.graph.numNodes()},
                                   {"tries", r.tries + passes.tries + blameRuns},
                                   {"minimal", r.minimal && !outOfTime},
                                   {"passes_finished", passes.finished && !outOfTime},
                                   {"culprit", culprit ? culprit->text() : ""},
                                   {"named_by", namedBy},
                                   {"culprit_passes", culpritPasses}};
    if (j.verdict == Verdict::DCF && culprit) culprits.add(key, culprit->op);
    return last;
  };
}

}  // namespace nnfuzz::campaign
