// compute-locality (docs/scenarios/compute-locality.md): the ratios naive / path of objects, bytes in and
// time per comparison of each system, and every timed call per path from the evidence
// folder's samples.csv (docs/method.md rules 9, 11).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "report/json_fields.h"
#include "report/report_input.h"
#include "report/report_section.h"
#include "scenario/compute_locality/compute_locality.h"
#include "scenario/compute_locality/json.h"
#include "util/csv.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = compute_locality_json;

std::string SystemName(const json& system) {
  return Text(system, key::kName) +
         (Number(system, key::kRun).value_or(1) > 1 ? " (run " + Text(system, key::kRun) + ")" : "");
}

// A comparison's label up to its first comma or parenthesis ("control 1a, aligned
// shape (...)" -> "control 1a"): the axis has room for a few words; the caption and the
// table carry the rest.
std::string ShortLabel(const std::string& label) {
  const size_t cut = label.find_first_of(",(");
  std::string s = label.substr(0, cut);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

Chart RatiosChart(const json& system) {
  Chart c;
  c.title = "compute-locality: " + SystemName(system) + ", ratios a / b";
  c.style = "points";
  c.x = Axis("comparison", "");
  c.y = Axis("ratio a / b", "x", true);
  c.series = {"objects", "bytes in", "time"};
  c.data.resize(4);
  double i = 0;
  for (const json& p : Array(system, key::kPairs)) {
    c.x.ticks.push_back(ShortLabel(Text(p, key::kLabel)) + ": " + Text(p, key::kA) + " / " + Text(p, key::kB));
    c.data[0].push_back(i++);
    c.data[1].push_back(Number(p, key::kObjects));
    c.data[2].push_back(Number(p, key::kBytesIn));
    c.data[3].push_back(Number(p, key::kTime));
  }
  std::string labels;
  for (const json& p : Array(system, key::kPairs))
    labels += (labels.empty() ? "" : "; ") + Text(p, key::kLabel);
  c.caption = fmt::format(
      "{}: for each comparison, objects returned, application bytes read and time (median over "
      "both "
      "passes) of path a divided by those of path b, each measured on its own (JSON "
      "systems[].pairs; "
      "docs/method.md rule 11). Counts and bytes survive the platform; time is this platform's. "
      "Comparisons: {}.",
      SystemName(system), labels);
  return c;
}

// Every timed call of each path of `system` in samples.csv, in file order.
Chart SamplesChart(const json& system, const std::vector<std::vector<std::string>>& rows,
                   const std::map<std::string, size_t>& col) {
  Chart c;
  c.title = "compute-locality: " + SystemName(system) + ", every timed call";
  c.style = "points";
  c.x = Axis("call of the path (pass 1, then pass 2)", "call");
  c.x.integer = true;
  c.y = Axis("time of the call", "µs", true);
  const std::string name = Text(system, key::kName), run = Text(system, key::kRun);
  std::vector<std::vector<std::pair<double, std::optional<double>>>> points;
  std::map<std::string, size_t> index;
  for (const json& p : Array(system, key::kPaths)) {
    index[Text(p, key::kName)] = c.series.size();
    c.series.push_back(Text(p, key::kName));
    points.emplace_back();
  }
  for (const auto& r : rows) {
    if (r.size() <= std::max({col.at(key::kColumnSystem), col.at(key::kColumnRun), col.at(key::kColumnPath), col.at(key::kColumnNs)}))
      continue;
    if (r[col.at(key::kColumnSystem)] != name || (!run.empty() && r[col.at(key::kColumnRun)] != run)) continue;
    auto it = index.find(r[col.at(key::kColumnPath)]);
    if (it == index.end()) continue;
    char* end = nullptr;
    const double ns = std::strtod(r[col.at(key::kColumnNs)].c_str(), &end);
    auto& series = points[it->second];
    series.emplace_back(double(series.size() + 1),
                        ns > 0 ? std::optional<double>(ns / 1000) : std::nullopt);
  }
  c.data = JoinOnX(points);
  c.caption = fmt::format(
      "{}: the time of every timed call of each path (evidence samples.csv: {} calls per path and "
      "pass, "
      "the paths interleaved), so the shape of the distribution (e.g. two modes) can be checked "
      "(docs/method.md "
      "rule 9). Absolute times describe this platform.",
      SystemName(system),
      Array(system, key::kPaths).empty() ? "" : Text(Array(system, key::kPaths)[0], key::kSamples));
  return c;
}

ReportTable PathsTable(const json& doc) {
  ReportTable t{
      "Paths",
      "paths",
      {"system", "run", "path", "objects", "bytes_in", "bytes_out", "median_ns", "min_ns", "max_ns",
       "round_trips", "vs naive: objects", "bytes in", "bytes per object", "time"},
      {}};
  for (const json& s : Array(doc, key::kSystems)) {
    if (!Text(s, key::kNotRun).empty()) {
      t.rows.push_back({Text(s, key::kName), Text(s, key::kRun), "not run: " + Text(s, key::kNotRun)});
      t.rows.back().resize(t.columns.size());
      continue;
    }
    for (const json& p : Array(s, key::kPaths)) {
      const json& v = Field(p, key::kVsNaive);
      t.rows.push_back({Text(s, key::kName), Text(s, key::kRun), Text(p, key::kName), Text(p, key::kObjects),
                        Text(p, key::kBytesIn), Text(p, key::kBytesOut), Cell(Number(p, key::kMedianNs)),
                        Cell(Number(p, key::kMinNs)), Cell(Number(p, key::kMaxNs)),
                        Text(p, key::kRoundTrips), Cell(Number(v, key::kObjects)),
                        Cell(Number(v, key::kBytesIn)), Cell(Number(v, key::kBytesPerObject)),
                        Cell(Number(v, key::kTime))});
    }
  }
  return t;
}

}  // namespace

void ComputeLocalityCharts(const ReportInput& in, ReportSection* s) {
  if (in.csv.empty()) s->tables.push_back(PathsTable(in.doc));
  std::vector<std::vector<std::string>> rows;
  std::map<std::string, size_t> col;
  if (auto it = in.csv.find(key::kSamplesTable); it != in.csv.end()) {
    rows = ParseCsv(it->second);
    if (!rows.empty()) {
      for (size_t i = 0; i < rows[0].size(); ++i) col[rows[0][i]] = i;
      rows.erase(rows.begin());
    }
  }
  const bool samples =
      col.count(key::kColumnSystem) && col.count(key::kColumnRun) && col.count(key::kColumnPath) &&
      col.count(key::kColumnNs);
  for (const json& system : Array(in.doc, key::kSystems)) {
    if (Array(system, key::kPairs).empty()) continue;
    s->charts.push_back(RatiosChart(system));
    if (samples) s->charts.push_back(SamplesChart(system, rows, col));
  }
  if (!samples) {
    s->blocks.push_back({"Raw timings",
                         {"not drawn: the raw timings are in the evidence folder's samples.csv; "
                          "give the folder (--evidence DIR) instead of its scenario.json"}});
  }
}

}  // namespace memstand
