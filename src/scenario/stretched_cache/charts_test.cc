// Golden tests of the data each chart of stretched-cache's report section receives
// (ChartJson, from crafted inputs).
#include <gtest/gtest.h>

#include "report/scenario_sections.h"
#include "report_util.h"
#include "scenario/stretched_cache/stretched_cache.h"

namespace memstand {
namespace {

using nlohmann::json;
using OJson = nlohmann::ordered_json;
using testutil::ChartData;
using testutil::ChartTitled;
using testutil::Golden;
using testutil::ReportInputOf;

TEST(HtmlReportTest, StretchedCacheCostAgainstDistancePerModeWithTheRoundTrip) {
  ReportSection s = ScenarioSection(ReportInputOf(R"j({
    "format": 1, "scenario": "stretched-cache", "platform": "P",
    "cells": [{"run": 1, "relay_mode": "pipelined", "client": "pipelined", "one_way_ns": 5000000, "median_ns": 10400000},
              {"run": 1, "relay_mode": "pipelined", "client": "pipelined", "one_way_ns": 20000000, "median_ns": 40500000},
              {"run": 1, "relay_mode": "serializing", "client": "pipelined", "one_way_ns": 5000000, "median_ns": 15000000},
              {"run": 2, "relay_mode": "serializing", "client": "pipelined", "one_way_ns": 20000000, "median_ns": 1}],
    "calibration": [{"run": 1, "one_way_ns": 5000000, "get_relay_median_ns": 10300000}]})j"), StretchedCacheCharts);
  EXPECT_EQ(ChartData(s, "stretched-cache: write + WAIT 1 against distance"), Golden(R"j({
    "x": {"label": "one-way delay", "unit": "ms", "log": false},
    "y": {"label": "median time per write acknowledged by the replica", "unit": "ms", "log": false},
    "series": ["pipelined relay, pipelined client", "serializing relay, pipelined client", "round trip (2 x one-way)",
               "GET through the relay (calibration)"],
    "data": [[5, 20], [10.4, 40.5], [15, null], [10, 40], [10.3, null]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
}

// A cell that is not valid is not drawn; the calibration GET is a series per relay mode.
TEST(HtmlReportTest, StretchedCacheLeavesOutACellThatIsNotValidAndDrawsGetPerRelayMode) {
  ReportSection s = ScenarioSection(ReportInputOf(R"j({
    "format": 1, "scenario": "stretched-cache", "platform": "P",
    "cells": [{"run": 1, "relay_mode": "pipelined", "client": "sequential", "one_way_ns": 5000000, "median_ns": 10400000, "valid": true},
              {"run": 1, "relay_mode": "serializing", "client": "sequential", "one_way_ns": 5000000, "median_ns": 15400000, "valid": true},
              {"run": 1, "relay_mode": "serializing", "client": "sequential", "one_way_ns": 20000000, "median_ns": 40500000, "valid": false}],
    "calibration": [{"run": 1, "relay_mode": "pipelined", "one_way_ns": 5000000, "get_relay_median_ns": 10300000},
                    {"run": 1, "relay_mode": "serializing", "one_way_ns": 5000000, "get_relay_median_ns": 10200000}]})j"),
                                     StretchedCacheCharts);
  EXPECT_EQ(ChartData(s, "stretched-cache: write + WAIT 1 against distance"), Golden(R"j({
    "x": {"label": "one-way delay", "unit": "ms", "log": false},
    "y": {"label": "median time per write acknowledged by the replica", "unit": "ms", "log": false},
    "series": ["pipelined relay, sequential client", "serializing relay, sequential client", "round trip (2 x one-way)",
               "GET through the pipelined relay (calibration)", "GET through the serializing relay (calibration)"],
    "data": [[5], [10.4], [15.4], [10], [10.3], [10.2]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
}

}  // namespace
}  // namespace memstand
