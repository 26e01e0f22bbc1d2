// cli.h - the nnfuzz command line (gen, check, ...).
#pragma once

namespace nnfuzz::cli {

/// Parses argv, runs the subcommand, returns the process exit code.
int main(int argc, char** argv);

}  // namespace nnfuzz::cli

namespace nnfuzz::cli {
/// The exit code the last subcommand asked for (subcommands run inside CLI11 callbacks).
int& exitCode();
}  // namespace nnfuzz::cli
