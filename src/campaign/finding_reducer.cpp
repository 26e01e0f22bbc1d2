// finding_reducer.cpp - reducing one campaign finding on live workers (see finding_reducer.h).
#include "campaign/finding_reducer.h"

#include <algorithm>

#include "onnx/case_folder.h"
#include "triage/reduce.h"

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

}  // namespace

FindingReducer makeFindingReducer(const std::vector<std::unique_ptr<Worker>>& workers, const Oracle& oracle,
                                  Culprits& culprits, const ReducerSettings& settings, const Graph& graph,
                                  const std::vector<Tensor>& inputs, bool haveReference, const nlohmann::json& meta) {
  return [&, settings, haveReference](const Judgement& j, const RunOutcome& outcome,
                                      const Signature&) -> std::optional<ReducedFinding> {
    // A hang or memory blow-up would cost its full limit per try: kept whole.
    if (j.symptom == "timeout" || j.symptom == "out-of-memory" || graph.numNodes() < 2) return std::nullopt;
    Worker* subject = findWorker(workers, j.backend, j.mode);
    Worker* baseline = j.against == "reference" ? nullptr : findWorker(workers, j.backend, j.against);
    if (!subject || (j.against != "reference" && !baseline)) return std::nullopt;
    const Signature target = withoutModel(makeSignature(j, outcome, {}));  // as this mode's run shows it
    const std::string key = j.backend + "/" + j.against;  // a SUT's modes share most kernels
    const fs::path dir = settings.scratch / "reduce";
    const auto deadline = Clock::now() + settings.budget;
    nlohmann::json subMeta = meta;
    subMeta["reduced_from"] = meta;

    std::optional<ReducedFinding> last;
    auto stillFails = [&](const SubCase& sub) {
      if (Clock::now() > deadline) return false;
      std::error_code ec;
      fs::remove_all(dir, ec);
      writeCase(dir, sub.graph, sub.inputs, sub.expected, subMeta, settings.opset);
      RunOutcome run = subject->runCase(dir);
      std::optional<RunOutcome> base;
      Judgement judged;
      if (!baseline) {
        judged = haveReference ? oracle.judge(run, sub.expected) : oracle.judgeWithoutReference(run);
      } else {
        base = baseline->runCase(dir);
        auto modes = oracle.judgeModes(*base, run);
        if (!modes) return false;
        judged = std::move(*modes);
      }
      if (!judged.bug() || withoutModel(makeSignature(judged, run, {})) != target) return false;
      last = ReducedFinding{bundleCase(sub.graph, sub.inputs, sub.expected, subMeta, settings.opset), std::move(judged),
                            std::move(run), std::move(base)};
      return true;
    };
    ReduceOptions options;
    options.maxTries = settings.maxTries;
    options.suspects = culprits.of(key);
    if (j.verdict == Verdict::DCF) options.focusOutputs = j.differingOutputs();
    const Reduction r = reduceCase(graph, inputs, stillFails, options);
    // Tries refused for want of time look like "still passes": no minimality claim then.
    const bool outOfTime = Clock::now() > deadline;
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (!r.shrunk || !last) return std::nullopt;
    last->bcase.meta["reduced"] = {{"from_nodes", graph.numNodes()},
                                   {"to_nodes", r.kept.size()},
                                   {"tries", r.tries},
                                   {"minimal", r.minimal && !outOfTime}};
    if (j.verdict == Verdict::DCF && r.kept.size() == 1) culprits.add(key, graph.node(r.kept[0]).op);
    return last;
  };
}

}  // namespace nnfuzz::campaign
