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
#include <nlohmann/json.hpp>
#include <chrono>
#include <sstream>

#include "cli/commands.h"
#include "infer/augment.h"
#include "infer/infer.h"
#include "infer/record.h"
#include "infer/rule_file.h"
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
};

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string runCommand(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw Error("cannot run " + command);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  if (pclose(pipe) != 0) throw Error("command failed: " + command);
  return out;
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

  std::vector<infer::Label> label(const std::vector<infer::Record>& calls) override {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("nnfuzz-infer-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream list(dir / "models.txt");
    for (size_t i = 0; i < calls.size(); ++i) {
      fs::path path = dir / ("m" + std::to_string(i) + ".onnx");
      std::ofstream(path, std::ios::binary) << infer::modelForRecord(calls[i]).SerializeAsString();
      list << path.string() << "\n";
    }
    list.close();
    std::string out = runCommand(python_ + " " + script_ + " < " + (dir / "models.txt").string());
    fs::remove_all(dir);
    std::vector<infer::Label> labels;
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line)) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      infer::Label l;
      std::string kind = j.is_object() ? j.value("label", "") : "";
      if (kind == "pass") {
        l.kind = infer::Label::Pass;
        for (const auto& o : j.at("outputs")) l.outputs.push_back({o[0].get<int>(), o[1].get<std::vector<int64_t>>()});
      } else if (kind == "reject") {
        l.kind = infer::Label::Reject;
      }
      labels.push_back(std::move(l));
    }
    if (labels.size() != calls.size())
      throw Error("tools/ort_label.py answered " + std::to_string(labels.size()) + " of " + std::to_string(calls.size()) +
                  " models");
    return labels;
  }

 private:
  std::string python_, script_, version_;
};

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
  if (set.records.empty()) throw Error("no usable records (check --node-tests and --ops)");
  if (!o.backend.empty()) {
    if (o.backend != "onnxruntime") throw Error("--backend supports onnxruntime only, got " + o.backend);
    OrtAcceptor acceptor;
    infer::AugmentStats stats;
    auto start = std::chrono::steady_clock::now();
    set.records = infer::augment(set.records, acceptor, o.perPartial, &stats);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    labelledBy += "; relabelled and augmented by " + acceptor.name();
    o.options.synth.augmented = true;
    fmt::print("augmentation ({}): {} seeds, {} kept (deterministic, value-independent, accepted); {} mutants: {} "
               "passing, {} counter-examples, {} dropped; {:.1f} s\n",
               acceptor.name(), stats.seeds, stats.seedsKept, stats.mutants, stats.passing, stats.rejected, stats.dropped,
               seconds);
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
    fmt::print("[{}] {}: {} partial operator(s), {:.1f} s so far\n", ++written, r.op, r.partials.size(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    std::fflush(stdout);
  });
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  int shapes = 0, inferred = 0, passingOnly = 0, failed = 0, underOne = 0, opsWithShape = 0;
  for (const auto& t : timings) {
    shapes += t.shapeInferred;
    inferred += t.constraintStatus == infer::ConstraintStatus::Inferred;
    passingOnly += t.constraintStatus == infer::ConstraintStatus::PassingOnly;
    failed += t.constraintStatus == infer::ConstraintStatus::Failed;
    underOne += t.seconds < 1.0;
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
  cmd->add_option("--max-ops", o->options.bank.maxOps, "Operators per expression (the paper uses 5)")->capture_default_str();
  cmd->add_option("--predicate-ops", o->options.synth.predicateOps, "Operators per constraint expression")->capture_default_str();
  cmd->add_option("--budget", o->options.synth.maxCandidates, "Candidate evaluations per partial operator (deterministic budget)")
      ->capture_default_str();
  cmd->add_option("--seconds", o->options.synth.seconds, "Wall-clock budget per partial operator (0: none; not reproducible)")
      ->capture_default_str();
  cmd->callback([o] {
    if (!o->explainOp.empty()) runExplain(*o);
    else runInfer(*o);
  });
}

}  // namespace nnfuzz::cli
