// html_report.cpp - the report page (see html_report.h). The page's own style and script are
// the two raw strings below; the rest is the data and the tables.
#include "report/html_report.h"

#include <cstdlib>
#include <ctime>

#include <fmt/core.h>

#include "onnx/tensor_proto.h"
#include "support/error.h"

#ifndef NNFUZZ_CHARTJS  // CMake sets it; this is Debian's place
#define NNFUZZ_CHARTJS "/usr/share/javascript/chart.js/chart.min.js"
#endif

namespace nnfuzz::report {

namespace fs = std::filesystem;

namespace {

const char* const kStyle = R"css(
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1d232a;
       margin: 0; background: #f6f7f9; }
header { background: #1f2d3d; color: #fff; padding: 18px 28px; }
header h1 { margin: 0 0 4px; font-size: 22px; font-weight: 600; }
header .sub { color: #b8c4d2; font-size: 13px; }
main { padding: 18px 28px 40px; max-width: 1500px; }
h2 { font-size: 18px; margin: 28px 0 10px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; }
.card { background: #fff; border: 1px solid #dde1e6; border-radius: 6px; padding: 10px 16px; min-width: 130px; }
.card .v { font-size: 22px; font-weight: 600; }
.card .k { color: #5b6673; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: 14px; }
.chart { background: #fff; border: 1px solid #dde1e6; border-radius: 6px; padding: 12px 14px; }
.chart h3 { margin: 0 0 2px; font-size: 15px; }
.chart .src { color: #5b6673; font-size: 12px; margin-bottom: 6px; }
.chart .box { position: relative; height: 260px; }
table { border-collapse: collapse; background: #fff; border: 1px solid #dde1e6; }
th, td { border-bottom: 1px solid #e6e9ed; padding: 6px 10px; text-align: left; vertical-align: top; }
th { background: #eef1f4; font-weight: 600; font-size: 13px; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.bugs { width: 100%; }
.bugs td { max-width: 420px; }
.bugs pre { white-space: pre-wrap; word-break: break-all; }
.cls { display: inline-block; padding: 1px 7px; border-radius: 9px; font-size: 12px; font-weight: 600; color: #fff; }
.cls-dcf { background: #b7410e; } .cls-mcf { background: #6b4fbb; } .cls-if { background: #a4133c; }
code, pre { font: 12px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
pre { background: #f3f4f6; padding: 8px; border-radius: 4px; overflow-x: auto; margin: 6px 0; }
.drawing svg { max-width: 360px; height: auto; }
.muted { color: #5b6673; }
#render-status { color: #5b6673; font-size: 12px; margin-top: 30px; }
)css";

// Draws the four charts from the JSON block, then reports what it drew (see the header).
const char* const kScript = R"js(
(function () {
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf'];
  const made = [];
  function line(id, datasets, yTitle, extra) {
    const canvas = document.getElementById(id);
    if (!canvas || datasets.every(d => d.data.length === 0)) return;
    const scales = {
      x: { type: 'linear', title: { display: true, text: 'minutes since the campaign started' }, min: 0 },
      y: { beginAtZero: true, title: { display: true, text: yTitle } }
    };
    for (const [axis, options] of Object.entries((extra && extra.scales) || {}))
      scales[axis] = Object.assign({}, scales[axis], options);
    made.push(new Chart(canvas, {
      type: 'line',
      data: { datasets: datasets.map((d, k) => Object.assign({
        borderColor: palette[k % palette.length], backgroundColor: palette[k % palette.length],
        pointRadius: d.data.length > 40 ? 0 : 2, borderWidth: 2, tension: 0 }, d)) },
      options: { animation: false, responsive: true, maintainAspectRatio: false, parsing: false,
                 interaction: { mode: 'nearest', intersect: false },
                 plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } }, scales: scales }
    }));
  }
  const pts = s => s.map(p => ({ x: p[0], y: p[1] }));
  const series = (h, name, scale) => h.minutes.map((m, k) => ({ x: m, y: h.metrics[name][k] * scale }));
  line('chart-throughput', [{ label: 'tests/s', data: pts(data.testsPerSecond) }], 'tests per second');
  line('chart-bugs', [{ label: 'unique bugs', data: pts(data.bugsOverTime), stepped: true },
                      { label: 'tests (right axis)', data: pts(data.testsOverTime), yAxisID: 'y1', borderDash: [4, 3] }],
       'unique bugs', { scales: { y1: { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false },
                                        title: { display: true, text: 'tests' } } } });
  line('chart-luo', ['olc', 'otc', 'idc', 'odc', 'sec', 'spc'].filter(m => data.luo.metrics[m]).map(
         m => ({ label: m.toUpperCase(), data: series(data.luo, m, 100), stepped: true,
                 borderWidth: m === 'olc' ? 3 : 1.5 })), 'coverage (%)', { scales: { y: { min: 0, max: 100 } } });
  const israCounts = ['odc', 'sac'];
  line('chart-isra', ['otc', 'idc', 'sec', 'dec', 'odc', 'sac'].filter(m => data.isra.metrics[m]).map(m => {
         const count = israCounts.includes(m);
         return { label: m.toUpperCase() + (count ? ' (right axis)' : ' %'), data: series(data.isra, m, count ? 1 : 100),
                  stepped: true, yAxisID: count ? 'y1' : 'y', borderDash: count ? [4, 3] : [] };
       }), 'coverage (%)', { scales: { y1: { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false },
                                             title: { display: true, text: 'ODC, SAC (per operator)' } } } });
  // Count the charts whose canvas holds drawn (non-transparent) pixels.
  let drawn = 0;
  for (const chart of made) {
    const c = chart.canvas, px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) ink++;
    if (ink > 500) drawn++;
  }
  document.body.dataset.charts = String(made.length);
  document.body.dataset.chartsDrawn = String(drawn);
  document.getElementById('render-status').textContent =
    'charts: ' + made.length + ' made, ' + drawn + ' drawn (Chart.js ' + Chart.version + ')';
})();
)js";

std::string esc(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

/// A relative path as a URL path (every byte outside the safe set percent-encoded).
std::string href(const fs::path& path, bool folder) {
  std::string out;
  for (unsigned char c : path.generic_string()) {
    if (std::isalnum(c) || std::string_view("-._~/").find(static_cast<char>(c)) != std::string_view::npos)
      out += static_cast<char>(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return folder ? out + "/" : out;
}

std::string localTime(double epochSeconds) {
  const std::time_t t = static_cast<std::time_t>(epochSeconds);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string duration(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.1f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

nlohmann::json pointsJson(const std::vector<Point>& points) {
  nlohmann::json a = nlohmann::json::array();
  for (const Point& p : points) a.push_back({p.minutes, p.value});
  return a;
}

nlohmann::json historyJson(const CoverageHistory& h) {
  return {{"minutes", h.minutes}, {"tests", h.tests}, {"metrics", h.metrics}, {"source", h.source}};
}

/// The JSON block, safe inside <script>: "</" cannot close the element once escaped.
std::string dataBlock(const ReportData& d) {
  const nlohmann::json j = {{"testsPerSecond", pointsJson(d.testsPerSecond)},
                            {"testsOverTime", pointsJson(d.testsOverTime)},
                            {"bugsOverTime", pointsJson(d.bugsOverTime)},
                            {"luo", historyJson(d.luo)},
                            {"isra", historyJson(d.isra)}};
  std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  for (size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3)) text.replace(at, 2, "<\\/");
  return text;
}

std::string card(const std::string& value, const std::string& key) {
  return "<div class=\"card\"><div class=\"v\">" + esc(value) + "</div><div class=\"k\">" + esc(key) + "</div></div>\n";
}

std::string chartBox(const std::string& id, const std::string& title, const std::string& source) {
  return "<div class=\"chart\"><h3>" + esc(title) + "</h3><div class=\"src\">" + esc(source) +
         "</div><div class=\"box\"><canvas id=\"" + id + "\"></canvas></div></div>\n";
}

std::string summary(const ReportData& d) {
  const double seconds = std::max(0.0, d.lastActivity - d.startedAt);
  std::string s = "<div class=\"cards\">\n";
  s += card(std::to_string(d.tests), "tests");
  s += card(std::to_string(d.bugs.size()), "unique bugs");
  s += card(duration(seconds), "wall time");
  s += card(seconds > 0 ? fmt::format("{:.1f}", static_cast<double>(d.tests) / seconds) : "-", "tests/s overall");
  if (!d.luo.empty()) s += card(fmt::format("{:.1f}%", d.luo.metrics.at("olc").back() * 100), "Luo OLC");
  s += card(std::to_string(d.sessions), d.sessions == 1 ? "session" : "sessions");
  s += "</div>\n<p class=\"muted\">";
  std::string suts;
  for (const auto& [name, version] : d.versions.items())
    suts += (suts.empty() ? "" : ", ") + name + (version.is_string() ? " " + version.get<std::string>() : "");
  s += "Versions: " + esc(suts);
  if (d.config.is_object()) {
    if (d.config.contains("generator") && d.config["generator"].is_string())
      s += " &middot; generator <code>" + esc(d.config["generator"].get<std::string>()) + "</code>";
    if (d.config.contains("search") && d.config["search"].is_string())
      s += ", search <code>" + esc(d.config["search"].get<std::string>()) + "</code>";
  }
  s += " &middot; started " + esc(localTime(d.startedAt)) + ", last activity " + esc(localTime(d.lastActivity)) + "</p>\n";
  return s;
}

std::string outcomeTable(const ReportData& d) {
  static const char* const kVerdicts[] = {"pass", "unsupported", "mcf", "if", "dcf", "harness-error"};
  std::string t = "<table class=\"outcomes\">\n<tr><th>backend</th><th>mode</th><th>judged against</th>";
  for (const char* v : kVerdicts) t += std::string("<th>") + v + "</th>";
  t += "<th>total</th></tr>\n";
  for (const OutcomeRow& r : d.outcomes) {
    t += "<tr><td>" + esc(r.backend) + "</td><td>" + esc(r.mode) + "</td><td>" +
         esc(r.against == "reference" ? "reference" : "mode " + r.against) + "</td>";
    for (const char* v : kVerdicts) {
      const auto it = r.verdicts.find(v);
      t += "<td class=\"n\">" + (it == r.verdicts.end() ? std::string("0") : std::to_string(it->second)) + "</td>";
    }
    t += "<td class=\"n\">" + std::to_string(r.total) + "</td></tr>\n";
  }
  if (d.outcomes.empty()) t += "<tr><td colspan=\"10\" class=\"muted\">no results yet</td></tr>\n";
  return t + "</table>\n";
}

std::string bugRow(const BugEntry& b, size_t number, const fs::path& outputDir) {
  const Signature& s = b.row.bug.signature;
  std::string modes;
  for (const auto& m : b.row.seenIn) modes += (modes.empty() ? "" : ", ") + m;
  std::string t = "<tr id=\"bug-" + esc(b.row.bug.hash) + "\"><td class=\"n\">" + std::to_string(number) + "</td>";
  t += "<td><b>" + esc(b.rootCause) + "</b><br><span class=\"muted\">" + esc(b.row.reason) + "</span><br><code>" +
       esc(b.row.bug.hash) + "</code></td>";
  t += "<td>" + esc(s.backend) + (b.version.empty() ? "" : " " + esc(b.version)) + "<br><span class=\"muted\">" +
       esc(modes) + "</span></td>";
  t += "<td><span class=\"cls cls-" + esc(s.verdict) + "\">" + esc(s.verdict) + "</span></td>";
  t += "<td>after " + duration(b.firstSeenMinutes * 60) + "<br><span class=\"muted\">" +
       esc(localTime(b.row.bug.firstSeen)) + "</span></td>";
  t += "<td class=\"n\">" + std::to_string(b.row.bug.count) + "</td><td>";
  if (b.drawingSvg) t += "<div class=\"drawing\">" + *b.drawingSvg + "</div>";
  if (!b.modelIr.empty()) t += "<details><summary>text IR</summary><pre>" + esc(b.modelIr) + "</pre></details>";
  t += "</td><td>";
  if (b.bundleDir.empty()) return t + "<span class=\"muted\">bundle missing</span></td></tr>\n";
  const fs::path rel = b.bundleDir.lexically_relative(outputDir);
  const fs::path dir = rel.empty() ? b.bundleDir : rel;
  t += "<pre>" + esc(b.reproCommand) + "</pre>";
  t += "<a href=\"" + href(dir, true) + "\">" + esc(dir.filename().string()) + "/</a>";
  std::error_code ec;
  for (const char* file : {"README.md", "repro.py", "model.onnx"})
    if (fs::exists(b.bundleDir / file, ec)) t += " &middot; <a href=\"" + href(dir / file, false) + "\">" + file + "</a>";
  return t + "</td></tr>\n";
}

std::string bugTable(const ReportData& d, const fs::path& outputDir) {
  std::string t = "<table class=\"bugs\">\n<tr><th>#</th><th>root cause</th><th>SUT, modes</th><th>class</th>"
                  "<th>first seen</th><th>hits</th><th>reduced model</th><th>reproduce</th></tr>\n";
  for (size_t k = 0; k < d.bugs.size(); ++k) t += bugRow(d.bugs[k], k + 1, outputDir);
  if (d.bugs.empty()) t += "<tr><td colspan=\"8\" class=\"muted\">no bugs found (yet)</td></tr>\n";
  return t + "</table>\n";
}

}  // namespace

std::string loadChartJs() {
  const char* env = std::getenv("NNFUZZ_CHARTJS");
  const fs::path path = env && *env ? env : NNFUZZ_CHARTJS;
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error("Chart.js not found at " + path.string() + " (install Debian's libjs-chart.js, or set NNFUZZ_CHARTJS)");
  std::string js = readFileBytes(path);
  // Inlined in a <script> element: a "</script" inside would end it early.
  for (size_t at = js.find("</script"); at != std::string::npos; at = js.find("</script", at + 3)) js.replace(at, 2, "<\\/");
  return js;
}

std::string renderHtml(const ReportData& d, const std::string& chartJs, const fs::path& outputDir) {
  const std::string name = d.campaignDir.filename().string();
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>nnfuzz report: " +
                  esc(name) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  h += "<header><h1>nnfuzz campaign report</h1><div class=\"sub\">" + esc(d.campaignDir.string()) +
       " &middot; made " + esc(localTime(static_cast<double>(std::time(nullptr)))) + "</div></header>\n<main>\n";
  h += summary(d);
  h += "<h2>Over time</h2>\n<div class=\"charts\">\n";
  h += chartBox("chart-throughput", "Throughput", "tests per second over sliding windows of recorded tests");
  h += chartBox("chart-bugs", "Unique bugs", "by first-seen time; tests on the right axis");
  h += chartBox("chart-luo", "Coverage: Luo et al., operator level", d.luo.source);
  h += chartBox("chart-isra", "Coverage: Isra's metrics", d.isra.source);
  h += "</div>\n<h2>Outcomes per backend and mode</h2>\n" + outcomeTable(d);
  h += "<h2>Bugs (" + std::to_string(d.bugs.size()) + ")</h2>\n";
  if (!d.drawingNote.empty()) h += "<p class=\"muted\">" + esc(d.drawingNote) + "</p>\n";
  h += bugTable(d, outputDir);
  h += "<div id=\"render-status\">charts not drawn: JavaScript is off or failed</div>\n</main>\n";
  h += "<script type=\"application/json\" id=\"report-data\">" + dataBlock(d) + "</script>\n";
  h += "<script>" + chartJs + "</script>\n<script>" + kScript + "</script>\n</body>\n</html>\n";
  return h;
}

}  // namespace nnfuzz::report
