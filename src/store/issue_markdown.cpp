// issue_markdown.cpp - a bundle's upstream-issue README (see issue_markdown.h).
#include "store/issue_markdown.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "onnx/import.h"
#include "onnx/tensor_proto.h"
#include "ops/schema_history.h"
#include "oracle/policy.h"
#include "store/onnx_snippet.h"
#include "store/op_notes.h"
#include "store/repro.h"
#include "support/error.h"
#include "triage/signature.h"

namespace nnfuzz {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMismatchesShown = 5;  ///< per output: enough to see the pattern
constexpr size_t kMessageLines = 30;
constexpr size_t kTitleMessageChars = 90;

std::string readText(const fs::path& path) {
  std::error_code ec;
  return fs::exists(path, ec) ? readFileBytes(path) : std::string();
}

/// output_0.pb, output_1.pb, ... of a folder, until the first missing one.
std::vector<Tensor> readOutputs(const fs::path& dir, const char* kind) {
  std::vector<Tensor> out;
  std::error_code ec;
  for (size_t k = 0;; ++k) {
    const fs::path file = dir / (std::string(kind) + "_" + std::to_string(k) + ".pb");
    if (!fs::exists(file, ec)) break;
    out.push_back(readTensorFile(file));
  }
  return out;
}

/// The line of a message that says what failed: the first one that does not merely introduce
/// the next ("Exception from src/core/src/node.cpp:123:"), else the first.
std::string headline(const std::string& text) {
  std::istringstream in(text);
  std::string line, first;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    if (first.empty()) first = line;
    if (line.back() != ':') return line;
  }
  return first;
}

std::string shorten(const std::string& text, size_t chars) {
  return text.size() <= chars ? text : text.substr(0, chars - 3) + "...";
}

/// The part of error.txt between `--- name` and the next section.
std::string errorSection(const std::string& errorTxt, const std::string& name) {
  const std::string marker = "--- " + name + "\n";
  const size_t at = errorTxt.find(marker);
  if (at == std::string::npos) return "";
  const size_t from = at + marker.size();
  const size_t to = errorTxt.find("\n--- ", from);
  std::string s = errorTxt.substr(from, to == std::string::npos ? std::string::npos : to - from + 1);
  // Long messages: the first lines say what failed; the rest is usually a stack.
  std::istringstream in(s);
  std::string line, kept;
  size_t n = 0;
  while (std::getline(in, line)) {
    if (++n > kMessageLines) {
      kept += "...\n";
      break;
    }
    kept += line + "\n";
  }
  return kept;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : sep) + i;
  return s;
}

/// j[key] when it is an object, else an empty one (meta.json fields may be null or absent).
nlohmann::json objectAt(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_object() ? j[key] : nlohmann::json::object();
}

/// j[key] when it is a string, else `fallback`.
std::string stringAt(const nlohmann::json& j, const char* key, const std::string& fallback = "") {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : fallback;
}

std::string code(const std::string& s) { return "`" + s + "`"; }

/// The operator a culprit text names: "Div(i8,i8)" and "LRN{bias}" name Div and LRN.
std::string opOfCulprit(const std::string& culprit) { return culprit.substr(0, culprit.find_first_of("({")); }

/// Everything the README says, gathered from the bundle folder.
struct BundleFacts {
  nlohmann::json meta;
  onnx::ModelProto model;
  std::string name, backend, version, mode, against, cls, reason, symptom, phase;
  std::vector<std::string> seenIn, modelOps;  ///< modelOps: distinct, in node order
  std::string culprit;                         ///< the culprit's text, or "" when none is known
  std::vector<std::string> passes;             ///< SUT passes that, switched off alone, make it pass
  Policy policy;
  int opset = 0;
  int64_t originalNodes = -1;
};

