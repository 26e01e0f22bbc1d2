// backends.cpp - backends.json reading, placeholder expansion, probing.
#include "run/backends.h"

#include <regex>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/error.h"

#ifndef NNFUZZ_SOURCE_DIR
#error "NNFUZZ_SOURCE_DIR must name the nnfuzz source tree (set by CMakeLists.txt)"
#endif

namespace nnfuzz {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string expand(std::string text, const BackendPaths& paths, const fs::path& dir) {
  const std::pair<std::string, std::string> table[] = {
      {"{python}", paths.python}, {"{root}", paths.root.string()}, {"{dir}", dir.string()}};
  for (const auto& [key, value] : table)
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  return text;
}

std::vector<std::string> stringList(const json& j, const std::string& what) {
  if (!j.is_array() || j.empty()) throw Error(what + " must be a non-empty list of strings");
  std::vector<std::string> out;
  for (const json& item : j) {
    if (!item.is_string()) throw Error(what + " must be a non-empty list of strings");
    out.push_back(item.get<std::string>());
  }
  return out;
}

BackendDef parseBackend(const json& j, const BackendPaths& paths, const fs::path& dir) {
  if (!j.is_object()) throw Error("each backend must be an object");
  BackendDef b;
  if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty())
    throw Error("a backend has no name");
  b.name = j["name"].get<std::string>();
  try {
    for (const auto& [key, value] : j.items())
      if (key != "name" && key != "description" && key != "command" && key != "modes" && key != "env" &&
          key != "unsupported" && key != "limits" && key != "compare")
        throw Error("unknown field '" + key + "'");
    b.description = j.value("description", "");
    if (!j.contains("command")) throw Error("command is missing");
    for (const std::string& arg : stringList(j["command"], "command")) b.command.push_back(expand(arg, paths, dir));
    if (!j.contains("modes")) throw Error("modes is missing");
    b.modes = stringList(j["modes"], "modes");
    if (j.contains("env")) {
      if (!j["env"].is_object()) throw Error("env must map names to strings");
      for (const auto& [key, value] : j["env"].items()) {
        if (!value.is_string()) throw Error("env must map names to strings");
        b.env.emplace_back(key, expand(value.get<std::string>(), paths, dir));
      }
    }
    if (j.contains("limits")) {
      if (!j["limits"].is_object()) throw Error("limits must be an object");
      for (const auto& [key, value] : j["limits"].items()) {
        if (!value.is_number() || !(value.get<double>() > 0))
          throw Error("limits." + key + " must be a positive number");
        const double v = value.get<double>();
        if (key == "memory_gb") b.memoryGb = v;
        else if (key == "start_seconds") b.startSeconds = v;
        else if (key == "prepare_seconds") b.prepareSeconds = v;
        else if (key == "run_seconds") b.runSeconds = v;
        else throw Error("unknown limit '" + key + "' (memory_gb, start_seconds, prepare_seconds, run_seconds)");
      }
    }
    if (j.contains("compare")) {
      const json& c = j["compare"];
      if (!c.is_string() || (c != "reference" && c != "modes")) throw Error("compare must be \"reference\" or \"modes\"");
      b.modesOnly = c == "modes";
    }
    if (j.contains("unsupported")) {
      b.unsupported = stringList(j["unsupported"], "unsupported");
      for (const std::string& pattern : b.unsupported) {
        try {
          std::regex check(pattern, std::regex::ECMAScript | std::regex::icase);
        } catch (const std::regex_error& e) {
          throw Error("unsupported pattern '" + pattern + "' is not a regex: " + e.what());
        }
      }
    }
  } catch (const std::exception& e) {
    throw Error("backend '" + b.name + "': " + e.what());
  }
  return b;
}

}  // namespace

BackendPaths defaultBackendPaths() {
  BackendPaths paths;
  const char* root = std::getenv("NNFUZZ_ROOT");
  paths.root = root && *root ? fs::path(root) : fs::path(NNFUZZ_SOURCE_DIR);
  const char* python = std::getenv("NNFUZZ_PYTHON");
  fs::path venv = paths.root / ".venv" / "bin" / "python";
  if (python && *python) paths.python = python;
  else if (access(venv.c_str(), X_OK) == 0) paths.python = venv.string();
  else paths.python = "python3";
  return paths;
}

