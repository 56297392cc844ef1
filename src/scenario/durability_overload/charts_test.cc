// Golden tests of the data each chart of durability-overload's report section receives
// (ChartJson, from crafted inputs).
#include <gtest/gtest.h>

#include "report/scenario_sections.h"
#include "report_util.h"
#include "scenario/durability_overload/durability_overload.h"

namespace memstand {
namespace {

using nlohmann::json;
using OJson = nlohmann::ordered_json;
using testutil::ChartData;
using testutil::ChartTitled;
using testutil::Golden;
using testutil::ReportInputOf;

TEST(HtmlReportTest, DurabilityOverloadThroughputAndErrorsPerCellAndMode) {
  ReportSection s = ScenarioSection(ReportInputOf(R"j({
    "format": 1, "scenario": "durability-overload", "platform": "P",
    "matrix": [{"mode": "none", "op": "SET", "size": 100, "payload": "random", "ops_per_sec": {"median": 50000},
                "runs": 3, "runs_with_errors": 0},
               {"mode": "aof-everysec", "op": "SET", "size": 100, "payload": "random",
                "ops_per_sec": {"median": 30000}, "runs": 3, "runs_with_errors": 2},
               {"mode": "none", "op": "GET", "size": 100, "payload": "random", "ops_per_sec": {"median": 70000},
                "runs": 3, "runs_with_errors": 0}]})j"), DurabilityOverloadCharts);
  EXPECT_EQ(ChartData(s, "durability-overload: throughput per cell and durability mode"), Golden(R"j({
    "x": {"label": "cell", "unit": "", "log": false, "ticks": ["SET 100 B random", "GET 100 B random"]},
    "y": {"label": "median throughput over the runs", "unit": "ops/s", "log": false},
    "series": ["none", "aof-everysec"], "data": [[0, 1], [50000, 70000], [30000, null]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
  EXPECT_EQ(ChartData(s, "durability-overload: runs with errors per cell")["data"], Golden("[[0, 1], [0, 0], [2, null]]"));
}

// The charts by cell from each cell's own figures: the median over the runs of the cells
// that ran, per mode; a figure not known (storage writes not readable) is a gap.
TEST(HtmlReportTest, DurabilityOverloadResourceChartsAreMediansOverTheRuns) {
  ReportSection s = ScenarioSection(ReportInputOf(R"j({
    "format": 1, "scenario": "durability-overload", "platform": "P", "matrix": [],
    "cells": [
      {"run": 1, "mode": "none", "op": "SET", "size": 100, "payload": "random", "ran": true, "seconds": 2,
       "p99_ns": 1000000, "write_bytes_per_sec": 2000000, "client_cpu_s": 1, "server_cpu_s": 0.5, "rss_max": 1048576},
      {"run": 2, "mode": "none", "op": "SET", "size": 100, "payload": "random", "ran": true, "seconds": 2,
       "p99_ns": 3000000, "write_bytes_per_sec": 4000000, "client_cpu_s": 2, "server_cpu_s": 1.5, "rss_max": 3145728},
      {"run": 1, "mode": "aof-everysec", "op": "SET", "size": 100, "payload": "random", "ran": true, "seconds": 2,
       "p99_ns": 5000000, "write_bytes_per_sec": null, "client_cpu_s": 1, "server_cpu_s": 1, "rss_max": 2097152},
      {"run": 1, "mode": "aof-everysec", "op": "GET", "size": 100, "payload": "random", "ran": false}]})j"),
                                    DurabilityOverloadCharts);
  EXPECT_EQ(ChartData(s, "durability-overload: p99 latency per cell"), Golden(R"j({
    "x": {"label": "cell", "unit": "", "log": false, "ticks": ["SET 100 B random"]},
    "y": {"label": "p99", "unit": "ms", "log": false},
    "series": ["none", "aof-everysec"], "data": [[0], [2], [5]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
  EXPECT_EQ(ChartData(s, "durability-overload: bytes written to storage per cell")["data"], Golden("[[0], [3], [null]]"));
  EXPECT_EQ(ChartData(s, "durability-overload: CPU per cell")["data"], Golden("[[0], [0.5], [0.5]]"));
  EXPECT_EQ(ChartData(s, "durability-overload: client CPU per cell")["data"], Golden("[[0], [0.75], [0.5]]"));
  EXPECT_EQ(ChartData(s, "durability-overload: largest node RSS per cell")["data"], Golden("[[0], [2], [2]]"));
}

// The cluster's state over time: the cells end to end (1 s apart), one row per kind of
// interval, a gap (null) between two intervals of a row, a dashed line where a cell starts.
TEST(HtmlReportTest, DurabilityOverloadClusterStateTimeline) {
  ReportSection s = ScenarioSection(ReportInputOf(R"j({
    "format": 1, "scenario": "durability-overload", "platform": "P", "matrix": [],
    "cells": [{"run": 1, "mode": "none", "op": "SET", "size": 100, "seconds": 4, "cluster_samples": 12,
               "cluster_intervals": [{"what": "node-2 pfail", "from_s": 1, "to_s": 3, "open": false},
                                     {"what": "cluster_state:fail", "from_s": 2, "to_s": 4, "open": true}]},
              {"run": 1, "mode": "none", "op": "GET", "size": 100, "seconds": 2, "cluster_samples": 6,
               "cluster_intervals": []},
              {"run": 1, "mode": "aof-everysec", "op": "SET", "size": 100, "seconds": 3, "cluster_samples": 9,
               "cluster_intervals": [{"what": "node-2 pfail", "from_s": 0, "to_s": 1, "open": false}]}]})j"), DurabilityOverloadCharts);
  const OJson t = ChartData(s, "durability-overload: the cluster's state over time");
  ASSERT_FALSE(t.is_null());
  EXPECT_EQ(t["y"], Golden(R"j({"label": "", "unit": "", "log": false,
                                 "ticks": ["node-2 pfail", "cluster_state:fail"]})j"));
  EXPECT_EQ(t["data"], Golden(R"j([[0, 1, 2, 3, 4, 4.5, 5, 7.5, 8, 9, 11.5],
    [null, 0, 0, 0, null, null, null, null, 0, 0, null],
    [null, null, 1, 1, 1, null, null, null, null, null, null]])j"));
  EXPECT_EQ(t["x_lines"], Golden(R"j([{"at": 0, "label": "run 1 none SET 100 B"},
    {"at": 5, "label": "run 1 none GET 100 B"}, {"at": 8, "label": "run 1 aof-everysec SET 100 B"}])j"));
  const Chart* c = ChartTitled(s, "durability-overload: the cluster's state over time");
  EXPECT_EQ(c->style, "segments");

  // No interval: no chart, a line that counts the samples that saw none.
  ReportSection quiet = ScenarioSection(ReportInputOf(R"j({
    "format": 1, "scenario": "durability-overload", "platform": "P", "matrix": [],
    "cells": [{"seconds": 4, "cluster_samples": 12, "cluster_intervals": []}]})j"), DurabilityOverloadCharts);
  for (const Chart& q : quiet.charts) EXPECT_EQ(q.title.find("state over time"), std::string::npos) << q.title;
  bool said = false;
  for (const TextBlock& b : quiet.blocks) {
    for (const std::string& l : b.lines) said |= l.find("in all 12 CLUSTER INFO samples") != std::string::npos;
  }
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace memstand
