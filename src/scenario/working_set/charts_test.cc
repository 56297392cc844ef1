// Golden tests of the data each chart of working-set's report section receives
// (ChartJson, from crafted inputs).
#include <gtest/gtest.h>

#include "report/scenario_sections.h"
#include "report_util.h"
#include "scenario/working_set/working_set.h"

namespace memstand {
namespace {

using nlohmann::json;
using OJson = nlohmann::ordered_json;
using testutil::ChartData;
using testutil::ChartTitled;
using testutil::Golden;
using testutil::ReportInputOf;

constexpr char kWorkingSet[] = R"j({
  "format": 1, "scenario": "working-set", "platform": "P", "runs": 1, "portion": 10,
  "configurations": [
    {"name": "lru", "server": "redis 7", "outcome": "evicts", "runs": [
      {"run": 1, "outcome": "evicts", "detected_in": [10, 20], "exact_point": 14,
       "portions": [{"written": 10, "present": 10, "evicted": 0, "rejected": 0},
                    {"written": 20, "present": 15, "evicted": 5, "rejected": 0},
                    {"written": 30, "present": 15, "evicted": 15, "rejected": 0}]}]},
    {"name": "missing", "not_run": "memcached is not installed", "runs": []}]
})j";

TEST(HtmlReportTest, WorkingSetShadesTheDetectionIntervalPerConfiguration) {
  ReportSection s = ScenarioSection(ReportInputOf(kWorkingSet), WorkingSetCharts);
  EXPECT_EQ(s.platform, "P");
  ASSERT_EQ(s.charts.size(), 1u);  // the configuration that did not run has no chart
  EXPECT_EQ(ChartData(s, "working-set: lru"), Golden(R"j({
    "x": {"label": "records written", "unit": "writes", "log": false},
    "y": {"label": "keys", "unit": "keys", "log": false},
    "series": ["present", "evicted", "rejected"],
    "data": [[10, 20, 30], [10, 15, 15], [0, 5, 15], [0, 0, 0]],
    "bands": [{"from": 10, "to": 20, "label": "first event detected in (10; 20]"}],
    "x_lines": [{"at": 14, "label": "exact: write 14"}], "y_lines": []})j"));
  // No evidence folder: the configurations table comes from the JSON.
  ASSERT_EQ(s.tables.size(), 1u);
  EXPECT_EQ(s.tables[0].rows[1][1], "not run: memcached is not installed");
}

// Each portion's writes a second, a series per configuration (writers settings are
// configurations of their own); a portion one configuration lacks is a gap.
TEST(HtmlReportTest, WorkingSetDrawsEachPortionsThroughputPerConfiguration) {
  const json doc = json::parse(R"j({
    "format": 1, "scenario": "working-set", "runs": 1, "portion": 10, "writers": [1, 16], "rate": null,
    "configurations": [
      {"name": "noev-w1", "runs": [{"run": 1, "portions": [
        {"written": 10, "writes_per_s": 1000}, {"written": 20, "writes_per_s": 500}]}]},
      {"name": "noev-w16", "runs": [{"run": 1, "portions": [
        {"written": 10, "writes_per_s": 4000}, {"written": 20, "writes_per_s": 3000},
        {"written": 30, "writes_per_s": 2000}]}]}]
  })j");
  ReportSection s = ScenarioSection(ReportInputOf(doc.dump()), WorkingSetCharts);
  EXPECT_EQ(ChartData(s, "working-set: writes a second per portion"), Golden(R"j({
    "x": {"label": "records written", "unit": "writes", "log": false},
    "y": {"label": "throughput of the portion", "unit": "writes/s", "log": false},
    "series": ["noev-w1", "noev-w16"],
    "data": [[10, 20, 30], [1000, 500, null], [4000, 3000, 2000]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
}

// --reads: the hit ratio per configuration (x: its name) from the replies, the server and
// vinyl's tuple cache, and the p50 / p99 of each kind of read; a series no configuration
// has (no misses anywhere, say) is left out, a value one lacks is a gap.
TEST(HtmlReportTest, WorkingSetDrawsTheReadsHitRatioAndLatencyPerConfiguration) {
  const json doc = json::parse(R"j({
    "format": 1, "scenario": "working-set", "runs": 1, "reads": {"distribution": "zipf"},
    "configurations": [
      {"name": "lru", "runs": [{"run": 1, "reads": {"hit_ratio": 0.25, "server": {"hit_ratio": 0.25},
        "latency": {"hit": {"n": 1, "p50_us": 40, "p99_us": 90}, "miss": {"n": 3, "p50_us": 30, "p99_us": 80}},
        "vinyl": null}}]},
      {"name": "noreads", "runs": [{"run": 1, "reads": null}]},
      {"name": "vinyl", "runs": [{"run": 1, "reads": {"hit_ratio": 1, "server": {"hit_ratio": 1},
        "latency": {"hit": {"n": 4, "p50_us": 100, "p99_us": 900}, "miss": {"n": 0, "p50_us": null, "p99_us": null}},
        "vinyl": {"cache_hit_ratio": 0.5, "memory": {"n": 2, "p50_us": 60, "p99_us": 70},
                  "disk": {"n": 2, "p50_us": 200, "p99_us": 950}}}}]}]
  })j");
  ReportSection s = ScenarioSection(ReportInputOf(doc.dump()), WorkingSetCharts);
  EXPECT_EQ(ChartData(s, "working-set: read hit ratio per configuration"), Golden(R"j({
    "x": {"label": "configuration", "unit": "", "log": false, "ticks": ["lru", "vinyl"]},
    "y": {"label": "hits / reads", "unit": "", "log": false},
    "series": ["from the replies", "from the server's counters", "vinyl tuple cache (server)"],
    "data": [[0, 1], [0.25, 1], [0.25, 1], [null, 0.5]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
  EXPECT_EQ(ChartData(s, "working-set: read latency per configuration"), Golden(R"j({
    "x": {"label": "configuration", "unit": "", "log": false, "ticks": ["lru", "vinyl"]},
    "y": {"label": "latency", "unit": "µs", "log": true},
    "series": ["hits p50", "hits p99", "misses p50", "misses p99", "vinyl from memory p50",
               "vinyl from memory p99", "vinyl from disk p50", "vinyl from disk p99"],
    "data": [[0, 1], [40, 100], [90, 900], [30, null], [80, null], [null, 60], [null, 70], [null, 200],
             [null, 950]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
}

}  // namespace
}  // namespace memstand
