// sut_set.cpp - choosing, starting and judging a pipeline's SUT workers (see sut_set.h).
#include "campaign/sut_set.h"

#include <sstream>

#include "store/findings.h"
#include "support/error.h"

namespace nnfuzz::campaign {

std::vector<SutChoice> chooseSuts(const std::string& list, const std::string& backendsFile,
                                  const WorkerLimits& limits) {
  const BackendPaths paths = defaultBackendPaths();
  std::vector<BackendDef> all = builtinBackends(paths);
  if (!backendsFile.empty()) mergeBackends(all, loadBackends(backendsFile, paths));
  std::vector<SutChoice> chosen;
  std::stringstream names(list);
  std::string name;
  while (std::getline(names, name, ',')) {
    if (name.empty()) continue;
    const BackendDef* def = findBackend(all, name);
    if (!def) throw Error("unknown backend '" + name + "' (see nnfuzz backends)");
    BackendInfo info = probe(*def, limits);
    if (!info.installed) throw Error("backend " + name + " is not usable: " + info.problem);
    chosen.push_back({*def, std::move(info)});
  }
  if (chosen.empty()) throw Error("no backends given");
  return chosen;
}

std::vector<std::unique_ptr<Worker>> makeWorkers(const std::vector<SutChoice>& suts, const WorkerLimits& limits) {
  std::vector<std::unique_ptr<Worker>> workers;
  for (const SutChoice& sut : suts)
    for (const std::string& mode : sut.info.modes) workers.push_back(std::make_unique<Worker>(workerSpec(sut.def, mode, limits)));
  return workers;
}

std::map<std::string, nlohmann::json> workerCommands(const std::vector<SutChoice>& suts) {
  std::map<std::string, nlohmann::json> out;
  for (const SutChoice& sut : suts) {
    nlohmann::json env = nlohmann::json::object();
    for (const auto& [k, v] : sut.def.env) env[k] = v;
    out[sut.def.name] = {{"command", sut.def.command}, {"env", std::move(env)}};
  }
  return out;
}

Oracle oracleNamed(const std::string& policy, const std::vector<SutChoice>& suts) {
  auto named = Policy::named(policy);
  if (!named) throw Error("unknown policy '" + policy + "' (allclose or luo)");
  UnsupportedFilter filter = UnsupportedFilter::defaults();
  for (const SutChoice& sut : suts)
    if (!sut.def.unsupported.empty())
      filter.apply({{"backends", {{sut.def.name, sut.def.unsupported}}}}, "the backends file's " + sut.def.name);
  Oracle oracle(*named, std::move(filter));
  for (const SutChoice& sut : suts)
    if (sut.def.modesOnly) oracle.compareModesOnly(sut.def.name);
  return oracle;
}

std::vector<std::pair<Judgement, const RunOutcome*>> judgeRuns(const Oracle& oracle,
                                                               const std::vector<RunOutcome>& outcomes,
                                                               const std::vector<Tensor>& expected) {
  std::vector<std::pair<Judgement, const RunOutcome*>> judged;
  for (const RunOutcome& out : outcomes)
    judged.emplace_back(expected.empty() ? oracle.judgeWithoutReference(out) : oracle.judge(out, expected), &out);
  for (const RunOutcome& base : outcomes) {
    if (base.mode != kBaselineMode) continue;
    for (const RunOutcome& other : outcomes)
      if (other.backend == base.backend && &other != &base)
        if (auto j = oracle.judgeModes(base, other)) judged.emplace_back(std::move(*j), &other);
  }
  return judged;
}

nlohmann::json sutVersions(const std::vector<SutChoice>& suts) {
  nlohmann::json v = {{"nnfuzz", "0.1.0"}};
  for (const SutChoice& sut : suts) v[sut.def.name] = sut.info.version;
  return v;
}

}  // namespace nnfuzz::campaign
