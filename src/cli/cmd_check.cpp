// cmd_check.cpp - `nnfuzz check DIR`: validate every case folder under DIR (ours or any
// other tool's): ONNX checker with strict shape inference, test data matching the model,
// and our reference rerun where every op is supported.
#include <filesystem>
#include <vector>

#include <fmt/core.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "onnx/case_folder.h"
#include "support/error.h"

namespace nnfuzz::cli {

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> findCases(const fs::path& root) {
  std::vector<fs::path> cases;
  if (fs::exists(root / "model.onnx")) cases.push_back(root);
  for (const auto& entry : fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied)) {
    if (!entry.is_directory()) continue;
    const auto name = entry.path().filename().string();
    if (!name.empty() && name[0] == '.') continue;  // partial writes and hidden folders
    if (fs::exists(entry.path() / "model.onnx")) cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

void runCheck(const std::string& dir, bool verbose) {
  if (!fs::is_directory(dir)) throw Error("not a folder: " + dir);
  const auto cases = findCases(dir);
  if (cases.empty()) throw Error("no case folders (with model.onnx) under " + dir);
  int64_t ok = 0, bad = 0, rerun = 0, unchecked = 0;
  for (const auto& path : cases) {
    CaseCheck r = checkCase(path);
    unchecked += r.note.find("ONNX checker skipped") != std::string::npos;
    if (r.ok) {
      ++ok;
      rerun += r.rerun;
      if (verbose && !r.rerun) fmt::print("{}: ok (not rerun: {})\n", path.string(), r.note);
    } else {
      ++bad;
      fmt::print("{}: FAIL: {}\n", path.string(), r.problem);
    }
  }
  fmt::print("checked {} cases under {}: {} passed ({} with reference outputs recomputed), {} failed\n",
             cases.size(), dir, ok, rerun, bad);
  if (unchecked)
    fmt::print("ONNX's checker skipped {} cases: newer opset or ir_version than the linked onnx knows "
               "(tools/validate_cases.py checks them with python's onnx)\n", unchecked);
  if (bad) exitCode() = 1;
}

}  // namespace

void addCheckCommand(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto verbose = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("check", "Validate every case folder under DIR (ONNX checker, test data, reference)");
  cmd->add_option("DIR", *dir, "folder of cases (or one case)")->required();
  cmd->add_flag("-v,--verbose", *verbose, "also say why a passing case's outputs were not recomputed");
  cmd->callback([dir, verbose] { runCheck(*dir, *verbose); });
}

}  // namespace nnfuzz::cli
