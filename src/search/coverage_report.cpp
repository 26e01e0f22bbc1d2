// coverage_report.cpp - text tables and JSON of coverage reports.
#include "search/coverage_report.h"

#include <fmt/core.h>

namespace nnfuzz::search {

namespace {

std::string percent(double x) { return fmt::format("{:.1f}%", 100.0 * x); }

std::string joinInts(const std::vector<int>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "}";
}

std::string weightsText(const std::array<double, 5>& w) {
  return fmt::format("{:g},{:g},{:g},{:g},{:g}", w[0], w[1], w[2], w[3], w[4]);
}

}  // namespace

std::string formatLuo(const LuoReport& r, const LuoOptions& options) {
  std::string out = fmt::format(
      "Luo operator-level coverage: n_t = {} operators, n_maxspc = {}, OLC weights {} (test set {})\n", r.nt,
      r.nMaxSpc, weightsText(options.opWeights), weightsText(options.setWeights));
  out += fmt::format("{:<22}{:>9}{:>8}{:>8}{:>8}{:>8}{:>8}{:>8}  {}\n", "operator", "nodes", "OTC", "IDC", "ODC", "SEC",
                     "SPC", "OLC", "in / out degrees seen");
  for (const auto& row : r.ops) {
    if (row.nodes == 0) {
      out += fmt::format("{:<22}{:>9}{:>8}{:>8}{:>8}{:>8}{:>8}{:>8}\n", row.op, 0, "-", "-", "-", "-", "-", "-");
      continue;
    }
    std::string degrees = joinInts(row.inDegrees) + " / " + joinInts(row.outDegrees);
    if (!row.otherInDegrees.empty() || !row.otherOutDegrees.empty())
      degrees += "  (not in corpus: " + joinInts(row.otherInDegrees) + " / " + joinInts(row.otherOutDegrees) + ")";
    out += fmt::format("{:<22}{:>9}{:>8}{:>8}{:>8}{:>8}{:>8}{:>8}  {}\n", row.op, row.nodes, percent(row.otc),
                       percent(row.idc), percent(row.odc), percent(row.sec), percent(row.spc), percent(row.olc),
                       degrees);
  }
  out += fmt::format("{:<22}{:>9}{:>8}{:>8}{:>8}{:>8}{:>8}{:>8}\n", "I (test set)", "", percent(r.otc), percent(r.idc),
                     percent(r.odc), percent(r.sec), percent(r.spc), percent(r.olc));
  return out;
}

std::string formatIsra(const IsraReport& r) {
  std::string out =
      fmt::format("Isra metrics (as criterion.py computes them): n_C = {} operators, {} models\n", r.nc, r.models);
  out += fmt::format("{:<22}{:>9}{:>9}{:>6}{:>9}{:>10}{:>9}  {}\n", "operator", "nodes", "IDC", "ODC", "SEC", "DEC",
                     "SAC", "in / out degrees seen");
  for (const auto& row : r.ops) {
    if (row.nodes == 0) {
      out += fmt::format("{:<22}{:>9}{:>9}{:>6}{:>9}{:>10}{:>9}\n", row.op, 0, "-", "-", "-", "-", "-");
      continue;
    }
    out += fmt::format("{:<22}{:>9}{:>9}{:>6}{:>9}{:>10}{:>9}  {} / {}\n", row.op, row.nodes, percent(row.idc),
                       row.odc, percent(row.sec), fmt::format("{:.3f}%", 100 * row.dec), row.sac,
                       joinInts(row.inDegrees), joinInts(row.outDegrees));
  }
  out += fmt::format("I (test set)   OTC {:.2f}%  IDC {:.2f}%  ODC {:.4f}  SEC {:.2f}%  DEC {:.3f}%  SAC {:.4f}\n",
                     100 * r.otc, 100 * r.idc, r.odc, 100 * r.sec, 100 * r.dec, r.sac);
  out += fmt::format("per model      NOO {:.4f}  NOT {:.4f}  NOP {:.4f}  NTR {:.4f}  NSA {:.4f}\n", r.noo, r.notypes,
                     r.nop, r.ntr, r.nsa);
  return out;
}

nlohmann::ordered_json luoToJson(const LuoReport& r, const LuoOptions& options) {
  nlohmann::ordered_json j;
  j["n_t"] = r.nt;
  j["n_maxspc"] = r.nMaxSpc;
  j["op_weights"] = options.opWeights;
  j["set_weights"] = options.setWeights;
  j["set"] = {{"otc", r.otc}, {"idc", r.idc}, {"odc", r.odc}, {"sec", r.sec}, {"spc", r.spc}, {"olc", r.olc}};
  nlohmann::ordered_json ops = nlohmann::ordered_json::array();
  for (const auto& row : r.ops)
    ops.push_back({{"op", row.op},
                   {"nodes", row.nodes},
                   {"otc", row.otc},
                   {"idc", row.idc},
                   {"odc", row.odc},
                   {"sec", row.sec},
                   {"spc", row.spc},
                   {"olc", row.olc},
                   {"in_degrees", row.inDegrees},
                   {"out_degrees", row.outDegrees},
                   {"other_in_degrees", row.otherInDegrees},
                   {"other_out_degrees", row.otherOutDegrees},
                   {"successor_types", row.successors},
                   {"spc_vectors", row.spcVectors}});
  j["ops"] = ops;
  return j;
}

nlohmann::ordered_json israToJson(const IsraReport& r) {
  nlohmann::ordered_json j;
  j["n_c"] = r.nc;
  j["models"] = r.models;
  j["set"] = {{"otc", r.otc}, {"idc", r.idc}, {"odc", r.odc}, {"sec", r.sec}, {"dec", r.dec}, {"sac", r.sac}};
  j["per_model"] = {{"noo", r.noo}, {"not", r.notypes}, {"nop", r.nop}, {"ntr", r.ntr}, {"nsa", r.nsa}};
  nlohmann::ordered_json ops = nlohmann::ordered_json::array();
  for (const auto& row : r.ops)
    ops.push_back({{"op", row.op},
                   {"nodes", row.nodes},
                   {"idc", row.idc},
                   {"odc", row.odc},
                   {"sec", row.sec},
                   {"dec", row.dec},
                   {"sac", row.sac},
                   {"in_degrees", row.inDegrees},
                   {"out_degrees", row.outDegrees},
                   {"successor_types", row.successors},
                   {"successor_pairs", row.pairs},
                   {"attribute_lists", row.attributes},
                   {"input_shapes", row.shapes}});
  j["ops"] = ops;
  return j;
}

nlohmann::ordered_json coverageToJson(const CoverageTracker& tracker) {
  nlohmann::ordered_json j;
  j["models"] = tracker.models();
  if (const LuoCoverage* luo = tracker.luo()) j["luo"] = luoToJson(luo->report(), tracker.options().luo);
  if (const IsraCoverage* isra = tracker.isra()) j["isra"] = israToJson(isra->report());
  nlohmann::ordered_json unknown = nlohmann::ordered_json::object();
  for (const auto& [op, nodes] : tracker.unknownOps()) unknown[op] = nodes;
  j["ops_outside_corpus"] = unknown;
  return j;
}

nlohmann::ordered_json scanToJson(const ScanResult& scan) {
  nlohmann::ordered_json j;
  j["files"] = scan.files;
  j["counted"] = scan.counted;
  j["skipped"] = scan.skipped;
  j["empty_models"] = scan.emptyModels;
  j["with_ops_outside_corpus"] = scan.withUnknownOps;
  j["added_coverage"] = scan.grew;
  j["seconds"] = scan.seconds;
  nlohmann::ordered_json notes = nlohmann::ordered_json::array();
  for (const auto& n : scan.notes) {
    nlohmann::ordered_json e{{"path", n.path}};
    if (!n.problem.empty()) e["problem"] = n.problem;
    if (n.emptyModel) e["empty_model"] = true;
    if (!n.unknownOps.empty()) e["ops_outside_corpus"] = n.unknownOps;
    notes.push_back(e);
  }
  j["notes"] = notes;
  return j;
}

}  // namespace nnfuzz::search
