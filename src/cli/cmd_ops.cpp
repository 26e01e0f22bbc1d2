// cmd_ops.cpp - `nnfuzz ops`: the operator library, one line per operator.
#include <fmt/core.h>

#include "cli/commands.h"
#include "ops/registry.h"

namespace nnfuzz::cli {

void addOpsCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("ops", "List the operators nnfuzz can generate and run (ONNX opset 17 schemas, and those added in 18..21)");
  cmd->callback([] {
    fmt::print("{:<22} {:>5} {:>7} {:>6}  {}\n", "operator", "since", "inputs", "ranks", "dtypes of input 0");
    for (const OpSpec* spec : allOps()) {
      std::string dtypes;
      for (DType d : spec->dtypes) dtypes += std::string(dtypeName(d)) + " ";
      fmt::print("{:<22} {:>5} {:>3}..{:<2} {:>2}..{:<2}  {}\n", spec->name, spec->sinceVersion, spec->minInputs,
                 spec->maxInputs, spec->minRank, spec->maxRank, dtypes);
    }
    fmt::print("{} operators\n", allOps().size());
  });
}

}  // namespace nnfuzz::cli
