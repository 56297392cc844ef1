// Golden tests of the data each chart of replication-cost's report section receives
// (ChartJson, from crafted inputs).
#include <gtest/gtest.h>

#include "report/scenario_sections.h"
#include "report_util.h"
#include "scenario/replication_cost/replication_cost.h"

namespace memstand {
namespace {

using nlohmann::json;
using OJson = nlohmann::ordered_json;
using testutil::ChartData;
using testutil::ChartTitled;
using testutil::Golden;
using testutil::ReportInputOf;

// replication-cost: per system, throughput and p99 against concurrency per path (the
// median over runs, a cell that stalled or failed a gap) and the ratios at equal
// concurrency.
TEST(HtmlReportTest, ReplicationCostPathsAgainstConcurrencyAndRatios) {
  ReportSection s = ScenarioSection(ReportInputOf(R"j({
    "format": 1, "scenario": "replication-cost", "platform": "P", "runs": 2,
    "cells": [{"run": 1, "system": "tarantool", "path": "async-write", "concurrency": 1, "ok": true, "stalled": false,
               "ops_per_sec": 1000, "p99_us": 900},
              {"run": 2, "system": "tarantool", "path": "async-write", "concurrency": 1, "ok": true, "stalled": false,
               "ops_per_sec": 3000, "p99_us": 700},
              {"run": 1, "system": "tarantool", "path": "sync-write", "concurrency": 1, "ok": false, "stalled": true,
               "ops_per_sec": 0, "p99_us": 0},
              {"run": 1, "system": "tarantool", "path": "async-write", "concurrency": 4, "ok": true, "stalled": false,
               "ops_per_sec": 5000, "p99_us": 1500},
              {"run": 1, "system": "tarantool", "path": "sync-write", "concurrency": 4, "ok": true, "stalled": false,
               "ops_per_sec": 2500, "p99_us": 3000},
              {"run": 1, "system": "redis", "path": "set", "concurrency": 1, "ok": true, "stalled": false,
               "ops_per_sec": 20000, "p99_us": 100}],
    "ratios": [{"run": 1, "system": "tarantool", "a": "sync-write", "b": "async-write", "concurrency": 4,
                "throughput_ratio": 0.5}]})j"), ReplicationCostCharts);
  EXPECT_EQ(ChartData(s, "replication-cost: tarantool throughput against concurrency"), Golden(R"j({
    "x": {"label": "concurrency", "unit": "connections", "log": true},
    "y": {"label": "successful operations per second", "unit": "ops/s", "log": false},
    "series": ["async-write", "sync-write"], "data": [[1, 4], [2000, 5000], [null, 2500]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
  EXPECT_EQ(ChartData(s, "replication-cost: tarantool p99 latency against concurrency")["data"],
            Golden("[[1, 4], [800, 1500], [null, 3000]]"));
  EXPECT_EQ(ChartData(s, "replication-cost: tarantool throughput ratios at equal concurrency")["data"],
            Golden("[[4], [0.5]]"));
  EXPECT_EQ(ChartData(s, "replication-cost: redis throughput against concurrency")["data"], Golden("[[1], [20000]]"));
  EXPECT_EQ(s.charts.size(), 5u);  // no ratio chart for redis: no ratio in the JSON
}

}  // namespace
}  // namespace memstand