BundleFacts readFacts(const fs::path& dir) {
  BundleFacts f;
  const fs::path metaFile = dir / "meta.json";
  if (!fs::exists(metaFile)) throw Error("not a bug bundle (no meta.json): " + dir.string());
  f.meta = nlohmann::json::parse(readFileBytes(metaFile), nullptr, false);
  if (!f.meta.is_object()) throw Error("bundle " + dir.string() + ": meta.json is not a JSON object");
  f.model = loadModelFile(dir / "model.onnx");
  const auto& m = f.meta;
  f.name = stringAt(m, "bundle", dir.filename().string());
  f.backend = stringAt(m, "backend");
  f.mode = stringAt(m, "mode");
  f.against = stringAt(m, "against", "reference");
  f.cls = stringAt(m, "class");
  f.reason = stringAt(m, "reason");
  const auto versions = objectAt(m, "versions");
  if (versions.contains(f.backend) && versions[f.backend].is_string()) f.version = versions[f.backend].get<std::string>();
  const auto sig = objectAt(m, "signature");
  f.symptom = stringAt(sig, "symptom");
  f.phase = stringAt(sig, "phase");
  for (const auto& s : sig.value("modes", nlohmann::json::array()))
    if (s.is_string()) f.seenIn.push_back(s.get<std::string>());
  if (f.seenIn.empty()) f.seenIn.push_back(f.against == "reference" ? f.mode : f.mode + " vs " + f.against);
  const auto reduced = objectAt(objectAt(m, "case"), "reduced");
  if (f.cls == "dcf" && reduced.contains("culprit") && reduced["culprit"].is_string()) f.culprit = reduced["culprit"].get<std::string>();
  for (const auto& p : reduced.value("culprit_passes", nlohmann::json::array()))
    if (p.is_string()) f.passes.push_back(p.get<std::string>());
  if (reduced.contains("from_nodes") && reduced["from_nodes"].is_number_integer())
    f.originalNodes = reduced["from_nodes"].get<int64_t>();
  if (f.culprit.empty() && f.cls == "dcf" && sig.value("op_types", nlohmann::json::array()).size() == 1)
    f.culprit = sig["op_types"][0].get<std::string>();
  try {
    f.policy = Policy::fromJson(objectAt(m, "policy"));
  } catch (const Error&) {
  }
  for (const auto& node : f.model.graph().node())
    if (std::find(f.modelOps.begin(), f.modelOps.end(), node.op_type()) == f.modelOps.end())
      f.modelOps.push_back(node.op_type());
  f.opset = defaultOpset(f.model).value_or(0);
  return f;
}

std::string sutText(const BundleFacts& f) { return f.backend + (f.version.empty() ? "" : " " + f.version); }

std::string subject(const BundleFacts& f) {
  if (!f.culprit.empty()) return opOfCulprit(f.culprit);
  if (f.modelOps.size() == 1) return f.modelOps[0];
  return "a model with " + join(f.modelOps, ", ");
}

std::string title(const BundleFacts& f, const std::string& message) {
  const std::string where = " (mode " + f.mode + ")";
  const std::string sut = sutText(f) + ": ";
  if (f.cls == "dcf") {
    if (f.against != "reference")
      return sut + subject(f) + " gives different results in modes " + f.mode + " and " + f.against;
    return sut + subject(f) + " returns wrong values" + where;
  }
  const std::string doing = f.phase == "prepare" ? "preparing " : "running ";
  if (f.symptom.rfind("crash", 0) == 0 || f.symptom == "timeout" || f.symptom == "out-of-memory")
    return sut + f.symptom + " " + doing + subject(f) + where;
  const std::string verb = f.phase == "prepare" ? "fails to prepare " : "fails running ";
  return sut + verb + subject(f) + where + (message.empty() ? "" : ": " + shorten(message, kTitleMessageChars));
}

std::string policyText(const Policy& p) {
  if (p.kind == PolicyKind::AllClose) return "allclose (atol " + formatValue(p.atol) + ", rtol " + formatValue(p.rtol) + ")";
  return "Luo's rule (at most " + formatValue(p.luoMaxFraction * 100) + "% of elements off by more than " +
         formatValue(p.luoRelError * 100) + "%)";
}

std::string classText(const BundleFacts& f) {
  const std::string against = f.against == "reference" ? "nnfuzz's reference interpreter (double accumulation)"
                                                       : "the same SUT in mode " + code(f.against);
  if (f.cls == "dcf") return "wrong result (DCF), compared with " + against + ", " + policyText(f.policy);
  if (f.cls == "mcf") return "model conversion failure (MCF): the " + f.phase + " phase fails";
  return "inference failure (IF): " + f.symptom + " in the " + f.phase + " phase";
}

