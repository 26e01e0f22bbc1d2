// cmd_infer.cpp - `nnfuzz infer`: NeuRI rule inference from invocation records.
//
//   nnfuzz infer -o rules/ [--node-tests DIR]... [--ops Conv,MaxPool] [--max-ops 3]
//   nnfuzz infer --explain Conv [--rules rules/]
// Records come from ONNX backend node tests (default: Debian's libonnx-testdata); the
// output is one JSON rule file per operator plus a summary of what was inferred and how
// long each partial operator took.
#include <fmt/core.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <chrono>
#include <sstream>

#include "cli/commands.h"
#include "infer/augment.h"
#include "infer/infer.h"
#include "infer/record.h"
#include "infer/rule_file.h"
#include "infer/schema_probe.h"
#include "support/error.h"

namespace nnfuzz::cli {

namespace {

struct InferCliOptions {
  std::vector<std::string> nodeTests;
  std::string ops;
  std::string out;
  std::string explainOp;
  std::string rulesDir = "rules";
  infer::InferOptions options;  // the library's defaults are the CLI's
  std::string backend;           // "" or "onnxruntime": label and augment with the SUT
  int perPartial = 100;
  double modelSeconds = 10;  // labelling budget per model
  int probes = 0;            // schema probes per default-domain operator with few node tests
  int probeBelow = 3;        // ... fewer node-test records than this
  int probeOpset = 17;       // the newest opset libonnx 1.12's registry knows
  std::string probeSchemas;  // a dump of another domain's schemas (tools/ort_contrib_schemas.py)
};

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

// The command's stdout; `ok` (when given) gets whether it exited 0, else a failure throws.
std::string runCommand(const std::string& command, bool* ok = nullptr) {
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw Error("cannot run " + command);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  bool exitedZero = pclose(pipe) == 0;
  if (ok) *ok = exitedZero;
  else if (!exitedZero) throw Error("command failed: " + command);
  return out;
}

infer::Label parseLabel(const std::string& line) {
  auto j = nlohmann::json::parse(line, nullptr, false);
  infer::Label l;
  std::string kind = j.is_object() ? j.value("label", "") : "";
  if (kind == "pass") {
    l.kind = infer::Label::Pass;
    for (const auto& o : j.at("outputs")) l.outputs.push_back({o[0].get<int>(), o[1].get<std::vector<int64_t>>()});
  } else if (kind == "reject") {
    l.kind = infer::Label::Reject;
  }
  return l;
}

// ONNX Runtime as NeuRI's acceptor: tools/ort_label.py labels a batch of single-operator
// models (random inputs, determinism and value-independence checks).
class OrtAcceptor : public infer::Acceptor {
 public:
  OrtAcceptor() {
    const char* env = std::getenv("NNFUZZ_PYTHON");
    python_ = env ? env : std::string(NNFUZZ_SOURCE_DIR) + "/.venv/bin/python";
    script_ = std::string(NNFUZZ_SOURCE_DIR) + "/tools/ort_label.py";
    std::string v = runCommand(python_ + " -c 'import onnxruntime; print(onnxruntime.__version__)' 2>/dev/null");
    version_ = "onnxruntime " + v.substr(0, v.find('\n'));
  }
  std::string name() const override { return version_; }

