#include "cli/cli.h"

#include <cstdio>
#include <exception>

#include "cli/commands.h"
#include "support/error.h"

namespace nnfuzz::cli {

int main(int argc, char** argv) {
  CLI::App app{"nnfuzz - a fuzzer for deep-learning compilers and inference engines"};
  app.require_subcommand(1);
  addGenCommand(app);
  addCheckCommand(app);
  addOpsCommand(app);
  addBackendsCommand(app);
  addCovCommand(app);
  addFuzzCommand(app);
  addRunCommand(app);
  addCorpusCommand(app);
  addReduceCommand(app);
  addMutateCommand(app);
  addReportCommand(app);
  addMergeCommand(app);
  addInferCommand(app);
  addConvertCommand(app);
  addRetriageCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const Error& e) {
    std::fprintf(stderr, "nnfuzz: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nnfuzz: internal error: %s\n", e.what());
    return 3;
  }
  return app.get_subcommands().empty() ? 0 : exitCode();
}

}  // namespace nnfuzz::cli

namespace nnfuzz::cli {
int& exitCode() {
  static int code = 0;
  return code;
}
}  // namespace nnfuzz::cli