std::vector<BackendDef> loadBackends(const fs::path& file, const BackendPaths& paths) {
  std::ifstream in(file);
  if (!in) throw Error("cannot read backends file " + file.string());
  json doc = json::parse(in, nullptr, false);
  if (doc.is_discarded()) throw Error(file.string() + ": not valid JSON");
  std::vector<BackendDef> out;
  try {
    if (!doc.is_object() || !doc.contains("backends") || !doc["backends"].is_array())
      throw Error("expected {\"backends\": [...]}");
    for (const auto& [key, value] : doc.items())
      if (key != "backends") throw Error("unknown field '" + key + "'");
    fs::path dir = fs::absolute(file).parent_path();
    for (const json& entry : doc["backends"]) {
      BackendDef b = parseBackend(entry, paths, dir);
      if (findBackend(out, b.name)) throw Error("backend '" + b.name + "' is listed twice");
      out.push_back(std::move(b));
    }
  } catch (const Error& e) {
    throw Error(file.string() + ": " + e.what());
  }
  return out;
}

std::vector<BackendDef> builtinBackends(const BackendPaths& paths) {
  return loadBackends(paths.root / "config" / "backends.json", paths);
}

void mergeBackends(std::vector<BackendDef>& base, const std::vector<BackendDef>& extra) {
  for (const BackendDef& b : extra) {
    auto it = std::find_if(base.begin(), base.end(), [&](const BackendDef& x) { return x.name == b.name; });
    if (it != base.end()) *it = b;
    else base.push_back(b);
  }
}

const BackendDef* findBackend(const std::vector<BackendDef>& backends, std::string_view name) {
  for (const BackendDef& b : backends)
    if (b.name == name) return &b;
  return nullptr;
}

WorkerSpec workerSpec(const BackendDef& backend, const std::string& mode, const WorkerLimits& limits) {
  if (std::find(backend.modes.begin(), backend.modes.end(), mode) == backend.modes.end()) {
    std::string known;
    for (const std::string& m : backend.modes) known += (known.empty() ? "" : ", ") + m;
    throw Error("backend '" + backend.name + "' has no mode '" + mode + "' (it has " + known + ")");
  }
  WorkerSpec spec;
  spec.backend = backend.name;
  spec.mode = mode;
  spec.command = backend.command;
  spec.env = backend.env;
  spec.limits = limits;
  const auto ms = [](double seconds) { return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)); };
  if (backend.memoryGb) spec.limits.memoryBytes = static_cast<uint64_t>(*backend.memoryGb * double(uint64_t{1} << 30));
  if (backend.startSeconds) spec.limits.start = ms(*backend.startSeconds);
  if (backend.prepareSeconds) spec.limits.prepare = ms(*backend.prepareSeconds);
  if (backend.runSeconds) spec.limits.run = ms(*backend.runSeconds);
  return spec;
}

BackendInfo probe(const BackendDef& backend, const WorkerLimits& limits) {
  BackendInfo info;
  info.name = backend.name;
  info.description = backend.description;
  info.modes = backend.modes;
  Worker worker(workerSpec(backend, backend.modes.front(), limits));
  info.problem = worker.start();
  info.startSeconds = worker.lastStartSeconds();
  if (info.problem.empty()) {
    info.installed = true;
    info.version = worker.hello().version;
    // The modes the backends file asks for, of those the worker offers: an engine's worker
    // may offer more than a campaign should run.
    const auto& offered = worker.hello().modes;
    info.modes.clear();
    for (const std::string& mode : backend.modes)
      if (std::find(offered.begin(), offered.end(), mode) != offered.end()) info.modes.push_back(mode);
    if (info.modes.empty()) {
      info.installed = false;
      info.problem = "its worker offers none of the modes the backends file lists";
    }
  }
  worker.stop();
  return info;
}

std::vector<BackendInfo> probeAll(const std::vector<BackendDef>& backends, const WorkerLimits& limits) {
  std::vector<BackendInfo> infos(backends.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < backends.size(); ++i)
    threads.emplace_back([&, i] { infos[i] = probe(backends[i], limits); });
  for (std::thread& t : threads) t.join();
  return infos;
}

}  // namespace nnfuzz
