// working-set (docs/scenarios/working-set.md): present, evicted and rejected writes after each
// portion, per configuration, with the first event's detection interval shaded; each
// portion's writes a second; with --reads, the hit ratio and the read latency per configuration.
#include <fmt/format.h>

#include <functional>
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

// The first run of a configuration that has reads (the reads charts show one run each).
const json* FirstRunWithReads(const json& config) {
  for (const json& r : Array(config, key::kRuns)) {
    if (Field(r, key::kReads).is_object()) return &r;
  }
  return nullptr;
}

// The configurations with reads, for a chart whose x is one configuration each.
std::vector<std::pair<std::string, const json*>> ReadRuns(const json& doc) {
  std::vector<std::pair<std::string, const json*>> out;
  for (const json& config : Array(doc, key::kConfigurations)) {
    if (const json* run = FirstRunWithReads(config)) {
      out.emplace_back(Text(config, key::kName), &Field(*run, key::kReads));
    }
  }
  return out;
}

Chart ReadsChart(const std::vector<std::pair<std::string, const json*>>& runs, std::string title, ChartAxis y) {
  Chart c;
  c.title = std::move(title);
  c.style = "points";
  c.x = Axis("configuration", "");
  c.y = std::move(y);
  c.data.resize(1);
  for (size_t i = 0; i < runs.size(); ++i) {
    c.x.ticks.push_back(runs[i].first);
    c.data[0].push_back(static_cast<double>(i));
  }
  return c;
}

// Adds a series of one value per configuration; none when no configuration has one.
void AddSeries(Chart* c, const std::vector<std::pair<std::string, const json*>>& runs, std::string name,
               const std::function<std::optional<double>(const json&)>& value) {
  std::vector<std::optional<double>> values;
  bool any = false;
  for (const auto& [config, reads] : runs) {
    values.push_back(value(*reads));
    any |= values.back().has_value();
  }
  if (!any) return;
  c->series.push_back(std::move(name));
  c->data.push_back(std::move(values));
}

// The hit ratio of each configuration's reads, from the replies and from the server's
// counters (the two agree when the counts do).
Chart HitRatioChart(const json& doc, const std::vector<std::pair<std::string, const json*>>& runs) {
  Chart c = ReadsChart(runs, "working-set: read hit ratio per configuration", Axis("hits / reads", ""));
  AddSeries(&c, runs, "from the replies", [](const json& r) { return Number(r, key::kHitRatio); });
  AddSeries(&c, runs, "from the server's counters",
            [](const json& r) { return Number(Field(r, key::kServerCounted), key::kHitRatio); });
  AddSeries(&c, runs, "vinyl tuple cache (server)",
            [](const json& r) { return Number(Field(r, key::kVinyl), key::kCacheHitRatio); });
  c.caption = fmt::format(
      "The hit ratio of the {} reads after each configuration's load (JSON configurations[].runs[].reads, "
      "the first run with reads): from the replies, and from the server's own counters where it keeps them "
      "(Redis keyspace_hits/misses, memcached get_hits/misses, vinyl's index get.rows of lookup; memtx has "
      "none). For vinyl also the share of lookups its tuple cache answered.",
      Text(Field(doc, key::kReads), key::kDistribution));
  return c;
}

// The p50 and p99 of each kind of read: hits, misses, and vinyl's from memory and from disk.
Chart ReadLatencyChart(const json& doc, const std::vector<std::pair<std::string, const json*>>& runs) {
  Chart c = ReadsChart(runs, "working-set: read latency per configuration", Axis("latency", "µs", true));
  for (const auto& [label, path] : std::vector<std::pair<const char*, std::vector<const char*>>>{
           {"hits", {key::kLatency, key::kHit}},
           {"misses", {key::kLatency, key::kMiss}},
           {"vinyl from memory", {key::kVinyl, key::kMemory}},
           {"vinyl from disk", {key::kVinyl, key::kDisk}}}) {
    for (const char* p : {key::kP50Us, key::kP99Us}) {
      AddSeries(&c, runs, fmt::format("{} {}", label, p == key::kP50Us ? "p50" : "p99"),
                [&](const json& r) { return Number(Field(Field(r, path[0]), path[1]), p); });
    }
  }
  c.caption = fmt::format(
      "The p50 and p99 of each configuration's {} reads, from the send to the reply, one read at a time "
      "(JSON configurations[].runs[].reads.latency and .vinyl, the first run with reads; each N is in the "
      "JSON and the block 'Reads after the load'). Vinyl's reads are attributed to memory or disk by the "
      "index's counters read after every read.",
      Text(Field(doc, key::kReads), key::kDistribution));
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
  const auto reads = ReadRuns(in.doc);
  if (!reads.empty()) {
    s->charts.push_back(HitRatioChart(in.doc, reads));
    s->charts.push_back(ReadLatencyChart(in.doc, reads));
  }
}

}  // namespace memstand
