// folder_scan.cpp - find, parse (in parallel), add (in path order).
#include "search/folder_scan.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "onnx/import.h"
#include "support/error.h"

namespace nnfuzz::search {

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> onnxFiles(const fs::path& root) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::is_regular_file(root, ec)) return {root};
  if (!fs::is_directory(root, ec)) throw Error("no such file or folder: " + root.string());
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().extension() == ".onnx" && it->is_regular_file(ec)) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// One file's parse result, filled by a worker and consumed in order.
struct Slot {
  ModelFacts facts;
  std::string problem;
};

void parseInto(const fs::path& file, const BlockCorpus& corpus, Slot& slot) {
  slot.problem.clear();
  try {
    factsFromOnnx(loadModelFile(file), corpus, slot.facts);
  } catch (const std::exception& e) {  // a corrupt file, or anything ONNX throws on it
    slot.problem = e.what();
    slot.facts.clear();
  }
}

}  // namespace

ScanResult scanFolder(const fs::path& root, CoverageTracker& tracker, int jobs) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<fs::path> files = onnxFiles(root);
  ScanResult result;
  result.files = static_cast<int64_t>(files.size());
  const size_t threads = static_cast<size_t>(std::max(1, jobs));
  // Batches bound memory (facts of a 200-op model are tens of KB) while threads parse.
  const size_t batch = 64 * threads;
  std::vector<Slot> slots(std::min(batch, files.size()));
  for (size_t begin = 0; begin < files.size(); begin += batch) {
    const size_t end = std::min(files.size(), begin + batch);
    std::atomic<size_t> next{begin};
    auto work = [&] {
      for (size_t i = next++; i < end; i = next++) parseInto(files[i], tracker.corpus(), slots[i - begin]);
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();

    for (size_t i = begin; i < end; ++i) {
      const Slot& slot = slots[i - begin];
      FileNote note;
      std::error_code ec;
      note.path = root == files[i] ? files[i].filename().string() : fs::relative(files[i], root, ec).string();
      if (!slot.problem.empty()) {
        note.problem = slot.problem;
        ++result.skipped;
        result.notes.push_back(std::move(note));
        continue;
      }
      result.grew += tracker.add(slot.facts);
      ++result.counted;
      note.emptyModel = slot.facts.nodes.empty();
      result.emptyModels += note.emptyModel;
      for (size_t k = 0; k < slot.facts.unknownOps.size(); ++k)
        note.unknownOps.push_back(slot.facts.unknownOps[k] + " x" + std::to_string(slot.facts.unknownCounts[k]));
      result.withUnknownOps += !note.unknownOps.empty();
      if (note.emptyModel || !note.unknownOps.empty()) result.notes.push_back(std::move(note));
    }
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace nnfuzz::search
