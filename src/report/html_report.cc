#include "report/html_report.h"

#include "report/compare.h"

#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include "report/json_fields.h"
#include "report/run_sections.h"
#include "report/scenario_keys.h"
#include "report/scenario_sections.h"
#include "report/web_assets.h"
#include "util/output_file.h"

namespace memstand {
namespace {

std::string Escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A data: URL of a CSV text (RFC 2397, percent-encoded), for a download link that
// needs no script.
std::string CsvDataUrl(std::string_view csv) {
  std::string out = "data:text/csv;charset=utf-8,";
  for (unsigned char c : csv) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~')
      out += char(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string Download(const std::string& name, std::string_view csv) {
  return fmt::format("<a class=\"csv\" download=\"{}.csv\" href=\"{}\">CSV</a>", Escape(name),
                     CsvDataUrl(csv));
}

// Text inside <script>: "</" would end the element, so every "<" is written as \u003c
// (JSON strings allow the escape; "<" appears nowhere else in JSON).
std::string ScriptJson(const nlohmann::ordered_json& j) {
  std::string out;
  for (char c : j.dump()) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
  return out;
}

bool HasData(const Chart& c) {
  for (size_t i = 1; i < c.data.size(); ++i) {
    for (const auto& v : c.data[i]) {
      if (v) return true;
    }
  }
  return false;
}

// Longer tables are folded (<details>): the charts stay in view.
constexpr size_t kTableRowsOpen = 20;

std::string TableHtml(const ReportTable& t) {
  std::string out = fmt::format("<div class=\"table\"><h4>{} {}</h4>", Escape(t.title),
                                Download(t.csv_name, TableCsv(t)));
  if (t.rows.size() > kMaxTableRowsShown) {
    return out +
           fmt::format(
               "<p>{} rows: too many to show here; the CSV link downloads them all.</p></div>",
               t.rows.size());
  }
  const bool fold = t.rows.size() > kTableRowsOpen;
  if (fold) out += fmt::format("<details><summary>{} rows</summary>", t.rows.size());
  out += "<table><thead><tr>";
  for (const std::string& c : t.columns) out += "<th>" + Escape(c) + "</th>";
  out += "</tr></thead><tbody>";
  for (const auto& r : t.rows) {
    out += "<tr>";
    for (const std::string& f : r) out += "<td>" + Escape(f) + "</td>";
    out += "</tr>";
  }
  return out + "</tbody></table>" + (fold ? "</details>" : "") + "</div>";
}

std::string SectionHtml(const ReportSection& s, int* chart_id, nlohmann::ordered_json* specs) {
  std::string out = fmt::format(
      "<section><h2>{}</h2><p class=\"platform\"><b>Platform:</b> {} — absolute times "
      "describe this platform; counts, bytes and outcomes survive it (docs/method.md rule 1)."
      "</p>",
      Escape(s.title), Escape(s.platform));
  for (const TextBlock& b : s.blocks) {
    out += "<div class=\"block\"><h3>" + Escape(b.title) + "</h3><ul>";
    for (const std::string& l : b.lines) out += "<li>" + Escape(l) + "</li>";
    out += "</ul></div>";
  }
  const std::string stem = std::filesystem::path(s.source).stem().string();
  for (const Chart& c : s.charts) {
    const int id = (*chart_id)++;
    nlohmann::ordered_json spec = ChartJson(c, s);
    spec["id"] = id;
    specs->push_back(spec);
    out += fmt::format(
        "<figure><div class=\"chart\" id=\"chart-{}\"></div><figcaption><b>{}</b> {} From "
        "<code>{}</code>. "
        "Platform: {} (absolute times describe this platform). {}</figcaption></figure>",
        id, Escape(c.title), Escape(c.caption), Escape(s.source), Escape(s.platform),
        Download(fmt::format("{}-chart-{}", stem, id), ChartCsv(c)));
  }
  for (const ReportTable& t : s.tables) out += TableHtml(t);
  return out + "</section>";
}

// Captures script errors into the page before any other script runs (the browser test
// reads them back from the DOM).
constexpr char kErrorCapture[] =
    "window.memstandErrors=[];window.onerror=function(m,s,l,c,e){window.memstandErrors.push(String("
    "m)+' at "
    "'+l+':'+c);var "
    "p=document.getElementById('memstand-errors');if(p)p.textContent=window.memstandErrors.join("
    "'\\n');};";

}  // namespace

ReportSection SectionOf(const ReportInput& in, ScenarioChartsLookup charts) {
  ReportSection s;
  switch (in.kind) {
    case ReportInputKind::kRun:
      s = RunSection(in);
      break;
    case ReportInputKind::kRuns:
      s = RunsSection(in);
      break;
    case ReportInputKind::kSweep:
      s = SweepSection(in);
      break;
    case ReportInputKind::kScenario:
      s = ScenarioSection(in, charts == nullptr ? nullptr : charts(Text(in.doc, scenario_json::kScenario)));
      break;
    case ReportInputKind::kCompare:
      s = CompareSection(in.json_path, in.doc);
      break;
  }
  std::vector<Chart> kept;
  TextBlock empty{"Charts without data", {}};
  for (Chart& c : s.charts) {
    if (HasData(c))
      kept.push_back(std::move(c));
    else
      empty.lines.push_back(c.title + ": the file holds no value for it");
  }
  s.charts = std::move(kept);
  if (!empty.lines.empty()) s.blocks.push_back(std::move(empty));
  return s;
}

std::string RenderHtmlReport(const std::vector<ReportSection>& sections,
                             const std::string& command_line) {
  std::string body;
  nlohmann::ordered_json specs = nlohmann::ordered_json::array();
  int chart_id = 0;
  std::string inputs;
  for (const ReportSection& s : sections) {
    inputs += "<li>" + Escape(s.title) + "</li>";
    body += SectionHtml(s, &chart_id, &specs);
  }
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>memstand "
      "report</title><script>{}</script><style>{}</style><style>{}</style></head><body>"
      "<header><h1>memstand report</h1><p>memstand {}, charts by uPlot {} (inlined: the page "
      "fetches nothing). "
      "Made by <code>{}</code> from:</p><ul>{}</ul>"
      "<p id=\"memstand-status\" data-charts=\"{}\" data-rendered=\"0\" data-drawn=\"0\" "
      "data-done=\"0\">"
      "charts not drawn yet (the page's script did not run)</p><pre "
      "id=\"memstand-errors\"></pre></header>"
      "<main>{}</main><script type=\"application/json\" id=\"memstand-charts\">{}</script>"
      "<script>{}</script><script>{}</script></body></html>\n",
      kErrorCapture, assets::UplotCss(), assets::PageCss(), MEMSTAND_VERSION,
      assets::UplotVersion(), Escape(command_line), inputs, chart_id, body, ScriptJson(specs),
      assets::UplotJs(), assets::PageJs());
}

Status WriteHtmlReport(const std::vector<std::string>& inputs, const std::string& out,
                       const std::string& command_line, ScenarioChartsLookup charts,
                       const std::vector<ReportSection>& extra, ReportInputCheck check) {
  if (inputs.empty())
    return Status::InvalidArgument("report: no input given (run, sweep or scenario JSON files)");
  std::vector<ReportSection> sections;
  for (const std::string& path : inputs) {
    Result<ReportInput> in = LoadReportInput(path);
    if (!in.ok()) return in.status();
    if (Status checked = check != nullptr ? check(*in) : Status::OK(); !checked.ok()) return checked;
    try {
      sections.push_back(SectionOf(*in, charts));
    } catch (const nlohmann::json::exception& e) {
      return Status::InvalidArgument(
          fmt::format("'{}': a field has an unexpected type: {}", in->json_path, e.what()));
    }
  }
  sections.insert(sections.end(), extra.begin(), extra.end());
  auto file = OutputFile::Open("-o", out);
  if (!file.ok()) return file.status();
  Status s = (*file)->Write(RenderHtmlReport(sections, command_line));
  return s.ok() ? (*file)->Commit() : s;
}

}  // namespace memstand