std::string mismatchTable(const fs::path& dir, const BundleFacts& f) {
  const auto expected = f.against == "reference" ? readOutputs(dir / "test_data_set_0", "output")
                                                 : readOutputs(dir / "actual" / f.against, "output");
  const auto actual = readOutputs(dir / "actual", "output");
  const std::string expectedName = f.against == "reference" ? "expected (reference)" : "expected (" + f.against + ")";
  std::string t;
  for (const auto& d : f.meta.value("diffs", nlohmann::json::array())) {
    const size_t k = d.value("output", size_t{0});
    const std::string kind = stringAt(d, "kind");
    if (k >= expected.size() || k >= actual.size()) continue;
    const Tensor& e = expected[k];
    const Tensor& a = actual[k];
    std::string name = "output " + std::to_string(k);
    if (k < static_cast<size_t>(f.model.graph().output_size())) name += " (" + code(f.model.graph().output(static_cast<int>(k)).name()) + ")";
    if (kind == "dtype" || kind == "shape") {
      t += "- " + name + ": " + toString(a.type) + ", expected " + toString(e.type) + "\n";
      continue;
    }
    const bool exact = !isFloat(e.type.dtype);
    t += "\n" + name + ", " + toString(e.type) + ": " + std::to_string(d.value("bad_elements", int64_t{0})) + " of " +
         std::to_string(e.numel()) + " elements differ\n\n";
    t += "| element | " + expectedName + " | actual | abs error |\n| --- | --- | --- | --- |\n";
    size_t shown = 0;
    for (size_t i = 0; i < e.data.size() && i < a.data.size() && shown < kMismatchesShown; ++i) {
      if (!elementDiffers(a.data[i], e.data[i], exact, f.policy)) continue;
      ++shown;
      t += "| " + elementIndex(e.type.shape, i) + " | " + formatValue(e.data[i]) + " | " + formatValue(a.data[i]) +
           " | " + formatValue(std::abs(a.data[i] - e.data[i])) + " |\n";
    }
  }
  return t;
}

std::string specNotes(const BundleFacts& f) {
  std::vector<std::string> ops;
  if (!f.culprit.empty()) ops.push_back(opOfCulprit(f.culprit));
  for (const auto& op : f.modelOps)
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
  std::string t;
  for (const auto& op : ops) {
    const auto note = onnxOpNote(op);
    if (!note) continue;
    const SchemaVersion* version = f.opset > 0 ? schemaAt(op, f.opset) : nullptr;
    const auto since = version ? std::optional<int>(version->since) : schemaSinceVersion(op, f.opset);
    t += "- **" + op + "**" + (since ? " (" + op + "-" + std::to_string(*since) + ", [spec](" + onnxOpDocUrl(op) + "))" : "") +
         ": " + *note + "\n";
  }
  return t;
}

std::string reproSection(const fs::path& dir, const BundleFacts& f) {
  const std::string pkg = pipPackageOf(f.backend) + (f.version.empty() ? "" : "==" + f.version);
  std::string t = "```sh\npip install " + pkg + " " + reproExtraPackages(f.backend) + "numpy onnx\npython3 repro.py   # in this folder: exit 1 while the bug is "
                  "present, 0 once it is fixed\n```\n\n";
  if (!hasReproTemplate(f.backend))
    t += "nnfuzz has no Python template for `" + f.backend + "`: fill in `prepare()` and `run()` in repro.py.\n\n";
  t += "With nnfuzz (the bundle is a case folder): `nnfuzz run " + f.name + " --backends " + f.backend + "`\n";
  std::error_code ec;
  if (!fs::exists(dir / "repro.py", ec)) t += "\n(repro.py is missing from this bundle.)\n";
  return t;
}

