// unsupported.cpp - loading and matching "unsupported" patterns (see unsupported.h).
#include "oracle/unsupported.h"

#include <fstream>
#include <sstream>

#include "support/error.h"

namespace nnfuzz {

namespace {

const char* const kDefaults =
#include "unsupported.inc"
    ;

// libstdc++'s regex matcher recurses per character and can exhaust the stack on very long
// texts (TVM errors can embed a whole printed module); a rejection is stated near the start
// or the end of a message, so only those parts are searched.
constexpr size_t kSearchWindow = 4096;

std::string searchable(const std::string& text) {
  if (text.size() <= 2 * kSearchWindow) return text;
  return text.substr(0, kSearchWindow) + "\n" + text.substr(text.size() - kSearchWindow);
}

}  // namespace

std::vector<UnsupportedFilter::Pattern> UnsupportedFilter::compile(const nlohmann::json& list,
                                                                   const std::string& where) {
  if (!list.is_array()) throw Error(where + ": expected a list of regex strings");
  std::vector<Pattern> out;
  for (const auto& item : list) {
    if (!item.is_string()) throw Error(where + ": every pattern must be a string");
    const std::string text = item.get<std::string>();
    try {
      out.push_back({text, std::regex(text, std::regex::ECMAScript | std::regex::icase | std::regex::optimize)});
    } catch (const std::regex_error& e) {
      throw Error(where + ": bad regex '" + text + "': " + e.what());
    }
  }
  return out;
}

void UnsupportedFilter::apply(const nlohmann::json& doc, const std::string& origin) {
  if (!doc.is_object()) throw Error(origin + ": expected a JSON object");
  for (const auto& [key, value] : doc.items())
    if (key != "generic" && key != "backends" && key != "mode" && key.rfind('_', 0) != 0)
      throw Error(origin + ": unknown field '" + key + "' (generic, backends, mode)");
  const std::string mode = doc.value("mode", std::string("extend"));
  if (mode != "extend" && mode != "replace") throw Error(origin + ": mode must be \"extend\" or \"replace\"");
  auto merge = [&](std::vector<Pattern>& into, const nlohmann::json& list, const std::string& where) {
    auto added = compile(list, origin + ": " + where);
    if (mode == "replace") into.clear();
    for (auto& p : added) into.push_back(std::move(p));
  };
  if (doc.contains("generic")) merge(generic_, doc["generic"], "generic");
  if (doc.contains("backends")) {
    if (!doc["backends"].is_object()) throw Error(origin + ": 'backends' must map backend names to lists");
    for (const auto& [backend, list] : doc["backends"].items())
      merge(backends_[backend], list, "backends." + backend);
  }
}

UnsupportedFilter UnsupportedFilter::defaults() {
  UnsupportedFilter f;
  f.apply(nlohmann::json::parse(kDefaults), "config/unsupported.json (built in)");
  return f;
}

UnsupportedFilter UnsupportedFilter::load(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read unsupported-patterns file " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(path.string() + ": not valid JSON: " + e.what());
  }
  UnsupportedFilter f = defaults();
  f.apply(doc, path.string());
  return f;
}

std::optional<std::string> UnsupportedFilter::match(const std::string& backend, const std::string& errorType,
                                                    const std::string& message) const {
  const std::string text = searchable(errorType.empty() ? message : errorType + ": " + message);
  if (auto it = backends_.find(backend); it != backends_.end())
    for (const auto& p : it->second)
      if (std::regex_search(text, p.re)) return p.text;
  for (const auto& p : generic_)
    if (std::regex_search(text, p.re)) return p.text;
  return std::nullopt;
}

std::vector<std::string> UnsupportedFilter::patterns(const std::string& backend) const {
  std::vector<std::string> out;
  const std::vector<Pattern>* list = nullptr;
  if (backend == "generic") {
    list = &generic_;
  } else if (auto it = backends_.find(backend); it != backends_.end()) {
    list = &it->second;
  }
  if (list)
    for (const auto& p : *list) out.push_back(p.text);
  return out;
}

}  // namespace nnfuzz
