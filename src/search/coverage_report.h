// coverage_report.h - coverage as text tables (for people) and JSON (for scripts).
//
// The text tables show every corpus operator (unseen ones with dashes) and then the test
// set's row, in the units of each source: Luo's metrics as percentages, Isra's as her
// script prints them (ODC and SAC as plain numbers). The JSON carries the same numbers as
// fractions plus the raw sets' sizes.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "search/coverage_tracker.h"
#include "search/folder_scan.h"

namespace nnfuzz::search {

std::string formatLuo(const LuoReport& report, const LuoOptions& options);
std::string formatIsra(const IsraReport& report);

nlohmann::ordered_json luoToJson(const LuoReport& report, const LuoOptions& options);
nlohmann::ordered_json israToJson(const IsraReport& report);
/// The tracker's kept metric sets plus the unknown operators it met.
nlohmann::ordered_json coverageToJson(const CoverageTracker& tracker);
/// The scan's counts and per-file notes.
nlohmann::ordered_json scanToJson(const ScanResult& scan);

}  // namespace nnfuzz::search
