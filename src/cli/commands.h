// commands.h - one function per subcommand; cli.cpp wires them to CLI11.
#pragma once

#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

namespace nnfuzz::cli {

void addGenCommand(CLI::App& app);
void addCheckCommand(CLI::App& app);
void addOpsCommand(CLI::App& app);
void addBackendsCommand(CLI::App& app);
void addCovCommand(CLI::App& app);
void addFuzzCommand(CLI::App& app);
void addRunCommand(CLI::App& app);
void addReduceCommand(CLI::App& app);
void addMutateCommand(CLI::App& app);
void addReportCommand(CLI::App& app);
void addMergeCommand(CLI::App& app);
void addCorpusCommand(CLI::App& app);
void addInferCommand(CLI::App& app);
void addConvertCommand(CLI::App& app);
void addRetriageCommand(CLI::App& app);

/// Adds a campaign's bug bundles not yet there to tier 3 of the corpus at `corpusPath`
/// (empty: CAMPAIGN/corpus.db) and says how many (fuzz and merge do this at their end).
void addBugsToCorpus(const std::filesystem::path& campaign, const std::string& corpusPath);

}  // namespace nnfuzz::cli