  /// Models over the labelling budget (`modelSeconds` each) are dropped; the helper exits
  /// on such a model and is started again after it, so a batch always ends.
  std::vector<infer::Label> label(const std::vector<infer::Record>& calls) override {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("nnfuzz-infer-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::vector<std::string> paths;
    for (size_t i = 0; i < calls.size(); ++i) {
      paths.push_back((dir / ("m" + std::to_string(i) + ".onnx")).string());
      std::ofstream(paths.back(), std::ios::binary) << infer::modelForRecord(calls[i]).SerializeAsString();
    }
    std::vector<infer::Label> labels;
    while (labels.size() < calls.size()) {
      {
        std::ofstream list(dir / "models.txt");
        for (size_t i = labels.size(); i < calls.size(); ++i) list << paths[i] << "\n";
      }
      bool finished = false;
      std::string out = runCommand(python_ + " " + script_ + " --model-seconds " + std::to_string(modelSeconds_) + " < " +
                                       (dir / "models.txt").string() + " 2>" + (dir / "stderr.txt").string(),
                                   &finished);
      std::istringstream lines(out);
      std::string line;
      while (std::getline(lines, line) && labels.size() < calls.size()) labels.push_back(parseLabel(line));
      if (finished) break;
      std::ifstream errFile(dir / "stderr.txt");
      std::string err((std::istreambuf_iterator<char>(errFile)), std::istreambuf_iterator<char>());
      const bool overBudget = err.find("Timeout (") != std::string::npos;  // faulthandler's words
      // A Python traceback otherwise is a failure of the helper; no traceback, a crash of
      // ONNX Runtime itself on the model it was on (kept, as any crash found is).
      if (!overBudget && err.find("Traceback (most recent call last)") != std::string::npos) {
        fs::remove_all(dir);
        throw Error("tools/ort_label.py failed: " + err.substr(0, err.find('\n')));
      }
      if (labels.size() < calls.size()) {
        if (!overBudget) keepCrash(paths[labels.size()], calls[labels.size()], err);
        labels.emplace_back();  // the model the helper was on: dropped
        ++(overBudget ? overBudget_ : crashes_);
      }
    }
    fs::remove_all(dir);
    if (labels.size() != calls.size())
      throw Error("tools/ort_label.py answered " + std::to_string(labels.size()) + " of " + std::to_string(calls.size()) +
                  " models");
    return labels;
  }
  void setModelSeconds(double s) { modelSeconds_ = s; }
  int overBudget() const { return overBudget_; }
  int crashes() const { return crashes_; }
  static std::filesystem::path crashDir() { return std::filesystem::temp_directory_path() / "nnfuzz-infer-crashes"; }

 private:
  // A model ONNX Runtime crashed on, with what the helper printed, for a bug report.
  void keepCrash(const std::string& model, const infer::Record& call, const std::string& err) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(crashDir(), ec);
    const std::string stem = (call.domain.empty() ? "" : call.domain + ".") + call.op + "-" + std::to_string(::getpid()) +
                             "-" + std::to_string(crashes_);
    fs::copy_file(model, crashDir() / (stem + ".onnx"), fs::copy_options::overwrite_existing, ec);
    std::ofstream(crashDir() / (stem + ".txt")) << call.source << "\n" << err;
  }

