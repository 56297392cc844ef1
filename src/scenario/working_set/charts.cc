// working-set (docs/scenarios.md): present, evicted and rejected writes after each
// portion, per configuration, with the first event's detection interval shaded.
#include <fmt/format.h>

#include "report/json_fields.h"
#include "report/report_input.h"
#include "report/report_section.h"
#include "scenario/working_set/working_set.h"

namespace memstand {
namespace {

using nlohmann::json;

// The first run of a configuration that has portions (the chart shows one run).
const json* FirstRunWithPortions(const json& config) {
  for (const json& r : Array(config, "runs")) {
    if (!Array(r, "portions").empty()) return &r;
  }
  return nullptr;
}

Chart ConfigurationChart(const json& doc, const json& config, const json& run) {
  Chart c;
  const std::string name = Text(config, "name");
  c.title = "working-set: " + name;
  c.x = Axis("records written", "writes");
  c.y = Axis("keys", "keys");
  c.series = {"present", "evicted", "rejected"};
  c.data.resize(4);
  for (const json& p : Array(run, "portions")) {
    c.data[0].push_back(Number(p, "written"));
    c.data[1].push_back(Number(p, "present"));
    c.data[2].push_back(Number(p, "evicted"));
    c.data[3].push_back(Number(p, "rejected"));
  }
  const json& in = Field(run, "detected_in");
  if (in.is_array() && in.size() == 2 && in[0].is_number() && in[1].is_number()) {
    c.bands.push_back({in[0].get<double>(), in[1].get<double>(),
                       fmt::format("first {} detected in ({}; {}]",
                                   Text(run, "outcome") == "rejects" ? "rejection" : "event",
                                   in[0].dump(), in[1].dump())});
  }
  if (auto exact = Number(run, "exact_point"))
    c.x_lines.push_back({*exact, "exact: write " + Cell(exact)});
  c.caption = fmt::format(
      "{} ({}): keys present, evicted and rejected writes as the server counted them after each "
      "portion of "
      "{} writes (run {} of {}; JSON configurations[].runs[].portions). Outcome: {}. The shaded "
      "span is the "
      "portion in which the first event was detected (docs/method.md rule 7), the line its exact "
      "write.",
      name, Text(config, "server"), Text(doc, "portion"), Text(run, "run"), Text(doc, "runs"),
      Text(config, "outcome"));
  return c;
}

ReportTable ConfigurationsTable(const json& doc) {
  ReportTable t{"Configurations (run 1)",
                "configurations",
                {"configuration", "outcome", "attempted", "successful", "rejected", "evicted",
                 "present", "memory_used", "detected_in", "exact_point", "first_error"},
                {}};
  for (const json& c : Array(doc, "configurations")) {
    const json* r = Array(c, "runs").empty() ? nullptr : &Array(c, "runs")[0];
    if (r == nullptr) {
      t.rows.push_back({Text(c, "name"), "not run: " + Text(c, "not_run")});
      t.rows.back().resize(t.columns.size());
      continue;
    }
    t.rows.push_back({Text(c, "name"), Text(c, "outcome"), Text(*r, "attempted"),
                      Text(*r, "successful"), Text(*r, "rejected"), Text(*r, "evicted"),
                      Text(*r, "present"), Text(*r, "memory_used"), Text(*r, "detected_in"),
                      Text(*r, "exact_point"), Text(*r, "first_error")});
  }
  return t;
}

}  // namespace

void WorkingSetCharts(const ReportInput& in, ReportSection* s) {
  if (in.csv.empty()) s->tables.push_back(ConfigurationsTable(in.doc));
  for (const json& config : Array(in.doc, "configurations")) {
    if (const json* run = FirstRunWithPortions(config))
      s->charts.push_back(ConfigurationChart(in.doc, config, *run));
  }
}

}  // namespace memstand
