// cmd_mutate.cpp - `nnfuzz mutate CASE_DIR -o OUT [-n K] [--seed S]`: K mutants of any ONNX
// case (ours or anyone's), each a valid case folder with fresh reference outputs.
//
// Each mutant applies one to three of Luo et al.'s mutations that fit an existing model
// (gen/model_mutations.h: tensor shape, parameter, block node addition and removal). A
// mutant that shape inference, the ONNX checker or the reference rejects (non-finite,
// huge or unstable values) is drawn again, never written.
#include <filesystem>

#include <fmt/core.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "gen/config.h"
#include "gen/generator.h"
#include "gen/model_mutations.h"
#include "interp/values.h"
#include "onnx/case_folder.h"
#include "onnx/export.h"
#include "onnx/import.h"
#include "onnx/model_check.h"
#include "ops/opset_fit.h"
#include "support/error.h"

namespace nnfuzz::cli {

namespace fs = std::filesystem;

namespace {

struct MutateOptions {
  std::string caseDir;
  std::string outDir;
  int count = 10;
  uint64_t seed = 1;
  std::string layout = "packed";
};

/// Draws per mutant before giving up on it.
constexpr int kDrawsPerMutant = 200;

struct Mutant {
  Graph graph;
  std::vector<Tensor> inputs, outputs;
  nlohmann::json mutations;
};

std::optional<Mutant> drawMutant(const Graph& original, const std::vector<Tensor>& originalInputs, const Limits& limits,
                                 Rng& rng) {
  Mutant m{original, {}, {}, nlohmann::json::array()};
  const int steps = static_cast<int>(rng.uniformInt(1, 3));
  for (int s = 0; s < steps; ++s) {
    auto done = mutateModel(m.graph, limits, rng);
    if (!done) return std::nullopt;
    m.mutations.push_back(*done);
  }
  // Inputs keep their data where their type did not change; a reshaped one gets fresh data.
  const std::vector<ValueId> inputs = m.graph.inputs();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorType& type = m.graph.value(inputs[i]).type;
    m.inputs.push_back(i < originalInputs.size() && originalInputs[i].type == type
                           ? originalInputs[i]
                           : sampleTensor(type, defaultRange(type.dtype), rng));
  }
  auto outputs = referenceOutputs(m.graph, m.inputs);
  // libonnx judges the opsets it knows; export itself refuses what an opset cannot express.
  if (!outputs || opsetMisfit(m.graph, m.graph.opset()) ||
      (m.graph.opset() <= knownOpset() && checkModel(exportModel(m.graph), &m.graph)))
    return std::nullopt;
  m.outputs = std::move(*outputs);
  return m;
}

void runMutate(const MutateOptions& o) {
  if (o.count < 0) throw Error("-n must be >= 0");
  CaseData data = readCase(o.caseDir);
  if (!data.graph) throw Error("cannot mutate " + o.caseDir + ": " + data.importProblem);
  const Limits limits = defaultConfig().limits;
  fs::create_directories(o.outDir);
  int written = 0, draws = 0;
  for (int i = 0; i < o.count; ++i) {
    Rng rng(caseSeed(o.seed, static_cast<uint64_t>(i)));
    std::optional<Mutant> mutant;
    for (int d = 0; d < kDrawsPerMutant && !mutant; ++d, ++draws) mutant = drawMutant(*data.graph, data.inputs, limits, rng);
    if (!mutant) {
      fmt::print(stderr, "nnfuzz: error: no valid mutant of {} in {} draws (mutant {})\n", o.caseDir, kDrawsPerMutant, i);
      exitCode() = 1;
      continue;
    }
    nlohmann::json meta;
    meta["tool"] = "nnfuzz";
    meta["generator"] = "mutate";
    meta["source"] = fs::absolute(o.caseDir).string();
    meta["seed"] = o.seed;
    meta["case_index"] = i;
    meta["mutations"] = mutant->mutations;
    meta["replay"] = fmt::format("nnfuzz mutate {} --seed {} -n {} -o DIR", o.caseDir, o.seed, i + 1);
    writeCase(fs::path(o.outDir) / fmt::format("{:06d}", i), mutant->graph, mutant->inputs, mutant->outputs, meta,
              mutant->graph.opset(), caseLayoutNamed(o.layout));
    ++written;
  }
  fmt::print("wrote {} mutants of {} into {} ({} draws)\n", written, o.caseDir, o.outDir, draws);
}

}  // namespace

void addMutateCommand(CLI::App& app) {
  auto opts = std::make_shared<MutateOptions>();
  auto* cmd = app.add_subcommand("mutate", "Write K valid mutants of a case folder (tensor shape, parameter, node mutations)");
  cmd->add_option("case", opts->caseDir, "case folder (model.onnx + test_data_set_0)")->required()->check(CLI::ExistingDirectory);
  cmd->add_option("-o,--out", opts->outDir, "output folder")->required();
  cmd->add_option("--layout", opts->layout, "test data: packed or onnx (see nnfuzz gen)")
      ->check(CLI::IsMember({"packed", "onnx"}))
      ->capture_default_str();
  cmd->add_option("-n,--count", opts->count, "number of mutants")->capture_default_str();
  cmd->add_option("--seed", opts->seed, "seed (mutant i uses a seed derived from it and i)")->capture_default_str();
  cmd->callback([opts] { runMutate(*opts); });
}

}  // namespace nnfuzz::cli
