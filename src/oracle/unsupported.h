// unsupported.h - recognising a SUT's "I do not implement this" among its errors.
//
// A SUT that rejects an operator, dtype or attribute it does not implement is behaving as
// documented, so such a run is recorded as `unsupported` and never as a bug. The rejection
// is recognised by message patterns per backend, kept as data (config/unsupported.json,
// compiled in as the defaults) so users can extend or replace them without a rebuild.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nnfuzz {

/// Per-backend patterns that mark an error as "unsupported" (see config/unsupported.json).
class UnsupportedFilter {
 public:
  /// The compiled-in defaults (config/unsupported.json).
  static UnsupportedFilter defaults();
  /// The defaults changed by a file of the same form: its lists extend the defaults, or replace
  /// the lists it names when it has "mode": "replace". Throws a one-line Error on a bad file.
  static UnsupportedFilter load(const std::filesystem::path& path);
  /// Changes this filter by a JSON document of the file's form (see load).
  void apply(const nlohmann::json& doc, const std::string& origin);

  /// The first pattern (as written) that `errorType: message` matches for `backend`
  /// (backend-specific patterns first, then generic ones), or nullopt.
  std::optional<std::string> match(const std::string& backend, const std::string& errorType,
                                   const std::string& message) const;

  /// The patterns of a backend ("generic" for the generic ones), as written.
  std::vector<std::string> patterns(const std::string& backend) const;

 private:
  struct Pattern {
    std::string text;
    std::regex re;
  };
  static std::vector<Pattern> compile(const nlohmann::json& list, const std::string& where);

  std::vector<Pattern> generic_;
  std::map<std::string, std::vector<Pattern>> backends_;
};

}  // namespace nnfuzz
