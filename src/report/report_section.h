// What a report page shows of one input: text blocks, tables and charts, as data. The
// section builders (run_sections.h, scenario_sections.h) fill it from the input's JSON;
// html_report.h turns it into HTML, and each chart into the JSON its uPlot chart
// receives (ChartJson: the golden tests' subject). No HTML here.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace memstand {

struct ChartAxis {
  std::string label;     // "latency"
  std::string unit;      // "µs"; shown beside the label
  bool log = false;      // a log10 scale
  bool integer = false;  // whole numbers only (run numbers, call numbers): ticks at whole steps
  /// Category names: x value i (0-based) is ticks[i] (the x axis of a bar-like chart).
  std::vector<std::string> ticks;
};

inline ChartAxis Axis(std::string label, std::string unit, bool log = false) {
  return ChartAxis{std::move(label), std::move(unit), log, false, {}};
}

/// A shaded span of x (e.g. a detection interval (low; high]).
struct ChartBand {
  double from = 0;
  double to = 0;
  std::string label;
};

/// A vertical (x) or horizontal (y) line with its label (a knee, a failure, a median).
struct ChartLine {
  double at = 0;
  std::string label;
};

/// One uPlot chart. `data[0]` is x, `data[i]` the values of series[i - 1]; a missing
/// value is nullopt (a gap). x is ascending.
struct Chart {
  std::string title;
  std::string caption;         // what it shows, in words; the source file is added
  /// "line", "points" (no line between the points) or "segments" (a line that a missing
  /// value breaks: a timeline of intervals)
  std::string style = "line";
  ChartAxis x, y;
  std::vector<std::string> series;
  std::vector<std::vector<std::optional<double>>> data;
  std::vector<ChartBand> bands;
  std::vector<ChartLine> x_lines;
  std::vector<ChartLine> y_lines;
};

/// A table shown as an HTML table, downloadable as `csv_name`.csv.
struct ReportTable {
  std::string title;
  std::string csv_name;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

struct TextBlock {
  std::string title;
  std::vector<std::string> lines;
};

/// One input's part of the page.
struct ReportSection {
  std::string title;     // "run: run.json"
  std::string source;    // the file read
  std::string platform;  // Platform::Describe() of the machine that measured it
  std::vector<TextBlock> blocks;
  std::vector<ReportTable> tables;
  std::vector<Chart> charts;
};

/// The chart as its page script receives it: title, caption, source, platform, style,
/// axes, series, data, bands and lines (docs/report.md).
nlohmann::ordered_json ChartJson(const Chart& chart, const ReportSection& section);

/// The chart's data as CSV: a header of x and the series, one row per x.
std::string ChartCsv(const Chart& chart);

/// The table as CSV (RFC 4180, util/csv.h).
std::string TableCsv(const ReportTable& table);

}  // namespace memstand
