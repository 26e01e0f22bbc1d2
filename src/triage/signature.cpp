// signature.cpp - building, hashing and grouping bug signatures (see signature.h).
#include "triage/signature.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "triage/frames.h"
#include "triage/normalize.h"
#include "triage/unwrap.h"

namespace nnfuzz {

namespace {

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

// Folder-name-safe: anything but [A-Za-z0-9_.] becomes '_'.
std::string safe(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') c = '_';
  return out;
}

}  // namespace

std::string Signature::canonical() const {
  std::vector<std::string> outs;
  for (size_t k : outputs) outs.push_back(std::to_string(k));
  // An error is its words wherever it is raised: a kernel check that an optimiser's constant
  // folding trips while preparing (MCF) is the check a plain run trips while running (IF).
  const bool error = symptom == "error";
  return "backend: " + backend + "\nmode: " + mode + "\nagainst: " + against +
         (error ? "" : "\nphase: " + phase + "\nclass: " + verdict) + "\nsymptom: " + symptom +
         "\nerror_type: " + errorType + "\nmessage: " + message +
         "\nframes: " + join(frames, " < ") + "\nops: " + join(opTypes, ",") + "\noutputs: " + join(outs, ",") + "\n";
}

std::string Signature::hash() const {
  uint64_t h = 1469598103934665603ull;  // FNV-1a 64: tiny, stable, good enough for naming
  for (unsigned char c : canonical()) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string Signature::bundleName() const {
  std::string name = safe(backend) + "-" + safe(mode);
  if (!against.empty() && against != "reference") name += "-vs-" + safe(against);
  return name + "-" + safe(verdict) + "-" + hash().substr(0, 8);
}

nlohmann::json Signature::toJson() const {
  return {{"backend", backend}, {"mode", mode},       {"against", against},     {"phase", phase},
          {"class", verdict},   {"symptom", symptom}, {"error_type", errorType}, {"message", message},
          {"frames", frames},   {"op_types", opTypes}, {"outputs", outputs}, {"modes", modes}};
}

Signature Signature::fromJson(const nlohmann::json& j) {
  Signature s;
  s.backend = j.at("backend").get<std::string>();
  s.mode = j.at("mode").get<std::string>();
  s.against = j.at("against").get<std::string>();
  s.phase = j.at("phase").get<std::string>();
  s.verdict = j.at("class").get<std::string>();
  s.symptom = j.at("symptom").get<std::string>();
  s.errorType = j.at("error_type").get<std::string>();
  s.message = j.at("message").get<std::string>();
  s.frames = j.at("frames").get<std::vector<std::string>>();
  s.opTypes = j.at("op_types").get<std::vector<std::string>>();
  s.outputs = j.at("outputs").get<std::vector<size_t>>();
  s.modes = j.value("modes", std::vector<std::string>{});  // absent in stores written before folding
  return s;
}

Signature makeSignature(const Judgement& j, const RunOutcome& outcome, const std::vector<std::string>& opTypes) {
  Signature s;
  s.backend = j.backend;
  s.mode = j.mode;
  s.against = j.against;
  s.phase = j.phase;
  s.verdict = std::string(verdictName(j.verdict));
  s.symptom = j.symptom;
  if (j.verdict == Verdict::DCF) {
    // Wrong values carry no message; the model's operators and the outputs hit tell bugs apart.
    std::set<std::string> ops(opTypes.begin(), opTypes.end());
    s.opTypes.assign(ops.begin(), ops.end());
    s.outputs = j.differingOutputs();
    return s;
  }
  switch (outcome.status) {
    case RunStatus::PrepareError:
    case RunStatus::RunError:
      s.errorType = unwrapCompilerError(outcome.errorType, outcome.message).type;
      s.message = normalizeMessage(outcome.message);
      break;
    case RunStatus::Crash:
      // The stderr tail outlives single tests, so only a dying worker's last words are read:
      // its fatal line and backtrace belong to this death.
      s.message = fatalLine(outcome.stderrTail);
      s.frames = extractFrames(outcome.stderrTail);
      break;
    default: break;  // timeouts and memory exhaustion have no words of their own
  }
  return s;
}

std::vector<std::string> opTypesOf(const Graph& graph) {
  std::set<std::string> ops;
  for (NodeId n : graph.nodes()) ops.insert(graph.node(n).op);
  return {ops.begin(), ops.end()};
}

std::vector<std::string> opTypesOf(const onnx::ModelProto& model) {
  std::set<std::string> ops;
  for (const auto& node : model.graph().node()) ops.insert(node.op_type());
  return {ops.begin(), ops.end()};
}

std::pair<std::string, bool> BugTable::record(const Signature& signature) {
  std::string h = signature.hash();
  auto [it, fresh] = bugs_.try_emplace(h, Entry{signature, 0});
  ++it->second.count;
  return {std::move(h), fresh};
}

void BugTable::seed(const Signature& signature, uint64_t count) { bugs_[signature.hash()] = Entry{signature, count}; }

const BugTable::Entry* BugTable::find(const std::string& hash) const {
  auto it = bugs_.find(hash);
  return it == bugs_.end() ? nullptr : &it->second;
}

}  // namespace nnfuzz
