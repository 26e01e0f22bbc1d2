// cmd_report.cpp - `nnfuzz report CAMPAIGN [-o report.html]`: the campaign as one
// self-contained HTML page; `nnfuzz report CAMPAIGN --bug ID --markdown`: one bug's
// upstream-ready issue text. Reads the campaign read-only, so it works while it runs.
#include <fmt/core.h>

#include "cli/commands.h"
#include "onnx/tensor_proto.h"
#include "report/html_report.h"
#include "store/issue_markdown.h"
#include "support/error.h"

namespace nnfuzz::cli {

namespace fs = std::filesystem;

namespace {

struct ReportOptions {
  std::string campaign;
  std::string output;  ///< empty: CAMPAIGN/report.html
  std::string bug;
  bool markdown = false;
  bool noDrawings = false;
};

void printBug(const ReportOptions& o) {
  if (!o.markdown) throw Error("--bug prints a bug as Markdown: add --markdown");
  const CampaignReader reader(fs::path(o.campaign) / "campaign.db");
  const auto bugs = reader.bugs();
  const BugRow& bug = report::findBug(bugs, o.bug);
  const fs::path dir = report::bundleDirOf(o.campaign, bug.bug);
  if (dir.empty()) throw Error("the bundle of bug " + bug.bug.hash + " is missing (" + bug.bug.bundle + ")");
  fmt::print("{}", issueMarkdown(dir));
}

void writeReport(const ReportOptions& o) {
  if (o.markdown) throw Error("--markdown prints one bug: give --bug ID");
  const fs::path out = o.output.empty() ? fs::path(o.campaign) / "report.html" : fs::path(o.output);
  const std::string chartJs = report::loadChartJs();  // before the work: a missing library fails fast
  report::ReportOptions options;
  options.drawModels = !o.noDrawings;
  const auto data = report::collectReport(o.campaign, options);
  std::error_code ec;
  const fs::path outDir = fs::absolute(out, ec).parent_path().lexically_normal();
  fs::create_directories(outDir, ec);
  writeFileBytes(out, report::renderHtml(data, chartJs, outDir));
  fmt::print("{}: {} tests, {} unique bugs\n", out.string(), data.tests, data.bugs.size());
}

}  // namespace

void addReportCommand(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  auto* cmd = app.add_subcommand("report", "Write a campaign's HTML report, or print one bug as an upstream issue");
  cmd->add_option("CAMPAIGN", o->campaign, "campaign folder (holds campaign.db)")->required();
  cmd->add_option("-o,--output", o->output, "HTML file to write (default CAMPAIGN/report.html)");
  cmd->add_option("--bug", o->bug, "one bug: its bundle name or a signature hash prefix");
  cmd->add_flag("--markdown", o->markdown, "with --bug: print its README (Markdown) to stdout");
  cmd->add_flag("--no-drawings", o->noDrawings, "do not draw the reduced models with Graphviz");
  cmd->callback([o] { o->bug.empty() ? writeReport(*o) : printBug(*o); });
}

}  // namespace nnfuzz::cli