std::string filesTable(const fs::path& dir, const BundleFacts& f) {
  std::error_code ec;
  auto has = [&](const char* p) { return fs::exists(dir / p, ec); };
  std::string t = "| file | what |\n| --- | --- |\n";
  t += "| model.onnx | the reduced model (" + std::to_string(f.model.graph().node_size()) + " nodes) |\n";
  t += "| test_data_set_0/ | its inputs and nnfuzz's reference outputs (ONNX backend-test layout) |\n";
  if (has("actual")) t += "| actual/ | the outputs " + f.backend + " returned |\n";
  if (has("error.txt")) t += "| error.txt | the verdict, the SUT's message and the worker's stderr tail |\n";
  t += "| meta.json | versions, seed, signature, class, comparison policy |\n";
  if (has("model.ir")) t += "| model.ir | the model in nnfuzz's text IR |\n";
  if (has("original.onnx"))
    t += "| original.onnx | the generated model it was reduced from" +
         (f.originalNodes >= 0 ? " (" + std::to_string(f.originalNodes) + " nodes)" : std::string()) + " |\n";
  if (has("repro.py")) t += "| repro.py | stand-alone reproduction |\n";
  return t;
}

}  // namespace

std::string issueMarkdown(const fs::path& dir) {
  const BundleFacts f = readFacts(dir);
  const std::string errorTxt = readText(dir / "error.txt");
  const std::string message = errorSection(errorTxt, "message");
  std::string t = "# " + title(f, headline(message)) + "\n\n";

  t += "| | |\n| --- | --- |\n";
  t += "| SUT | " + sutText(f) + " (Python package `" + pipPackageOf(f.backend) + "`) |\n";
  t += "| mode | " + code(f.mode) + (f.seenIn.size() > 1 ? "; seen in: " + join(f.seenIn, ", ") : "") + " |\n";
  t += "| class | " + classText(f) + " |\n";
  t += "| model | " + std::to_string(f.model.graph().node_size()) + " node(s): " + join(f.modelOps, ", ") +
       (f.originalNodes >= 0 ? "; reduced from " + std::to_string(f.originalNodes) + " nodes" : "") + ", opset " +
       std::to_string(f.opset) + " |\n";
  if (!f.culprit.empty()) t += "| culprit | " + code(f.culprit) + ": the first operator whose output goes wrong |\n";
  if (!f.passes.empty()) {
    std::vector<std::string> names;
    for (const std::string& p : f.passes) names.push_back(code(p));
    t += "| optimizer pass | " + join(names, ", ") + ": switched off alone, the model passes |\n";
  }
  const auto versions = objectAt(f.meta, "versions");
  if (versions.contains("nnfuzz") && versions["nnfuzz"].is_string()) t += "| found by | nnfuzz " + versions["nnfuzz"].get<std::string>() + " |\n";
  t += "| bundle | " + code(f.name) + ", signature " + code(stringAt(f.meta, "hash")) + " |\n\n";

  t += "## What goes wrong\n\n" + f.reason + "\n";
  if (f.cls == "dcf") {
    t += mismatchTable(dir, f);
  } else {
    if (!message.empty()) t += "\nThe SUT's message:\n\n```text\n" + message + "```\n";
    const std::string stderrTail = errorSection(errorTxt, "stderr (tail)");
    if (!stderrTail.empty() && message.empty()) t += "\nThe worker's stderr (tail):\n\n```text\n" + stderrTail + "```\n";
  }

  const std::string ir = readText(dir / "model.ir");
  t += "\n## The model\n\n";
  if (!ir.empty()) t += "nnfuzz's text IR (`%k = weight` values are initializers, `%k = input` runtime inputs):\n\n```text\n" + ir +
                        (ir.back() == '\n' ? "" : "\n") + "```\n\n";
  try {
    const auto inputs = readOutputs(dir / "test_data_set_0", "input");
    t += "Built with `onnx.helper` (no files needed):\n\n```python\n" + onnxHelperSnippet(f.model, inputs) + "```\n";
  } catch (const Error& e) {
    t += "(No onnx.helper script: " + std::string(e.what()) + ")\n";
  }

  t += "\n## Reproduce\n\n" + reproSection(dir, f);
  const std::string notes = specNotes(f);
  if (!notes.empty()) t += "\n## What the ONNX specification says\n\n" + notes;
  t += "\n## Files\n\n" + filesTable(dir, f);
  try {
    const Signature sig = Signature::fromJson(f.meta.at("signature"));
    t += "\nnnfuzz's signature of the bug (equal signatures are one bug):\n\n```\n" + sig.canonical() + "```\n";
  } catch (const std::exception&) {
    // An old or hand-edited meta.json: the hash in the table above still names the bug.
  }
  return t;
}

}  // namespace nnfuzz
