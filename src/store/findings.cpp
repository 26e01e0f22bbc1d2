// findings.cpp - judging, triaging and recording one test (see findings.h).
#include "store/findings.h"

namespace nnfuzz {

std::vector<JudgedRun> recordFindings(CampaignStore& store, const Oracle& oracle, const BundleContext& context,
                                      const TestRecord& test, const std::vector<RunOutcome>& outcomes,
                                      const std::vector<Tensor>* reference,
                                      const std::function<BundleCase()>& makeCase,
                                      const FindingReducer& reducer) {
  std::vector<JudgedRun> runs;
  std::vector<const RunOutcome*> judged;     // the run each judgement is about
  std::vector<const RunOutcome*> baselines;  // mode vs mode: the baseline run
  for (const auto& o : outcomes) {
    runs.push_back({reference ? oracle.judge(o, *reference) : oracle.judgeWithoutReference(o), {}, {}});
    judged.push_back(&o);
    baselines.push_back(nullptr);
  }
  // No trusted reference: every other SUT's runs against the fallback reference run.
  const RunOutcome* fallback = nullptr;
  for (const auto& o : outcomes)
    if (!reference && o.backend + ":" + o.mode == oracle.fallbackReference()) fallback = &o;
  for (const auto& other : outcomes) {
    if (!fallback || other.backend == fallback->backend) continue;
    if (auto j = oracle.judgeAgainstRun(*fallback, other)) {
      runs.push_back({std::move(*j), {}, {}});
      judged.push_back(&other);
      baselines.push_back(fallback);
    }
  }
  for (const auto& base : outcomes) {
    if (base.mode != kBaselineMode) continue;
    for (const auto& other : outcomes) {
      if (other.backend != base.backend || other.mode == base.mode) continue;
      if (auto j = oracle.judgeModes(base, other)) {
        runs.push_back({std::move(*j), {}, {}});
        judged.push_back(&other);
        baselines.push_back(&base);
      }
    }
  }
  // Signatures first. A wrong result is reduced now, since its signature is the reduced case's
  // culprit; an error or crash is named by its words and reduced only when its bug is new (below).
  std::vector<Signature> signatures(runs.size());
  std::vector<std::optional<ReducedFinding>> reduced(runs.size());
  for (size_t k = 0; k < runs.size(); ++k) {
    const Judgement& j = runs[k].judgement;
    if (!j.bug()) continue;
    signatures[k] = makeSignature(j, *judged[k], test.opTypes);
    if (reducer && j.verdict == Verdict::DCF) reduced[k] = reducer(j, *judged[k], signatures[k]);
    if (reduced[k] && j.verdict == Verdict::DCF) {
      signatures[k] = makeSignature(reduced[k]->judgement, reduced[k]->outcome, opTypesOf(reduced[k]->bcase.model));
      if (reduced[k]->culprit) signatures[k] = culpritSignature(signatures[k], *reduced[k]->culprit);
    }
    signatures[k] = foldModes(signatures[k]);
  }
  // Runs with equal signatures are one bug: the first stands for the others, which point to it.
  std::vector<size_t> foldedInto(runs.size(), SIZE_MAX);
  for (size_t k = 0; k < runs.size(); ++k) {
    if (!runs[k].judgement.bug()) continue;
    for (size_t b = 0; b < k; ++b) {
      if (!runs[b].judgement.bug() || foldedInto[b] != SIZE_MAX || !(signatures[b] == signatures[k])) continue;
      foldedInto[k] = b;
      signatures[b] = mergeFolded({signatures[b], signatures[k]})[0];
      break;
    }
  }

  std::optional<BundleCase> bcase;  // made once, on the first new bug
  std::vector<ResultRecord> results;
  for (size_t k = 0; k < runs.size(); ++k) {
    JudgedRun& run = runs[k];
    const RunOutcome& o = *judged[k];
    if (run.judgement.bug() && foldedInto[k] != SIZE_MAX) {
      // Its bug is the baseline's, recorded (and counted) once, just before.
      const JudgedRun& stand = runs[foldedInto[k]];
      run.bugHash = stand.bugHash;
      if (stand.bug) run.bug = BugUpdate{false, stand.bug->count, stand.bug->bundle};
    } else if (run.judgement.bug()) {
      BundleFinding finding;
      finding.judgement = run.judgement;
      finding.signature = signatures[k];
      if (reducer && !reduced[k] && run.judgement.verdict != Verdict::DCF && !store.knowsBug(finding.signature.hash())) {
        reduced[k] = reducer(run.judgement, o, finding.signature);
        // An error over a value the SUT computes wrong is that value's bug.
        if (reduced[k] && reduced[k]->culprit) {
          finding.signature = foldModes(foldDownstream(finding.signature, reduced[k]->culprit));
          signatures[k] = finding.signature;
        } else if (reduced[k] && !reduced[k]->namedBy.empty()) {
          finding.signature = foldModes(namedByExperiment(finding.signature, reduced[k]->namedBy));
          signatures[k] = finding.signature;
        } else if (reduced[k]) {
          // A conversion failure that the reduction narrowed to fewer nodes is the bug of the
          // nodes that stay (fold.h's stillTheBug): named by the reduced run's words.
          Signature narrowed = finding.signature;
          narrowed.message = makeSignature(reduced[k]->judgement, reduced[k]->outcome, {}).message;
          if (stillTheBug(narrowed, finding.signature)) finding.signature = signatures[k] = narrowed;
        }
      }
      run.bugHash = finding.signature.hash();
      run.bug = store.recordBug(finding.signature, run.judgement, test.index, [&] {
        finding.policy = oracle.policy();
        finding.versions = context.versions;
        finding.prepareLimitSeconds = context.prepareLimitSeconds;
        finding.runLimitSeconds = context.runLimitSeconds;
        finding.memoryLimitMb = context.memoryLimitMb;
        finding.env = context.env;
        if (auto w = context.workers.find(finding.signature.backend); w != context.workers.end())
          finding.worker = w->second;
        if (!bcase) bcase = makeCase();
        if (reduced[k]) {
          finding.judgement = reduced[k]->judgement;
          finding.outcome = reduced[k]->outcome;
          finding.baseline = reduced[k]->baseline;
          BundleCase small = reduced[k]->bcase;
          small.original = bcase->model;
          return writeBundle(context.bugsDir, small, finding);
        }
        finding.outcome = o;
        if (baselines[k]) finding.baseline = *baselines[k];
        return writeBundle(context.bugsDir, *bcase, finding);
      });
    }
    ResultRecord r;
    r.backend = run.judgement.backend;
    r.mode = run.judgement.mode;
    r.against = run.judgement.against;
    r.verdict = run.judgement.verdict;
    r.status = o.status;
    r.phase = run.judgement.phase;
    r.prepareSeconds = o.prepareSeconds;
    r.runSeconds = o.runSeconds;
    r.bugHash = run.bugHash;
    r.reason = run.judgement.reason;
    results.push_back(std::move(r));
  }
  store.recordTest(test, results);
  return runs;
}

}  // namespace nnfuzz
