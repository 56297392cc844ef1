// Golden tests of the data each chart of compute-locality's report section receives
// (ChartJson, from crafted inputs).
#include <gtest/gtest.h>

#include "report/scenario_sections.h"
#include "report_util.h"
#include "scenario/compute_locality/compute_locality.h"

namespace memstand {
namespace {

using nlohmann::json;
using OJson = nlohmann::ordered_json;
using testutil::ChartData;
using testutil::ChartTitled;
using testutil::Golden;
using testutil::ReportInputOf;

constexpr char kLocality[] = R"j({
  "format": 1, "scenario": "compute-locality", "platform": "P",
  "systems": [{"name": "redis", "run": 1, "paths": [{"name": "naive", "samples": 2}, {"name": "local"}],
    "pairs": [{"label": "as published", "a": "naive", "b": "local", "objects": 3327.6, "bytes_in": 3020.7,
               "bytes_per_object": 0.908, "time": 80.5},
              {"label": "control 1, aligned shape (id)", "a": "naive-short", "b": "local-short", "objects": 3327.6,
               "bytes_in": 2800, "time": 70}]},
    {"name": "postgresql", "run": 1, "not_run": "postgres is not installed", "paths": [], "pairs": []}]
})j";

TEST(HtmlReportTest, ComputeLocalityRatiosPerComparison) {
  ReportSection s = ScenarioSection(ReportInputOf(kLocality), ComputeLocalityCharts);
  EXPECT_EQ(ChartData(s, "compute-locality: redis, ratios a / b"), Golden(R"j({
    "x": {"label": "comparison", "unit": "", "log": false,
          "ticks": ["as published: naive / local", "control 1: naive-short / local-short"]},
    "y": {"label": "ratio a / b", "unit": "x", "log": true},
    "series": ["objects", "bytes in", "time"],
    "data": [[0, 1], [3327.6, 3327.6], [3020.7, 2800], [80.5, 70]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
  ASSERT_EQ(s.charts.size(), 1u);  // no samples.csv: no raw timings, and a line saying so
  bool said = false;
  for (const TextBlock& b : s.blocks) said |= b.title == "Raw timings";
  EXPECT_TRUE(said);
}

TEST(HtmlReportTest, ComputeLocalityRawTimingsFromTheEvidenceSamples) {
  ReportInput in = ReportInputOf(kLocality);
  in.csv["samples"] =
      "run,system,path,pass,rep,position,ns,objects\n"
      "1,redis,naive,1,1,1,5000000,33276\n1,redis,local,1,1,2,150000,10\n"
      "1,redis,naive,2,1,2,7000000,33276\n1,redis,local,2,1,1,0,10\n"
      "1,tarantool,naive,1,1,1,9,33276\n2,redis,naive,1,1,1,8,33276\n";
  ReportSection s = ScenarioSection(in, ComputeLocalityCharts);
  EXPECT_EQ(ChartData(s, "compute-locality: redis, every timed call"), Golden(R"j({
    "x": {"label": "call of the path (pass 1, then pass 2)", "unit": "call", "log": false, "integer": true},
    "y": {"label": "time of the call", "unit": "µs", "log": true},
    "series": ["naive", "local"], "data": [[1, 2], [5000, 7000], [150, null]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
  // The evidence CSVs are the tables.
  ASSERT_EQ(s.tables.size(), 1u);
  EXPECT_EQ(s.tables[0].csv_name, "samples");
  EXPECT_EQ(s.tables[0].rows.size(), 6u);
}

TEST(HtmlReportTest, ChartCsvHasUnitsInTheHeaderAndTickNames) {
  ReportSection s = ScenarioSection(ReportInputOf(kLocality), ComputeLocalityCharts);
  EXPECT_EQ(ChartCsv(s.charts.at(0)),
            "comparison,objects (x),bytes in (x),time (x)\n"
            "as published: naive / local,3327.6,3020.7,80.5\n"
            "control 1: naive-short / local-short,3327.6,2800,70\n");
}

// The binary carries the very files npm installed (web/package.json pins the version).

}  // namespace
}  // namespace memstand
