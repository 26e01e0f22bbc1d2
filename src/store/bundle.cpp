// bundle.cpp - writing bug bundles (see bundle.h).
#include "store/bundle.h"

#include <unistd.h>

#include <atomic>
#include <chrono>

#include "interp/interpreter.h"
#include "onnx/export.h"
#include "onnx/import.h"
#include "onnx/tensor_proto.h"
#include "store/issue_markdown.h"
#include "store/repro.h"
#include "caffe/export.h"
#include "support/error.h"

namespace nnfuzz {

namespace fs = std::filesystem;

namespace {

void writeTensors(const fs::path& dir, const char* kind, const std::vector<Tensor>& tensors,
                  const std::vector<std::string>& names) {
  fs::create_directories(dir);
  for (size_t k = 0; k < tensors.size(); ++k)
    writeTensorFile(dir / (std::string(kind) + "_" + std::to_string(k) + ".pb"), tensors[k],
                    k < names.size() ? names[k] : std::string(kind) + "_" + std::to_string(k));
}

std::string errorText(const BundleFinding& f) {
  const RunOutcome& o = f.outcome;
  std::string t = "verdict: " + std::string(verdictName(f.judgement.verdict)) + " (" + f.judgement.reason + ")\n";
  t += "backend: " + o.backend + " " + o.version + ", mode " + o.mode + "\n";
  t += "status: " + std::string(runStatusName(o.status)) + (o.phase.empty() ? "" : " in " + o.phase) + "\n";
  if (o.signal) t += "signal: " + signalName(o.signal) + "\n";
  if (!o.errorType.empty()) t += "error type: " + o.errorType + "\n";
  for (const auto& d : f.judgement.diffs) t += "differs: " + d.detail + "\n";
  if (!o.message.empty()) t += "\n--- message\n" + o.message + (o.message.back() == '\n' ? "" : "\n");
  if (!o.stderrTail.empty()) t += "\n--- stderr (tail)\n" + o.stderrTail + (o.stderrTail.back() == '\n' ? "" : "\n");
  return t;
}

double reproTimeout(const BundleFinding& f) {
  // A hang is reproduced under the limit that caught it; anything else gets room to finish.
  if (f.judgement.symptom == "timeout") {
    const double limit = f.judgement.phase == "prepare" ? f.prepareLimitSeconds : f.runLimitSeconds;
    if (limit > 0) return limit;
  }
  return 600;
}

nlohmann::json reproFacts(const BundleFinding& f, const std::string& name) {
  nlohmann::json env = nlohmann::json::object();
  for (const auto& [k, v] : f.env) env[k] = v;
  const Signature& s = f.signature;
  return {{"bundle", name},       {"reason", f.judgement.reason},  {"backend", s.backend},
          {"mode", f.outcome.mode.empty() ? s.mode : f.outcome.mode},  {"against", s.against},          {"class", s.verdict},
          {"phase", s.phase},     {"symptom", s.symptom},          {"message", s.message},
          {"policy", f.policy.toJson()},  {"env", env},             {"timeout_seconds", reproTimeout(f)},
          {"memory_limit_mb", f.memoryLimitMb}, {"worker", f.worker}};
}

/// Where the outputs the run was judged against came from (the bundle's meta says it).
std::string expectedFrom(const BundleFinding& f) {
  const std::string& against = f.judgement.against;
  if (against == "reference") return "nnfuzz's reference (test_data_set_0)";
  if (against.find(':') != std::string::npos && f.baseline)
    return "no trusted reference: the run of " + against + " (actual/" + f.baseline->backend + "-" + f.baseline->mode + ")";
  return "this SUT's " + against + " mode (actual/" + against + ")";
}

}  // namespace

BundleCase bundleCase(const Graph& graph, const std::vector<Tensor>& inputs, const std::vector<Tensor>& expected,
                      const nlohmann::json& meta, int opset, bool caffeForm) {
  BundleCase c;
  c.caffeForm = caffeForm;
  c.model = exportModel(graph, opset);
  c.graph = graph;
  c.inputs = inputs;
  c.expected = expected;
  const auto& g = c.model.graph();
  for (int k = 0; k < g.input_size(); ++k) c.inputNames.push_back(g.input(k).name());
  for (int k = 0; k < g.output_size(); ++k) c.outputNames.push_back(g.output(k).name());
  c.meta = meta;
  // The graph's own: a reduced sub-case's outputs are not its original's.
  const std::vector<size_t> unreferenced = unreferencedOutputs(graph);
  if (c.meta.is_object()) c.meta.erase("no_reference_outputs");
  if (!unreferenced.empty()) c.meta["no_reference_outputs"] = unreferenced;
  return c;
}

BundleCase bundleCase(const CaseData& data) {
  BundleCase c;
  c.model = data.model;
  c.graph = data.graph;
  c.inputs = data.inputs;
  c.expected = data.expected;
  c.inputNames = data.inputNames;
  c.outputNames = data.outputNames;
  if (data.meta) c.meta = *data.meta;
  return c;
}

fs::path writeBundle(const fs::path& root, const BundleCase& c, const BundleFinding& f) {
  const std::string name = f.signature.bundleName();
  const fs::path dir = root / name;
  std::error_code ec;
  if (fs::exists(dir, ec)) return dir;
  fs::create_directories(root, ec);
  static std::atomic<unsigned> counter{0};  // unique temp names for concurrent writers in one process
  const fs::path temp = root / ("." + name + ".partial-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::remove_all(temp, ec);
  try {
    fs::create_directories(temp);
    saveModelFile(temp / "model.onnx", c.model);
    if (c.caffeForm && c.graph) tryWriteCaffeCase(temp, *c.graph, c.inputs, c.expected);
    writeTensors(temp / "test_data_set_0", "input", c.inputs, c.inputNames);
    writeTensors(temp / "test_data_set_0", "output", c.expected, c.outputNames);
    if (!f.outcome.outputs.empty()) writeTensors(temp / "actual", "output", f.outcome.outputs, c.outputNames);
    // Another SUT's run (a test without our reference) goes under its backend's name too.
    if (f.baseline && !f.baseline->outputs.empty())
      writeTensors(temp / "actual" /
                       (f.baseline->backend == f.outcome.backend ? f.baseline->mode
                                                                 : f.baseline->backend + "-" + f.baseline->mode),
                   "output", f.baseline->outputs, c.outputNames);
    writeFileBytes(temp / "error.txt", errorText(f));
    if (c.graph) writeFileBytes(temp / "model.ir", printGraph(*c.graph));
    if (c.original) saveModelFile(temp / "original.onnx", *c.original);
    nlohmann::json diffs = nlohmann::json::array();
    for (const auto& d : f.judgement.diffs)
      diffs.push_back({{"output", d.output}, {"kind", std::string(diffKindName(d.kind))}, {"detail", d.detail},
                       {"bad_elements", d.badElements}, {"max_abs_error", d.maxAbsError},
                       {"max_rel_error", d.maxRelError}});
    nlohmann::json meta = {
        {"bundle", name},
        {"hash", f.signature.hash()},
        {"class", f.signature.verdict},
        {"backend", f.outcome.backend},
        {"mode", f.outcome.mode},
        {"against", f.judgement.against},
        {"expected_outputs", expectedFrom(f)},
        {"reason", f.judgement.reason},
        {"status", runStatusName(f.outcome.status)},
        {"error_type", f.outcome.errorType},
        {"signal", f.outcome.signal},
        {"diffs", diffs},
        {"signature", f.signature.toJson()},
        {"policy", f.policy.toJson()},
        {"versions", f.versions},
        {"seed", c.meta.contains("seed") ? c.meta["seed"] : nlohmann::json()},
        {"case", c.meta},
        {"times", {{"prepare_seconds", f.outcome.prepareSeconds}, {"run_seconds", f.outcome.runSeconds}}},
        {"written_at", std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count()}};
    if (c.graph) {  // outputs fed by an operator without a spec: test_data_set_0 holds zeros there
      nlohmann::json names = nlohmann::json::array();
      for (size_t k : unreferencedOutputs(*c.graph))
        if (k < c.outputNames.size()) names.push_back(c.outputNames[k]);
      if (!names.empty()) meta["no_reference_outputs"] = names;
    }
    // Replace invalid UTF-8 (SUT messages are arbitrary bytes) rather than throw.
    writeFileBytes(temp / "meta.json", meta.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    writeFileBytes(temp / "repro.py", renderRepro(reproFacts(f, name)));
    fs::permissions(temp / "repro.py", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add);
    // Last: the README is made from the files above, as `nnfuzz report --bug` makes it.
    writeFileBytes(temp / "README.md", issueMarkdown(temp));
    fs::rename(temp, dir, ec);
    if (ec) {
      fs::remove_all(temp);
      if (fs::exists(dir)) return dir;  // another writer got there first: same bug, same bundle
      throw Error("cannot move bundle into place at " + dir.string() + ": " + ec.message());
    }
  } catch (const Error&) {
    fs::remove_all(temp, ec);
    throw;
  } catch (const std::exception& e) {
    fs::remove_all(temp, ec);
    throw Error("cannot write bundle " + dir.string() + ": " + e.what());
  }
  return dir;
}

size_t removePartialBundles(const fs::path& root) {
  std::error_code ec;
  size_t removed = 0;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 1 && name[0] == '.' && name.find(".partial-") != std::string::npos) {
      fs::remove_all(entry.path(), ec);
      ++removed;
    }
  }
  return removed;
}

}  // namespace nnfuzz
