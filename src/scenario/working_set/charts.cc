// working-set (docs/scenarios/working-set.md): present, evicted and rejected writes after each
// portion, per configuration, with the first event's detection interval shaded.
#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "report/json_fields.h"
#include "report/report_input.h"
#include "report/report_section.h"
#include "report/scenario_keys.h"
#include "scenario/working_set/json.h"
#include "scenario/working_set/working_set.h"

namespace memstand {
namespace {

using nlohmann::json;
namespace key = working_set_json;

// The first run of a configuration that has portions (the chart shows one run).
const json* FirstRunWithPortions(const json& config) {
  for (const json& r : Array(config, key::kRuns)) {
    if (!Array(r, key::kPortions).empty()) return &r;
  }
  return nullptr;
}

Chart ConfigurationChart(const json& doc, const json& config, const json& run) {
  Chart c;
  const std::string name = Text(config, key::kName);
  c.title = "working-set: " + name;
  c.x = Axis("records written", "writes");
  c.y = Axis("keys", "keys");
  c.series = {"present", "evicted", "rejected"};
  c.data.resize(4);
  for (const json& p : Array(run, key::kPortions)) {
    c.data[0].push_back(Number(p, key::kWritten));
    c.data[1].push_back(Number(p, key::kPresent));
    c.data[2].push_back(Number(p, key::kEvicted));
    c.data[3].push_back(Number(p, key::kRejected));
  }
  const json& in = Field(run, key::kDetectedIn);
  if (in.is_array() && in.size() == 2 && in[0].is_number() && in[1].is_number()) {
    c.bands.push_back({in[0].get<double>(), in[1].get<double>(),
                       fmt::format("first {} detected in ({}; {}]",
                                   Text(run, key::kOutcome) == "rejects" ? "rejection" : "event",
                                   in[0].dump(), in[1].dump())});
  }
  if (auto exact = Number(run, key::kExactPoint))
    c.x_lines.push_back({*exact, "exact: write " + Cell(exact)});
  c.caption = fmt::format(
      "{} ({}): keys present, evicted and rejected writes as the server counted them after each "
      "portion of "
      "{} writes (run {} of {}; JSON configurations[].runs[].portions). Outcome: {}. The shaded "
      "span is the "
      "portion in which the first event was detected (docs/method.md rule 7), the line its exact "
      "write.",
      name, Text(config, key::kServer), Text(doc, key::kPortion), Text(run, key::kRun), Text(doc, scenario_json::kRunsMade),
      Text(config, key::kOutcome));
  return c;
}

ReportTable ConfigurationsTable(const json& doc) {
  ReportTable t{"Configurations (run 1)",
                "configurations",
                {"configuration", "outcome", "attempted", "successful", "rejected", "evicted",
                 "present", "memory_used", "detected_in", "exact_point", "first_error"},
                {}};
  for (const json& c : Array(doc, key::kConfigurations)) {
    const json* r = Array(c, key::kRuns).empty() ? nullptr : &Array(c, key::kRuns)[0];
    if (r == nullptr) {
      t.rows.push_back({Text(c, key::kName), "not run: " + Text(c, key::kNotRun)});
      t.rows.back().resize(t.columns.size());
      continue;
    }
    t.rows.push_back({Text(c, key::kName), Text(c, key::kOutcome), Text(*r, key::kAttempted),
                      Text(*r, key::kSuccessful), Text(*r, key::kRejected), Text(*r, key::kEvicted),
                      Text(*r, key::kPresent), Text(*r, key::kMemoryUsed), Text(*r, key::kDetectedIn),
                      Text(*r, key::kExactPoint), Text(*r, key::kFirstError)});
  }
  return t;
}

// The writes a second of each portion, a series per configuration (its first run with
// portions); none when no portion has the figure (a result of before it was kept).
std::optional<Chart> ThroughputChart(const json& doc) {
  std::vector<std::pair<std::string, std::map<double, double>>> series;
  std::set<double> xs;
  for (const json& config : Array(doc, key::kConfigurations)) {
    const json* run = FirstRunWithPortions(config);
    if (run == nullptr) continue;
    std::map<double, double> points;
    for (const json& p : Array(*run, key::kPortions)) {
      auto x = Number(p, key::kWritten);
      auto y = Number(p, key::kWritesPerS);
      if (x && y) {
        points[*x] = *y;
        xs.insert(*x);
      }
    }
    if (!points.empty()) series.emplace_back(Text(config, key::kName), std::move(points));
  }
  if (series.empty()) return std::nullopt;
  Chart c;
  c.title = "working-set: writes a second per portion";
  c.x = Axis("records written", "writes");
  c.y = Axis("throughput of the portion", "writes/s");
  c.data.resize(series.size() + 1);
  for (double x : xs) c.data[0].push_back(x);
  for (size_t i = 0; i < series.size(); ++i) {
    c.series.push_back(series[i].first);
    for (double x : xs) {
      auto it = series[i].second.find(x);
      c.data[i + 1].push_back(it == series[i].second.end() ? std::nullopt : std::optional<double>(it->second));
    }
  }
  c.caption = fmt::format(
      "Each portion's writes over its time from its first send to its last reply (JSON "
      "configurations[].runs[].portions[].writes_per_s, the first run with portions), per configuration "
      "and writers setting ({} writers; rate {}): the throughput just before the first eviction or "
      "rejection is the block 'Failure point per setting'.",
      Text(doc, "writers"), Field(doc, "rate").is_number() ? Text(doc, "rate") + "/s" : "as answered");
  return c;
}

}  // namespace

void WorkingSetCharts(const ReportInput& in, ReportSection* s) {
  if (in.csv.empty()) s->tables.push_back(ConfigurationsTable(in.doc));
  for (const json& config : Array(in.doc, key::kConfigurations)) {
    if (const json* run = FirstRunWithPortions(config))
      s->charts.push_back(ConfigurationChart(in.doc, config, *run));
  }
  if (auto c = ThroughputChart(in.doc)) s->charts.push_back(std::move(*c));
}

}  // namespace memstand
