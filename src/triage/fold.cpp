// fold.cpp - the folding rules (see fold.h).
#include "triage/fold.h"

#include <algorithm>
#include <string_view>

#include "triage/normalize.h"

namespace nnfuzz {

Signature culpritSignature(const Signature& dcf, const Culprit& culprit) {
  Signature s = dcf;
  s.verdict = "dcf";
  s.phase = "run";
  s.symptom = "wrong";
  s.errorType.clear();
  s.message.clear();
  s.frames.clear();
  s.opTypes = {culprit.identity()};
  s.outputs.clear();
  return s;
}

bool stillTheBug(const Signature& candidate, const Signature& target) {
  if (candidate == target) return true;
  Signature sameWords = candidate;
  sameWords.message = target.message;
  std::string candidateBefore, targetBefore;
  std::vector<std::string> candidateNodes, targetNodes;
  if (!(sameWords == target) || !failedNodeList(candidate.message, candidateBefore, candidateNodes) ||
      !failedNodeList(target.message, targetBefore, targetNodes) || candidateBefore != targetBefore)
    return false;
  for (const std::string& node : candidateNodes)
    if (std::find(targetNodes.begin(), targetNodes.end(), node) == targetNodes.end()) return false;
  return true;
}

Signature foldDownstream(const Signature& error, const std::optional<Culprit>& wrongValue) {
  if (!wrongValue || (error.verdict != "mcf" && error.verdict != "if")) return error;
  return culpritSignature(error, *wrongValue);
}

Signature namedByExperiment(const Signature& error, const std::string& finding) {
  if (error.verdict != "mcf" && error.verdict != "if") return error;
  Signature s = error;
  s.message = finding;
  s.frames.clear();
  return s;
}

std::optional<Culprit> agreedCulprit(const std::vector<std::optional<Culprit>>& perMode) {
  if (perMode.empty() || !perMode.front()) return std::nullopt;
  for (const auto& c : perMode)
    if (!c || c->identity() != perMode.front()->identity()) return std::nullopt;
  return perMode.front();
}

Signature foldModes(const Signature& s) {
  Signature f = s;
  if (s.mode != kAnyMode) {
    const std::string seen = s.mode + (s.against.empty() || s.against == "reference" ? "" : " vs " + s.against);
    if (std::find(f.modes.begin(), f.modes.end(), seen) == f.modes.end()) f.modes.push_back(seen);
  }
  f.mode = kAnyMode;
  f.against = "reference";
  return f;
}

std::vector<Signature> mergeFolded(const std::vector<Signature>& signatures) {
  std::vector<Signature> out;
  for (const Signature& s : signatures) {
    auto same = std::find(out.begin(), out.end(), s);  // operator== ignores `modes`
    if (same == out.end()) {
      out.push_back(s);
      continue;
    }
    for (const auto& m : s.modes)
      if (std::find(same->modes.begin(), same->modes.end(), m) == same->modes.end()) same->modes.push_back(m);
  }
  return out;
}

}  // namespace nnfuzz
