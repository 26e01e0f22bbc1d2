// folder_scan.h - feed every .onnx file under a folder to a coverage tracker.
//
// A file that cannot be read or parsed is reported and skipped; an empty model (no
// nodes) and operators outside the corpus are reported and still counted (an empty model
// is a model of the test set: it lowers Isra's per-model averages, as in Isra's script).
// Nothing about one file stops the scan. Files are added in path order whatever the
// number of threads, so the results (including order-dependent NSA) are reproducible.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "search/coverage_tracker.h"

namespace nnfuzz::search {

/// What happened to one file (files with nothing to say are not listed).
struct FileNote {
  std::string path;     ///< relative to the scanned folder
  std::string problem;  ///< why the file was skipped (empty: it was counted)
  bool emptyModel = false;
  std::vector<std::string> unknownOps;  ///< operator types outside the corpus, "Type xN"
};

struct ScanResult {
  int64_t files = 0;    ///< .onnx files found
  int64_t counted = 0;  ///< models added to the tracker
  int64_t skipped = 0;  ///< unreadable or corrupt files
  int64_t emptyModels = 0;
  int64_t withUnknownOps = 0;
  int64_t grew = 0;  ///< models that added coverage when added
  double seconds = 0;
  std::vector<FileNote> notes;  ///< path order
};

/// Scans `root` (a folder, searched recursively, or one .onnx file) into `tracker` with
/// `jobs` threads reading and parsing. Throws nnfuzz::Error only when root does not exist.
ScanResult scanFolder(const std::filesystem::path& root, CoverageTracker& tracker, int jobs = 1);

}  // namespace nnfuzz::search
