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
  // A SUT failing the same way in every mode has one bug, not one per mode: the baseline
  // mode's finding stands for all of them (signature mode "all") and the others point to it.
  std::vector<size_t> foldedInto(runs.size(), SIZE_MAX);
  std::vector<bool> allModes(runs.size(), false);
  for (size_t b = 0; b < outcomes.size(); ++b) {
    if (outcomes[b].mode != kBaselineMode || !runs[b].judgement.bug()) continue;
    const Signature base = makeSignature(runs[b].judgement, outcomes[b], test.opTypes);
    std::vector<size_t> same;
    bool every = true;
    for (size_t k = 0; k < outcomes.size(); ++k) {
      if (k == b || outcomes[k].backend != outcomes[b].backend) continue;
      Signature other = makeSignature(runs[k].judgement, outcomes[k], test.opTypes);
      other.mode = base.mode;
      if (runs[k].judgement.bug() && other == base) same.push_back(k);
      else every = false;
    }
    if (!every || same.empty()) continue;
    allModes[b] = true;
    for (size_t k : same) foldedInto[k] = b;
  }

  std::optional<BundleCase> bcase;  // made once, on the first new bug
  std::vector<ResultRecord> results;
  std::vector<size_t> order;  // runs that others fold into go first
  for (size_t k = 0; k < runs.size(); ++k)
    if (allModes[k]) order.push_back(k);
  for (size_t k = 0; k < runs.size(); ++k)
    if (!allModes[k]) order.push_back(k);
  for (size_t k : order) {
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
      finding.signature = makeSignature(run.judgement, o, test.opTypes);
      std::optional<ReducedFinding> reduced;
      if (allModes[k]) finding.signature.mode = kAllModes;
      if (reducer && (run.judgement.verdict == Verdict::DCF || !store.knowsBug(finding.signature.hash()))) {
        reduced = reducer(run.judgement, o, finding.signature);
        if (reduced && run.judgement.verdict == Verdict::DCF) {
          finding.signature = makeSignature(reduced->judgement, reduced->outcome, opTypesOf(reduced->bcase.model));
          if (allModes[k]) finding.signature.mode = kAllModes;
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
        if (reduced) {
          finding.judgement = reduced->judgement;
          finding.outcome = reduced->outcome;
          finding.baseline = reduced->baseline;
          BundleCase small = reduced->bcase;
          if (!bcase) bcase = makeCase();
          small.original = bcase->model;
          return writeBundle(context.bugsDir, small, finding);
        }
        if (!bcase) bcase = makeCase();
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
