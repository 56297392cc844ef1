// durability-overload (docs/scenarios/durability-overload.md): each cell's throughput per durability mode,
// how many of its runs had errors (the matrix coloured by errors, as two series), the
// storage writes, p99, server and client CPU and largest RSS by cell and mode, and
// the cluster's state over time (CLUSTER INFO on every node each second: the intervals a
// node was flagged, silent or saw cluster_state:fail, on one timeline of the cells).
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "report/json_fields.h"
#include "report/report_input.h"
#include "report/report_section.h"
#include "scenario/durability_overload/durability_overload.h"
#include "scenario/durability_overload/json.h"
#include "scenario/kit/ranges.h"

namespace memstand {

using nlohmann::json;

namespace {

namespace key = durability_overload_json;

// The cells' seconds are laid end to end with this gap between two cells, so an interval
// that reaches a cell's end is not joined to one that starts the next.
constexpr double kCellGapSeconds = 1;

// One chart of every interval of every cell: x the cells' seconds end to end (a dashed
// line where each starts), y one row per kind of interval ("node-2 pfail"), a segment per
// interval. nullopt when no cell has an interval.
std::optional<Chart> ClusterTimeline(const nlohmann::json& cells) {
  struct Span {
    size_t row;
    double from, to;
  };
  std::vector<std::string> rows;
  std::vector<Span> spans;
  std::vector<ChartLine> starts;
  std::set<double> xs;
  double offset = 0;
  for (const nlohmann::json& c : cells) {
    const nlohmann::json& intervals = Array(c, key::kClusterIntervals);
    const double seconds = Number(c, key::kSeconds).value_or(0);
    if (seconds <= 0 && intervals.empty()) continue;  // a cell that did not run
    starts.push_back({offset, fmt::format("run {} {} {} {} B", Text(c, key::kRun), Text(c, key::kMode), Text(c, key::kOp),
                                          Text(c, key::kSize))});
    xs.insert(offset);
    double end = seconds;
    for (const nlohmann::json& i : intervals) {
      const std::string what = Text(i, key::kWhat);
      auto it = std::find(rows.begin(), rows.end(), what);
      if (it == rows.end()) it = rows.insert(rows.end(), what);
      const double from = offset + Number(i, key::kFromS).value_or(0);
      const double to = offset + std::max(Number(i, key::kToS).value_or(0), Number(i, key::kFromS).value_or(0));
      spans.push_back({static_cast<size_t>(it - rows.begin()), from, to});
      xs.insert(from);
      xs.insert(to);
      end = std::max(end, to - offset);
    }
    offset += end + kCellGapSeconds;
    xs.insert(offset - kCellGapSeconds / 2);  // in the gap: every row is empty there
  }
  if (spans.empty()) return std::nullopt;
  Chart t;
  t.title = "durability-overload: the cluster's state over time";
  t.style = "segments";
  t.x = Axis("seconds of the cells, end to end", "s");
  t.y = Axis("", "");
  t.y.ticks = rows;
  t.series = rows;
  t.x_lines = std::move(starts);
  t.data.emplace_back(xs.begin(), xs.end());
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<std::optional<double>> v;
    for (double x : xs) {
      bool in = std::any_of(spans.begin(), spans.end(),
                            [&](const Span& s) { return s.row == r && x >= s.from && x <= s.to; });
      v.push_back(in ? std::optional<double>(static_cast<double>(r)) : std::nullopt);
    }
    t.data.push_back(std::move(v));
  }
  t.caption = "Each interval a node was flagged (pfail, fail), did not answer CLUSTER INFO, or reported "
              "cluster_state:fail, from the samples taken each second on every node (JSON cells[].cluster_intervals, "
              "from_s and to_s from the cell's start); the cells laid end to end, a dashed line where each starts. "
              "An interval shorter than a sample's second may be missed.";
  return t;
}

// Throughput and runs with errors per cell (x) and durability mode (a series each).
void MatrixCharts(const ReportInput& in, ReportSection* s) {
  const json& matrix = Array(in.doc, key::kMatrix);
  std::vector<std::string> cells, modes;
  std::map<std::pair<std::string, std::string>, const json*> by;  // (cell, mode)
  for (const json& m : matrix) {
    const std::string cell = fmt::format("{} {} B {}", Text(m, key::kOp), Text(m, key::kSize), Text(m, key::kPayload));
    const std::string mode = Text(m, key::kMode);
    if (std::find(cells.begin(), cells.end(), cell) == cells.end()) cells.push_back(cell);
    if (std::find(modes.begin(), modes.end(), mode) == modes.end()) modes.push_back(mode);
    by[{cell, mode}] = &m;
  }
  if (cells.empty()) {
    s->blocks.push_back({"Charts", {"no chart: the JSON has no matrix"}});
    return;
  }
  Chart ops, errors;
  ops.title = "durability-overload: throughput per cell and durability mode";
  ops.style = "points";
  ops.x = Axis("cell", "");
  ops.x.ticks = cells;
  ops.y = Axis("median throughput over the runs", "ops/s");
  errors.title = "durability-overload: runs with errors per cell";
  errors.style = "points";
  errors.x = ops.x;
  errors.y = Axis("runs with errors", "runs");
  errors.y.integer = true;
  ops.data.resize(modes.size() + 1);
  errors.data.resize(modes.size() + 1);
  for (size_t i = 0; i < cells.size(); ++i) {
    ops.data[0].push_back(static_cast<double>(i));
    errors.data[0].push_back(static_cast<double>(i));
  }
  for (size_t k = 0; k < modes.size(); ++k) {
    ops.series.push_back(modes[k]);
    errors.series.push_back(modes[k]);
    for (const std::string& cell : cells) {
      auto it = by.find({cell, modes[k]});
      const json* m = it == by.end() ? nullptr : it->second;
      ops.data[k + 1].push_back(m != nullptr ? RangeMedianAt(*m, key::kOpsPerSec) : std::nullopt);
      errors.data[k + 1].push_back(m != nullptr ? Number(*m, key::kRunsWithErrors) : std::nullopt);
    }
  }
  ops.caption = "Each cell's median throughput over its runs (JSON matrix[].ops_per_sec.median; its runs with "
                "errors included, docs/method.md rule 16), per durability mode: the price of durability "
                "is the distance between the modes at one cell.";
  errors.caption = "How many of each cell's runs had any error (JSON matrix[].runs_with_errors): a cell above 0 "
                   "is reported as failed, never by its best run.";
  s->charts.push_back(std::move(ops));
  s->charts.push_back(std::move(errors));
}

// One figure of the cells that ran, by cell (x) and durability mode (a series each): the
// median over the runs of value(cell), skipping cells where it is not known.
std::optional<Chart> CellFigureChart(const json& doc, std::string title, ChartAxis y, std::string caption,
                                     const std::function<std::optional<double>(const json&)>& value) {
  std::vector<std::string> cells, modes;
  std::map<std::pair<std::string, std::string>, std::vector<double>> values;
  for (const json& c : Array(doc, key::kCells)) {
    if (Field(c, key::kRan) != true) continue;
    const std::string cell = fmt::format("{} {} B {}", Text(c, key::kOp), Text(c, key::kSize), Text(c, key::kPayload));
    const std::string mode = Text(c, key::kMode);
    if (std::find(cells.begin(), cells.end(), cell) == cells.end()) cells.push_back(cell);
    if (std::find(modes.begin(), modes.end(), mode) == modes.end()) modes.push_back(mode);
    if (auto v = value(c)) values[{cell, mode}].push_back(*v);
  }
  if (values.empty()) return std::nullopt;  // no cell ran, or none has the figure
  Chart chart;
  chart.title = std::move(title);
  chart.style = "points";
  chart.x = Axis("cell", "");
  chart.x.ticks = cells;
  chart.y = std::move(y);
  chart.data.resize(modes.size() + 1);
  for (size_t i = 0; i < cells.size(); ++i) chart.data[0].push_back(static_cast<double>(i));
  for (size_t k = 0; k < modes.size(); ++k) {
    chart.series.push_back(modes[k]);
    for (const std::string& cell : cells) {
      auto it = values.find({cell, modes[k]});
      chart.data[k + 1].push_back(it == values.end() || it->second.empty()
                                      ? std::nullopt
                                      : std::optional<double>(RangeOf(it->second).median));
    }
  }
  chart.caption = std::move(caption);
  return chart;
}

// Storage writes, p99, client and server CPU and the largest RSS by cell and mode: the
// published study's charts by size, from each cell's own figures (JSON cells[]).
void ResourceCharts(const ReportInput& in, ReportSection* s) {
  const json& doc = in.doc;
  auto add = [s](std::optional<Chart> c) {
    if (c) s->charts.push_back(std::move(*c));
  };
  // A cell's field divided by `scale` (units), or by its seconds (a rate).
  auto scaled = [](const char* field, double scale) {
    return [field, scale](const json& c) -> std::optional<double> {
      auto v = Number(c, field);
      return v ? std::optional<double>(*v / scale) : std::nullopt;
    };
  };
  auto per_second = [](const json& c, const char* field) -> std::optional<double> {
    auto v = Number(c, field);
    auto seconds = Number(c, key::kSeconds);
    if (!v || !seconds || *seconds <= 0) return std::nullopt;
    return *v / *seconds;
  };
  add(CellFigureChart(
      doc, "durability-overload: bytes written to storage per cell", Axis("storage writes, all nodes", "MB/s"),
      "Bytes the kernel accounted to the nodes' writes (/proc/PID/io write_bytes summed over the nodes) per second "
      "of the cell, median over its runs (JSON cells[].write_bytes_per_sec).",
      scaled(key::kWriteBytesPerSec, 1e6)));
  add(CellFigureChart(
      doc, "durability-overload: p99 latency per cell", Axis("p99", "ms"),
      "The 99th percentile of each cell's latency, median over its runs (JSON cells[].p99_ns).",
      scaled(key::kP99Ns, 1e6)));
  add(CellFigureChart(
      doc, "durability-overload: CPU per cell", Axis("CPU, share of one core", "cores"),
      "The servers' CPU (all nodes, from /proc/PID/stat) per second of the cell, median over its runs (JSON "
      "cells[].server_cpu_s / seconds); the load client's is in the cells' table (client_cpu_s).",
      [&](const json& c) { return per_second(c, key::kServerCpuS); }));
  add(CellFigureChart(
      doc, "durability-overload: client CPU per cell", Axis("CPU, share of one core", "cores"),
      "The load client's CPU (its threads) per second of the cell, median over its runs (JSON "
      "cells[].client_cpu_s / seconds): near 1 core per load thread, the client was the bottleneck.",
      [&](const json& c) { return per_second(c, key::kClientCpuS); }));
  add(CellFigureChart(
      doc, "durability-overload: largest node RSS per cell", Axis("RSS, largest node sample", "MiB"),
      "The largest resident set of any node in the cell's samples, median over its runs (JSON cells[].rss_max).",
      scaled(key::kRssMax, 1 << 20)));
}

}  // namespace

void DurabilityOverloadCharts(const ReportInput& in, ReportSection* s) {
  MatrixCharts(in, s);
  ResourceCharts(in, s);
  if (auto timeline = ClusterTimeline(Array(in.doc, key::kCells))) {
    s->charts.push_back(std::move(*timeline));
  } else {
    double samples = 0;
    for (const json& c : Array(in.doc, key::kCells)) samples += Number(c, key::kClusterSamples).value_or(0);
    s->blocks.push_back(
        {"The cluster's state over time",
         {samples > 0 ? fmt::format("no interval to chart: in all {:.0f} CLUSTER INFO samples of the cells, every "
                                    "node answered with cluster_state:ok and no node flagged pfail or fail",
                                    samples)
                      : "no chart: the JSON's cells have no CLUSTER INFO samples"}});
  }
}

}  // namespace memstand
