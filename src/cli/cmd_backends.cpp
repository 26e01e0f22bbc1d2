// cmd_backends.cpp - `nnfuzz backends`: every known SUT, installed or not, version, modes.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "run/backends.h"

namespace nnfuzz::cli {

void addBackendsCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("backends", "List the systems under test: installed or not, version, modes");
  auto file = std::make_shared<std::string>();
  auto asJson = std::make_shared<bool>(false);
  cmd->add_option("--backends-file", *file, "Extra backends (same format as config/backends.json)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", *asJson, "One JSON object per backend, one per line");
  cmd->callback([file, asJson] {
    BackendPaths paths = defaultBackendPaths();
    std::vector<BackendDef> backends = builtinBackends(paths);
    if (!file->empty()) mergeBackends(backends, loadBackends(*file, paths));
    std::vector<BackendInfo> infos = probeAll(backends);
    if (*asJson) {
      for (const BackendInfo& i : infos)
        fmt::print("{}\n", nlohmann::json{{"name", i.name}, {"installed", i.installed}, {"version", i.version},
                                          {"modes", i.modes}, {"problem", i.problem},
                                          {"start_seconds", i.startSeconds}, {"description", i.description}}
                               .dump());
      return;
    }
    fmt::print("{:<14} {:<9} {:<16} {:<18} {:>8}  {}\n", "backend", "installed", "version", "modes", "start-up",
               "description");
    for (const BackendInfo& i : infos) {
      std::string modes;
      for (const std::string& m : i.modes) modes += (modes.empty() ? "" : " ") + m;
      std::string startup = i.installed ? fmt::format("{:.2f}s", i.startSeconds) : "-";
      fmt::print("{:<14} {:<9} {:<16} {:<18} {:>8}  {}\n", i.name, i.installed ? "yes" : "no",
                 i.installed ? i.version : "-", modes, startup, i.description);
      if (!i.installed) fmt::print("{:<14} ({})\n", "", i.problem);
    }
  });
}

}  // namespace nnfuzz::cli
