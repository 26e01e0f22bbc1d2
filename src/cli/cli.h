// cli.h - the nnfuzz command line (gen, check, ...).
#pragma once

namespace nnfuzz::cli {

/// Parses argv, runs the subcommand, returns the process exit code.
int main(int argc, char** argv);

}  // namespace nnfuzz::cli
