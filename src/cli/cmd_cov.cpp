// cmd_cov.cpp - `nnfuzz cov DIR`: Luo's and Isra's coverage of every .onnx file under DIR.
//
// Any tool's models work: the metrics read the ONNX graph itself (search/model_facts.h),
// not our operator registry. A file that cannot be read is reported and skipped; empty
// models and operators outside the corpus are reported and counted. Only a missing DIR,
// a bad corpus or bad flags are errors; a DIR in which no model could be read exits 1.
#include <fmt/core.h>

#include <sstream>

#include "cli/cli.h"
#include "cli/commands.h"
#include "search/coverage_report.h"
#include "search/folder_scan.h"
#include "search/value_ranges.h"
#include "interp/interpreter.h"
#include "onnx/case_folder.h"
#include "support/error.h"

namespace nnfuzz::cli {

namespace {

struct CovOptions {
  std::string dir;
  std::string metrics = "all";
  std::string corpusPath;
  bool json = false;
  int nMaxSpc = 200;
  std::string weights = "1,1,1,1,1";
  int jobs = 1;
  bool dumpCorpus = false;
  int maxNotes = 20;
  bool values = false;
};

std::array<double, 5> parseWeights(const std::string& text) {
  std::array<double, 5> w{};
  std::istringstream in(text);
  std::string part;
  size_t k = 0;
  while (std::getline(in, part, ',')) {
    if (k == 5) break;
    try {
      size_t used = 0;
      w[k] = std::stod(part, &used);
      if (used != part.size() || w[k] < 0) throw Error("");
    } catch (const std::exception&) {
      throw Error("--weights needs five non-negative numbers (OTC,IDC,ODC,SEC,SPC), got '" + text + "'");
    }
    ++k;
  }
  if (k != 5 || std::getline(in, part, ','))
    throw Error("--weights needs five non-negative numbers (OTC,IDC,ODC,SEC,SPC), got '" + text + "'");
  return w;
}

std::string noteText(const search::FileNote& n) {
  if (!n.problem.empty()) return "skipped: " + n.problem;
  std::string text;
  if (n.emptyModel) text = "empty model (no nodes)";
  if (!n.unknownOps.empty()) {
    if (!text.empty()) text += "; ";
    text += "operators outside the corpus:";
    for (const auto& op : n.unknownOps) text += " " + op;
  }
  return text;
}

/// `--values`: every case folder under DIR (model.onnx + test_data_set_0) run through the
/// reference, with the values each operator's operands held.
void runValues(const CovOptions& o) {
  namespace fs = std::filesystem;
  std::vector<fs::path> cases;
  std::error_code ec;
  if (!fs::is_directory(o.dir)) throw Error("nnfuzz cov --values: " + o.dir + " is not a folder");
  for (auto it = fs::recursive_directory_iterator(o.dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->path().filename() == "model.onnx" && fs::is_directory(it->path().parent_path() / "test_data_set_0"))
      cases.push_back(it->path().parent_path());
  std::sort(cases.begin(), cases.end());
  search::ValueRanges ranges;
  int counted = 0, skipped = 0;
  for (const fs::path& dir : cases) {
    try {
      CaseData c = readCase(dir);
      if (!c.graph) throw Error(c.importProblem);
      ranges.add(*c.graph, runGraphAll(*c.graph, c.inputs));
      ++counted;
    } catch (const std::exception& e) {
      fmt::print(stderr, "nnfuzz cov: {}: skipped: {}\n", dir.string(), e.what());
      ++skipped;
    }
  }
  if (counted == 0) exitCode() = 1;
  if (o.json) {
    nlohmann::ordered_json j;
    j["folder"] = o.dir;
    j["cases"] = counted;
    j["skipped"] = skipped;
    j["values"] = ranges.toJson();
    fmt::print("{}\n", j.dump(1));
    return;
  }
  fmt::print("{}: {} case folders run through the reference, {} skipped\n"
             "per operator and operand: nodes seen, extremes, and the share of nodes with an element\n"
             "|x| > {}, tiny (0 < |x| < {}), zero, negative\n\n{}",
             o.dir, counted, skipped, search::kLargeValue, search::kTinyValue, ranges.format());
}

void runCov(const CovOptions& o) {
  if (o.values) return runValues(o);
  BlockCorpus corpus =
      o.corpusPath.empty() ? defaultCorpus() : loadCorpusFile(o.corpusPath);
  if (o.dumpCorpus) {
    fmt::print("{}\n", corpusToJson(corpus).dump(2));
    return;
  }
  if (o.dir.empty()) throw Error("nnfuzz cov needs a folder (or --dump-corpus)");
  if (o.nMaxSpc < 1) throw Error("--nmaxspc must be >= 1");
  if (o.jobs < 1) throw Error("-j must be >= 1");
  search::TrackerOptions options;
  options.metrics = search::parseMetricSets(o.metrics);
  options.luo.nMaxSpc = o.nMaxSpc;
  options.luo.opWeights = options.luo.setWeights = parseWeights(o.weights);

  search::CoverageTracker tracker(std::move(corpus), options);
  const search::ScanResult scan = search::scanFolder(o.dir, tracker, o.jobs);
  for (const auto& n : scan.notes)
    if (!n.problem.empty()) fmt::print(stderr, "nnfuzz cov: {}: {}\n", n.path, noteText(n));
  if (scan.counted == 0) exitCode() = 1;

  if (o.json) {
    nlohmann::ordered_json j;
    j["folder"] = o.dir;
    j["scan"] = search::scanToJson(scan);
    j["coverage"] = search::coverageToJson(tracker);
    fmt::print("{}\n", j.dump(1));
    return;
  }
  fmt::print("{}: {} .onnx files, {} counted, {} skipped, {} empty models, {} with operators outside the corpus "
             "({:.2f} s, -j {})\n",
             o.dir, scan.files, scan.counted, scan.skipped, scan.emptyModels, scan.withUnknownOps, scan.seconds,
             o.jobs);
  int shown = 0, hidden = 0;
  for (const auto& n : scan.notes) {
    if (!n.problem.empty()) continue;  // already on stderr
    if (shown < o.maxNotes) {
      fmt::print("  {}: {}\n", n.path, noteText(n));
      ++shown;
    } else {
      ++hidden;
    }
  }
  if (hidden) fmt::print("  ... and {} more files with notes (--max-notes, or --json for all)\n", hidden);
  if (!tracker.unknownOps().empty()) {
    fmt::print("operators outside the corpus (nodes):");
    for (const auto& [op, nodes] : tracker.unknownOps()) fmt::print(" {} {}", op, nodes);
    fmt::print("\n");
  }
  if (const auto* luo = tracker.luo()) fmt::print("\n{}", search::formatLuo(luo->report(), options.luo));
  if (const auto* isra = tracker.isra()) fmt::print("\n{}", search::formatIsra(isra->report()));
}

const char* kFooter = R"(Metric sets:
  luo   Luo et al. (ICSE'21) formulas 1-7: per operator OTC, IDC, ODC (ratio), SEC, SPC
        (distinct operand-shape + attribute vectors / n_maxspc, capped at 100%), OLC (weighted
        mean); and the same for the whole set. In-degree = non-empty operands; out-degree =
        uses of the node's results by other nodes (a graph output is not one).
  isra  Isra (SCIS'25) exactly as its criterion.py computes them: OTC, IDC, ODC (a count),
        SEC, DEC, SAC (attribute lists + input shapes, raw), and per-model averages NOO, NOT,
        NOP, NTR, NSA (NSA depends on file order: files are read in path order).
Operators outside the corpus:
  luo   are not measured (n_t is the corpus's operator count) and are not SEC successors,
        but they count as data flows in the in- and out-degrees of corpus operators.
  isra  are ignored as nodes (not in NOO/NOT/NOP/NTR, not successors or pairs) and their
        uses are subtracted from out-degrees, as in criterion.py; their operand shapes
        still count in NSA.
  Both list them per file and in total. The default corpus is nnfuzz's operator library
  (see --dump-corpus); --corpus also reads Isra's bc.json layout.)";

}  // namespace

void addCovCommand(CLI::App& app) {
  auto opts = std::make_shared<CovOptions>();
  auto* cmd = app.add_subcommand("cov", "Coverage of a test set: Luo's operator-level coverage and Isra's metrics "
                                        "over every .onnx file under DIR");
  cmd->add_option("dir", opts->dir, "folder searched recursively for .onnx files (or one .onnx file)");
  cmd->add_option("--metrics", opts->metrics, "luo | isra | all")->capture_default_str();
  cmd->add_option("--corpus", opts->corpusPath, "block corpus JSON (default: nnfuzz's operator library)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", opts->json, "print JSON (every number and every file note) instead of tables");
  cmd->add_option("--nmaxspc", opts->nMaxSpc, "Luo's n_maxspc: SPC vectors per operator for 100%")
      ->capture_default_str();
  cmd->add_option("--weights", opts->weights, "Luo's OLC weights of OTC,IDC,ODC,SEC,SPC")->capture_default_str();
  cmd->add_option("-j,--jobs", opts->jobs, "threads reading and parsing models")->capture_default_str();
  cmd->add_option("--max-notes", opts->maxNotes, "per-file notes shown in the text output")->capture_default_str();
  cmd->add_flag("--dump-corpus", opts->dumpCorpus, "print the corpus as JSON and exit");
  cmd->add_flag("--values", opts->values,
                "instead of coverage: run every case folder under DIR through the reference and show the values "
                "each operator's operands held (extremes; shares of nodes with |x| > 4, tiny, zero, negative values)");
  cmd->footer(kFooter);
  cmd->callback([opts] { runCov(*opts); });
}

}  // namespace nnfuzz::cli
