// html_report.h - the campaign report as one self-contained HTML file.
//
// Everything is inside the file: the plotting library (Chart.js, from Debian's libjs-chart.js,
// inlined), the data (a JSON block), the styles, and each bug's drawing (Graphviz SVG), so it
// opens with no network and can be mailed or archived. Links point to the bug bundles,
// relative to where the file is written. After drawing, the page's script writes how many
// charts it made and how many have non-blank pixels into #render-status (and the body's
// data-charts / data-charts-drawn attributes), which the browser test reads.
#pragma once

#include <filesystem>
#include <string>

#include "report/report_data.h"

namespace nnfuzz::report {

/// Chart.js's minified source: $NNFUZZ_CHARTJS, else the file found at build time (Debian's
/// /usr/share/javascript/chart.js/chart.min.js). Throws a one-line Error when it is missing.
std::string loadChartJs();

/// The report page; links are relative to `outputDir` (the folder the file will be in).
std::string renderHtml(const ReportData& data, const std::string& chartJs, const std::filesystem::path& outputDir);

}  // namespace nnfuzz::report