  std::string python_, script_, version_;
  double modelSeconds_ = 10;
  int overBudget_ = 0;
  int crashes_ = 0;
};

// Schema probes for every default-domain operator (of `--ops`, if given) with fewer than
// `probeBelow` node-test records.
std::vector<infer::Record> schemaProbes(const InferCliOptions& o, const std::vector<infer::Record>& records) {
  std::map<std::string, int> perOp;
  for (const auto& r : records)
    if (r.domain.empty()) ++perOp[r.op];
  const std::vector<std::string> only = splitList(o.ops);
  std::vector<infer::Record> probes;
  std::map<std::string, int> obstacles;
  int operators = 0;
  for (const std::string& op : infer::defaultDomainOperators(o.probeOpset)) {
    if (!only.empty() && std::find(only.begin(), only.end(), op) == only.end()) continue;
    if (perOp[op] >= o.probeBelow) continue;
    std::string why;
    uint64_t seed = 1469598103934665603ull;  // FNV-1a of the name: the same probes on every machine
    for (unsigned char c : op) seed = (seed ^ c) * 1099511628211ull;
    auto made = infer::probeRecords(op, o.probeOpset, o.probes, seed, &why);
    if (made.empty()) ++obstacles[why.substr(0, why.find(' '))];
    else ++operators;
    probes.insert(probes.end(), made.begin(), made.end());
  }
  fmt::print("schema probes: {} call(s) of {} operator(s) with fewer than {} node-test records", probes.size(), operators,
             o.probeBelow);
  for (const auto& [why, n] : obstacles) fmt::print("; {} without probes ({})", n, why);
  fmt::print("\n");
  if (!o.probeSchemas.empty()) {
    const infer::SchemaDump dump = infer::loadSchemaDump(o.probeSchemas);
    size_t calls = 0;
    int probed = 0, without = 0;
    for (const std::string& op : dump.cpuOperators()) {
      const std::string full = dump.domain + "." + op;
      if (!only.empty() && std::find(only.begin(), only.end(), full) == only.end()) continue;
      std::string why;
      uint64_t seed = 1469598103934665603ull;  // FNV-1a of the qualified name
      for (unsigned char c : full) seed = (seed ^ c) * 1099511628211ull;
      auto made = infer::probeDumpRecords(dump, op, o.probes, seed, &why);
      if (made.empty()) ++without;
      else ++probed;
      calls += made.size();
      probes.insert(probes.end(), made.begin(), made.end());
    }
    fmt::print("{} schema probes (onnxruntime {}'s, {} with a CPU kernel): {} call(s) of {} operator(s), {} without "
               "probes\n",
               dump.domain, dump.onnxruntime, dump.cpuOperators().size(), calls, probed, without);
  }
  return probes;
}

void runExplain(const InferCliOptions& o) {
  for (const auto& rules : infer::readRuleFiles(o.rulesDir)) {
    std::string full = (rules.domain.empty() ? "" : rules.domain + ".") + rules.op;
    if (rules.op == o.explainOp || full == o.explainOp) {
      fmt::print("{}", infer::explain(rules));
      return;
    }
  }
  throw Error("no rule file for operator " + o.explainOp + " in " + o.rulesDir);
}

void runInfer(InferCliOptions o) {
  if (o.out.empty()) throw Error("infer needs -o DIR (or --explain OP)");
  if (o.options.bank.maxOps < 0 || o.options.bank.maxOps > 5) throw Error("--max-ops must be in 0..5");
  if (o.options.synth.predicateOps < 0 || o.options.synth.predicateOps > o.options.bank.maxOps)
    throw Error("--predicate-ops must be in 0..--max-ops");
  std::vector<std::string> dirs = o.nodeTests;
  if (dirs.empty()) dirs.push_back(NNFUZZ_DEFAULT_NODE_TESTS);
  std::string labelledBy;
  infer::RecordSet set = infer::collectNodeTests(dirs, splitList(o.ops), &labelledBy);
  if (set.records.empty() && o.probes == 0) throw Error("no usable records (check --node-tests and --ops)");
  if (o.probes > 0 && o.backend.empty()) throw Error("--probe needs an acceptor: --backend onnxruntime");
  if (!o.probeSchemas.empty() && o.probes == 0) throw Error("--probe-schemas needs --probe N (calls per operator)");
  if (!o.backend.empty()) {
    if (o.backend != "onnxruntime") throw Error("--backend supports onnxruntime only, got " + o.backend);
    OrtAcceptor acceptor;
    acceptor.setModelSeconds(o.modelSeconds);
    infer::AugmentStats stats;
    auto start = std::chrono::steady_clock::now();
    std::vector<infer::Record> probes = o.probes > 0 ? schemaProbes(o, set.records) : std::vector<infer::Record>{};
    set.records = infer::augment(set.records, acceptor, o.perPartial, &stats, probes);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    labelledBy += "; relabelled and augmented by " + acceptor.name();
    if (!o.probeSchemas.empty()) labelledBy += "; " + infer::loadSchemaDump(o.probeSchemas).domain + " schemas probed";
    o.options.synth.augmented = true;
    fmt::print("augmentation ({}): {} seeds, {} kept (deterministic, value-independent, accepted); {} mutants: {} "
               "passing, {} counter-examples, {} dropped; {:.1f} s\n",
               acceptor.name(), stats.seeds, stats.seedsKept, stats.mutants, stats.passing, stats.rejected, stats.dropped,
               seconds);
    if (stats.probes)
      fmt::print("  schema probes: {} passing, {} counter-examples, {} dropped\n", stats.probesPassing, stats.probesRejected,
                 stats.probes - stats.probesPassing - stats.probesRejected);
    if (acceptor.overBudget()) fmt::print("  {} model(s) over the labelling budget ({} s each): dropped\n", acceptor.overBudget(), o.modelSeconds);
    if (acceptor.crashes())
      fmt::print("  {} model(s) crashed ONNX Runtime: dropped, kept in {}\n", acceptor.crashes(), OrtAcceptor::crashDir().string());
  }

  infer::InferOptions options = o.options;
  options.labelledBy = labelledBy;
  std::vector<infer::PartialTiming> timings;
  auto start = std::chrono::steady_clock::now();
  // Each operator's file is written as soon as it is done: a run over every operator takes
  // long, and what it finished is kept (an operator's rules do not depend on the others).
  size_t written = 0;
  auto rules = infer::inferRules(set.records, options, &timings, [&](const infer::OperatorRules& r) {
    infer::writeRuleFile(o.out, r);
    fmt::print("[{}] {}: {} partial operator(s), {:.1f} s so far\n", ++written,
               r.domain.empty() ? r.op : r.domain + "." + r.op, r.partials.size(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    std::fflush(stdout);
  });
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  int shapes = 0, inferred = 0, passingOnly = 0, failed = 0, underOne = 0, opsWithShape = 0, cut = 0;
  for (const auto& t : timings) {
    shapes += t.shapeInferred;
    inferred += t.constraintStatus == infer::ConstraintStatus::Inferred;
    passingOnly += t.constraintStatus == infer::ConstraintStatus::PassingOnly;
    failed += t.constraintStatus == infer::ConstraintStatus::Failed;
    underOne += t.seconds < 1.0;
    cut += t.cutByClock;
  }
  for (const auto& r : rules)
    opsWithShape += std::any_of(r.partials.begin(), r.partials.end(), [](const auto& p) { return p.rule.shapeInferred(); });
  std::vector<double> secs;
  for (const auto& t : timings) secs.push_back(t.seconds);
  std::sort(secs.begin(), secs.end());
  fmt::print("records: {} from {} folder(s)\n", set.records.size(), dirs.size());
  for (const auto& [why, n] : set.skipped) fmt::print("  skipped {}: {}\n", why, n);
  fmt::print("operators: {} ({} with a full shape rule for at least one partial operator)\n", rules.size(), opsWithShape);
  fmt::print("partial operators: {}; shape rule inferred: {}; constraints inferred: {}, passing-only: {}, failed: {}\n",
             timings.size(), shapes, inferred, passingOnly, failed);
  fmt::print("cut by the wall-clock budget ({} s per partial operator): {}\n", o.options.synth.seconds, cut);
  if (!secs.empty())
    fmt::print("time per partial operator: median {:.3f} s, p90 {:.3f} s, max {:.3f} s, {:.1f}% under 1 s; total {:.1f} s\n",
               secs[secs.size() / 2], secs[secs.size() * 9 / 10], secs.back(), 100.0 * underOne / secs.size(), total);
  fmt::print("wrote {} rule files to {}\n", rules.size(), o.out);
}

}  // namespace

void addInferCommand(CLI::App& app) {
  auto o = std::make_shared<InferCliOptions>();
  auto* cmd = app.add_subcommand("infer", "Infer operator rules (NeuRI) from invocation records; --explain prints one");
  cmd->add_option("--node-tests", o->nodeTests,
                  "Folder of ONNX node tests (NAME/model.onnx), repeatable; default: Debian's libonnx-testdata");
  cmd->add_option("--ops", o->ops, "Only these operators (comma-separated)");
  cmd->add_option("-o,--out", o->out, "Folder to write the rule files to");
  cmd->add_option("--explain", o->explainOp, "Print the rule of this operator in readable arithmetic");
  cmd->add_option("--rules", o->rulesDir, "Rule folder --explain reads")->capture_default_str();
  cmd->add_option("--backend", o->backend, "Relabel records and augment them with this SUT (onnxruntime)");
  cmd->add_option("--per-partial", o->perPartial, "Mutants per partial operator (with --backend)")->capture_default_str();
  cmd->add_option("--model-seconds", o->modelSeconds, "Labelling budget per model (with --backend): a model ONNX Runtime "
                  "has not labelled by then is dropped")->capture_default_str();
  cmd->add_option("--probe", o->probes,
                  "Schema probes per default-domain operator with few node tests (with --backend; 0: none)")
      ->capture_default_str();
  cmd->add_option("--probe-below", o->probeBelow, "Probe operators with fewer node-test records than this")
      ->capture_default_str();
  cmd->add_option("--probe-opset", o->probeOpset, "Opset whose schemas are probed")->capture_default_str();
  cmd->add_option("--probe-schemas", o->probeSchemas,
                  "Also probe another domain's operators from this schema dump (tools/ort_contrib_schemas.py; "
                  "--ops names them qualified, e.g. com.microsoft.Gelu)");
  cmd->add_option("--max-ops", o->options.bank.maxOps, "Operators per expression (the paper uses 5)")->capture_default_str();
  cmd->add_option("--predicate-ops", o->options.synth.predicateOps, "Operators per constraint expression")->capture_default_str();
  cmd->add_option("--budget", o->options.synth.maxCandidates, "Candidate evaluations per partial operator (deterministic budget)")
      ->capture_default_str();
  cmd->add_option("--seconds", o->options.synth.seconds,
                  "Wall-clock budget per partial operator over every phase (0: none); a rule it cuts is marked cut_by_clock")
      ->capture_default_str();
  cmd->callback([o] {
    if (!o->explainOp.empty()) runExplain(*o);
    else runInfer(*o);
  });
}

}  // namespace nnfuzz::cli
