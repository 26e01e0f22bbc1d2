// cmd_convert.cpp - `nnfuzz convert CASE --opset N -o OUT`: the same model written at
// another opset (ops/version_forms.h), with the same test data. Telling an opset form's
// problem from the model's own: a mismatch that the opset-17 form shows too is not about
// the opset.
#include <fmt/core.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "onnx/case_folder.h"
#include "ops/opset_fit.h"
#include "ops/schema_history.h"
#include "support/error.h"

namespace nnfuzz::cli {

namespace {

struct ConvertOptions {
  std::string caseDir, out;
  int opset = 0;
  std::string layout = "packed";
};

void convertCase(const ConvertOptions& o) {
  if (o.opset < kMinOpset || o.opset > kMaxOpset)
    throw Error("--opset " + std::to_string(o.opset) + " is not supported (nnfuzz writes opsets " +
                std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) + ")");
  CaseData data = readCase(o.caseDir);
  if (!data.graph) throw Error(o.caseDir + ": " + data.importProblem);
  Graph graph = std::move(*data.graph);
  const int from = graph.opset();
  if (auto misfit = opsetMisfit(graph, o.opset)) throw Error(*misfit);
  graph.setOpset(o.opset);
  nlohmann::json meta = data.meta.value_or(nlohmann::json::object());
  meta["opset"] = o.opset;
  meta["converted_from_opset"] = from;
  writeCase(o.out, graph, data.inputs, data.expected, meta, o.opset, caseLayoutNamed(o.layout));
  fmt::print("wrote {} at opset {} (from opset {})\n", o.out, o.opset, from);
}

}  // namespace

void addConvertCommand(CLI::App& app) {
  auto o = std::make_shared<ConvertOptions>();
  auto* cmd = app.add_subcommand("convert", "Write a case folder's model at another opset (7..21), same test data");
  cmd->add_option("CASE_DIR", o->caseDir, "a case folder (model.onnx + test_data_set_0)")->required();
  cmd->add_option("--opset", o->opset, "the target opset")->required();
  cmd->add_option("-o,--out", o->out, "the new case folder")->required();
  cmd->add_option("--layout", o->layout, "test data: packed or onnx (see nnfuzz gen)")->capture_default_str();
  cmd->callback([o] { convertCase(*o); });
}

}  // namespace nnfuzz::cli
