// Golden tests of the data each chart of `memstand report` receives (ChartJson, from
// crafted inputs), and of inputs the report must refuse with the file named.
#include "report/html_report.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "report/run_sections.h"
#include "report/scenario_charts.h"
#include "report/scenario_sections.h"
#include "report/web_assets.h"
#include "test_paths.h"

namespace memstand {
namespace {

using nlohmann::json;
using OJson = nlohmann::ordered_json;

ReportInput Input(const std::string& text, const std::string& path = "in.json") {
  ReportInput in;
  in.path = in.json_path = path;
  in.doc = json::parse(text);
  auto kind = DetectKind(in.doc);
  EXPECT_TRUE(kind.ok()) << kind.status().message();
  if (kind.ok()) in.kind = *kind;
  return in;
}

const Chart* Find(const ReportSection& s, const std::string& title) {
  for (const Chart& c : s.charts) {
    if (c.title == title) return &c;
  }
  ADD_FAILURE() << "no chart titled " << title;
  return nullptr;
}

// The chart's data, bands and lines, as its page script receives them.
OJson Data(const ReportSection& s, const std::string& title) {
  const Chart* c = Find(s, title);
  if (c == nullptr) return nullptr;
  OJson j = ChartJson(*c, s);
  return {{"x", j["x"]},
          {"y", j["y"]},
          {"series", j["series"]},
          {"data", j["data"]},
          {"bands", j["bands"]},
          {"x_lines", j["x_lines"]},
          {"y_lines", j["y_lines"]}};
}

OJson Golden(const char* text) { return OJson::parse(text); }

ScenarioChartsFn ChartsByName(std::string_view name) {
  if (name == "working-set") return WorkingSetCharts;
  if (name == "mvcc-quota") return MvccQuotaCharts;
  if (name == "compute-locality") return ComputeLocalityCharts;
  if (name == "stretched-cache") return StretchedCacheCharts;
  if (name == "durability-overload") return DurabilityOverloadCharts;
  if (name == "replication-cost") return ReplicationCostCharts;
  return nullptr;
}

ReportSection SectionWithCharts(const ReportInput& in) {
  return ScenarioSection(in, ChartsByName(in.doc.value("scenario", "")));
}

constexpr char kRun[] = R"j({
  "schema": "memstand.run", "version": 1, "verdict": "OK", "exit_code": 0, "latency_from": "actual_send",
  "platform": {"kernel": "Linux 6.1", "arch": "x86_64", "cpus": 2, "cpu_model": "EPYC", "hypervisor": true,
               "memory_bytes": 2147483648},
  "commands": [
    {"command": "SET", "ops": 30, "latency": {"min_us": 1, "max_us": 9,
      "percentiles_us": {"50": 2.5, "90": 4, "99": 8, "99.9": 9}}},
    {"command": "GET", "ops": 300, "latency": {"min_us": 1, "max_us": 5,
      "percentiles_us": {"50": 1.5, "90": 3, "99": 4, "99.9": 5}}}],
  "totals": {"command": "Total", "ops": 330, "latency": {"min_us": 1, "max_us": 9,
      "percentiles_us": {"50": 1.5, "90": 3, "99": 5, "99.9": 9}}},
  "series": {
    "SET": [{"second": 0, "ops": 10, "p50_us": 2, "p99_us": 8, "max_us": 9},
            {"second": 1, "ops": 20, "p50_us": 3, "p99_us": 0, "max_us": 7}],
    "GET": [{"second": 0, "ops": 100, "p50_us": 1, "p99_us": 4, "max_us": 5},
            {"second": 1, "ops": 200, "p50_us": 2, "p99_us": 3, "max_us": 4}],
    "Total": [{"second": 0, "ops": 110, "p50_us": 1, "p99_us": 8, "max_us": 9},
              {"second": 1, "ops": 220, "p50_us": 2, "p99_us": 3, "max_us": 7}]},
  "resources": [
    {"label": "redis-server", "pid": 7, "points": [
      {"t_s": 1.0, "cpu_user_s": 0.25, "cpu_sys_s": 0.25, "rss_bytes": 1048576},
      {"t_s": 1.1, "cpu_user_s": 0.01, "cpu_sys_s": 0.0, "rss_bytes": 2097152},
      {"t_s": 2.1, "cpu_user_s": 0.5, "cpu_sys_s": 0.25, "rss_bytes": 3145728}]},
    {"label": "memstand", "pid": 8, "points": [
      {"t_s": 1.0, "cpu_user_s": 0.5, "cpu_sys_s": 0.5, "rss_bytes": 4194304}]}]
})j";

TEST(HtmlReportTest, RunPerSecondChartsGetTheSeriesPerCommand) {
  ReportSection s = RunSection(Input(kRun, "dir/run.json"));
  EXPECT_EQ(s.platform, "Linux 6.1 x86_64, 2 CPUs (EPYC), virtual machine, 2.0 GiB");
  EXPECT_EQ(Data(s, "Throughput per second"), Golden(R"j({
    "x": {"label": "second of the measured phase", "unit": "s", "log": false, "integer": true},
    "y": {"label": "replies in the second", "unit": "ops/s", "log": false},
    "series": ["SET", "GET", "Total"], "data": [[0, 1], [10, 20], [100, 200], [110, 220]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
  // A p99 of 0 cannot be drawn on the log axis: a gap, not a point at the bottom.
  EXPECT_EQ(Data(s, "Latency per second: SET"), Golden(R"j({
    "x": {"label": "second of the measured phase", "unit": "s", "log": false, "integer": true},
    "y": {"label": "latency", "unit": "µs", "log": true},
    "series": ["p50", "p99", "max"], "data": [[0, 1], [2, 3], [8, null], [9, 7]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
  EXPECT_NE(Find(s, "Latency per second: Total"), nullptr);
  OJson j = ChartJson(*Find(s, "Throughput per second"), s);
  EXPECT_EQ(j["source"], "dir/run.json");
  EXPECT_EQ(j["platform"], s.platform);
  EXPECT_NE(j["caption"].get<std::string>().find("last second may be partial"), std::string::npos);
}

TEST(HtmlReportTest, PercentilePlotIsOnTheInverseTailAxis) {
  ReportSection s = RunSection(Input(kRun));
  OJson d = Data(s, "Latency percentiles");
  EXPECT_EQ(d["x"], Golden(R"j({"label": "1/(1-q), percentile q", "unit": "", "log": true})j"));
  EXPECT_EQ(d["series"], Golden(R"j(["SET", "GET", "Total"])j"));
  ASSERT_EQ(d["data"].size(), 4u);
  const std::vector<double> x = d["data"][0].get<std::vector<double>>();
  ASSERT_EQ(x.size(), 4u);  // p50, p90, p99, p99.9
  EXPECT_DOUBLE_EQ(x[0], 2);
  EXPECT_NEAR(x[1], 10, 1e-9);
  EXPECT_NEAR(x[2], 100, 1e-9);
  EXPECT_NEAR(x[3], 1000, 1e-6);
  EXPECT_EQ(d["data"][1], Golden("[2.5, 4, 8, 9]"));
  EXPECT_EQ(d["data"][3], Golden("[1.5, 3, 5, 9]"));
  // Closed loop: no send-lag chart.
  for (const Chart& c : s.charts) EXPECT_EQ(c.title.find("Open loop"), std::string::npos);
}

TEST(HtmlReportTest, ResourcesGiveCpuShareAndRssPerProcess) {
  ReportSection s = RunSection(Input(kRun));
  // redis-server: 0.5 CPU s over its first second, the 0.1 s interval left out, 0.75
  // over the next second; memstand: 1.0 over its first second.
  EXPECT_EQ(Data(s, "CPU over time: server and client"), Golden(R"j({
    "x": {"label": "time since the run started", "unit": "s", "log": false},
    "y": {"label": "CPU share of one core", "unit": "cores", "log": false},
    "series": ["redis-server (pid 7)", "memstand (pid 8)"],
    "data": [[1.0, 2.1], [0.5, 0.75], [1.0, null]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
  EXPECT_EQ(Data(s, "Resident memory over time")["data"],
            Golden("[[1.0, 1.1, 2.1], [1, 2, 3], [4, null, null]]"));
}

TEST(HtmlReportTest, OpenLoopAddsServiceTimeAndSendLag) {
  json doc = json::parse(kRun);
  doc["latency_from"] = "intended_send";
  doc["totals"]["service_time"] = {{"percentiles_us", {{"50", 1}, {"99", 2}}}};
  doc["totals"]["send_lag"] = {{"percentiles_us", {{"50", 0}, {"99", 0.5}}}};
  ReportSection s = RunSection(Input(doc.dump()));
  OJson d = Data(s, "Open loop: latency, service time and send lag");
  EXPECT_EQ(d["series"], Golden(R"j(["latency", "service time", "send lag"])j"));
  // x: p50, p90, p99, p99.9 (the union); a lag of 0 is a gap on the log axis.
  EXPECT_EQ(d["data"][2], Golden("[1, null, 2, null]"));
  EXPECT_EQ(d["data"][3], Golden("[null, null, 0.5, null]"));
}

constexpr char kSweep[] = R"j({
  "schema": "memstand.sweep", "version": 1, "knob": "clients", "values": [1, 4, 16, 64],
  "verdict": "FAILED: 1 of 4 steps failed", "exit_code": 1,
  "steps": [
    {"x": 1, "verdict": "OK", "exit_code": 0, "ops_per_sec": 100, "p50_us": 1, "p99_us": 10,
     "run": {"platform": {"kernel": "Linux 6.1", "arch": "x86_64", "cpus": 4}}},
    {"x": 4, "verdict": "OK", "exit_code": 0, "ops_per_sec": 350, "p50_us": 2, "p99_us": 12, "run": null},
    {"x": 16, "verdict": "FAILED: lost connection", "exit_code": 1, "ops_per_sec": 5, "p99_us": 99, "run": null},
    {"x": 64, "verdict": "OK", "exit_code": 0, "ops_per_sec": 360, "p50_us": 9, "p99_us": 90, "run": null}],
  "knee": {"found": true, "index": 1, "x": 4, "min_gain": 0.05, "text": "knee at clients=4"}
})j";

TEST(HtmlReportTest, SweepChartsMarkTheKneeAndLeaveFailedStepsOut) {
  ReportSection s = SweepSection(Input(kSweep));
  EXPECT_EQ(Data(s, "Throughput against clients"), Golden(R"j({
    "x": {"label": "clients", "unit": "connections per thread", "log": true},
    "y": {"label": "throughput, all commands", "unit": "ops/s", "log": false},
    "series": ["ops/s"], "data": [[1, 4, 64], [100, 350, 360]],
    "bands": [], "x_lines": [{"at": 4, "label": "knee at clients=4"}], "y_lines": []})j"));
  EXPECT_EQ(Data(s, "p99 latency against clients")["data"], Golden("[[1, 4, 64], [10, 12, 90]]"));
  ASSERT_EQ(s.tables.size(), 1u);
  EXPECT_EQ(s.tables[0].rows.size(), 4u);  // the failed step is in the table
  EXPECT_EQ(s.tables[0].rows[2][1], "FAILED: lost connection");
  EXPECT_NE(s.platform.find("Linux 6.1 x86_64, 4 CPUs"), std::string::npos) << s.platform;
}

TEST(HtmlReportTest, SweepWithoutAKneeDrawsNoKneeLine) {
  json doc = json::parse(kSweep);
  doc["knee"] = {
      {"found", false}, {"index", nullptr}, {"x", nullptr}, {"text", "no knee within the range"}};
  ReportSection s = SweepSection(Input(doc.dump()));
  EXPECT_EQ(Data(s, "Throughput against clients")["x_lines"], OJson::array());
}

constexpr char kRuns[] = R"j({
  "schema": "memstand.run", "version": 1, "verdict": "FAILED: 1 of 3 runs failed", "exit_code": 1,
  "runs": [
    {"run": 1, "exit_code": 0, "platform": {"kernel": "K", "arch": "A", "cpus": 1},
     "totals": {"ops_per_sec": 100, "latency": {"max_us": 9, "percentiles_us": {"50": 1, "99": 5}}}},
    {"run": 2, "exit_code": 1, "totals": {"ops_per_sec": 10, "latency": {"percentiles_us": {"50": 7, "99": 70}}}},
    {"run": 3, "exit_code": 0, "totals": {"ops_per_sec": 120, "latency": {"percentiles_us": {"50": 2, "99": 6}}}}],
  "summary": {"requested": 3, "runs": 3, "n": 2, "failed": 1, "interrupted": 0,
    "failures": ["run 2: FAILED: lost connection"],
    "figures": {"Total": {"ops_per_sec": {"min": 100, "median": 110, "max": 120, "n": 2},
                          "p99_us": {"min": 5, "median": 5.5, "max": 6, "n": 2}}}}
})j";

TEST(HtmlReportTest, RunsChartsShowEveryRunBesideTheRangeWithItsN) {
  ReportSection s = RunsSection(Input(kRuns));
  EXPECT_EQ(Data(s, "throughput of each run (all commands)"), Golden(R"j({
    "x": {"label": "run", "unit": "", "log": false, "integer": true},
    "y": {"label": "throughput", "unit": "ops/s", "log": false},
    "series": ["run ended OK", "run failed"],
    "data": [[1, 2, 3], [100, null, 120], [null, 10, null]],
    "bands": [], "x_lines": [],
    "y_lines": [{"at": 100, "label": "min 100 (N=2)"}, {"at": 110, "label": "median 110 (N=2)"},
                {"at": 120, "label": "max 120 (N=2)"}]})j"));
  EXPECT_EQ(Data(s, "p99 latency of each run (all commands)")["data"],
            Golden("[[1, 2, 3], [5, null, 6], [null, 70, null]]"));
  ASSERT_FALSE(s.blocks.empty());
  EXPECT_EQ(s.blocks[0].lines.back(), "run 2: FAILED: lost connection");
}

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
  ReportSection s = SectionWithCharts(Input(kWorkingSet));
  EXPECT_EQ(s.platform, "P");
  ASSERT_EQ(s.charts.size(), 1u);  // the configuration that did not run has no chart
  EXPECT_EQ(Data(s, "working-set: lru"), Golden(R"j({
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

TEST(HtmlReportTest, MvccQuotaDrawsSizePerWriteWithFailureAndRecovery) {
  ReportSection s = SectionWithCharts(Input(R"j({
    "format": 1, "scenario": "mvcc-quota", "platform": "P",
    "profile": {"quota_bytes": 4194304, "portion": 500, "keys": 10, "value_size": 1024},
    "etcd": {"first_failed_write": 1200, "detected_in": [1000, 1500], "db_size_after_recovery": 1048576,
             "error": "database space exceeded", "canary_ok": true,
             "db_size_by_write": [[500, 1048576], [1000, 3145728], [1500, 4194304]]}})j"));
  EXPECT_EQ(Data(s, "mvcc-quota: etcd backend size per write"), Golden(R"j({
    "x": {"label": "writes", "unit": "writes", "log": false},
    "y": {"label": "etcd backend size (dbSize)", "unit": "MiB", "log": false},
    "series": ["db size"], "data": [[500, 1000, 1500], [1, 3, 4]],
    "bands": [{"from": 1000, "to": 1500, "label": "portion of the first failure"}],
    "x_lines": [{"at": 1200, "label": "first failed write 1200"}],
    "y_lines": [{"at": 4, "label": "quota 4 MiB"}, {"at": 1, "label": "after the recovery, at the end: 1 MiB"}]})j"));
}

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
  ReportSection s = SectionWithCharts(Input(kLocality));
  EXPECT_EQ(Data(s, "compute-locality: redis, ratios a / b"), Golden(R"j({
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
  ReportInput in = Input(kLocality);
  in.csv["samples"] =
      "run,system,path,pass,rep,position,ns,objects\n"
      "1,redis,naive,1,1,1,5000000,33276\n1,redis,local,1,1,2,150000,10\n"
      "1,redis,naive,2,1,2,7000000,33276\n1,redis,local,2,1,1,0,10\n"
      "1,tarantool,naive,1,1,1,9,33276\n2,redis,naive,1,1,1,8,33276\n";
  ReportSection s = SectionWithCharts(in);
  EXPECT_EQ(Data(s, "compute-locality: redis, every timed call"), Golden(R"j({
    "x": {"label": "call of the path (pass 1, then pass 2)", "unit": "call", "log": false, "integer": true},
    "y": {"label": "time of the call", "unit": "µs", "log": true},
    "series": ["naive", "local"], "data": [[1, 2], [5000, 7000], [150, null]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
  // The evidence CSVs are the tables.
  ASSERT_EQ(s.tables.size(), 1u);
  EXPECT_EQ(s.tables[0].csv_name, "samples");
  EXPECT_EQ(s.tables[0].rows.size(), 6u);
}

TEST(HtmlReportTest, StretchedCacheCostAgainstDistancePerModeWithTheRoundTrip) {
  ReportSection s = SectionWithCharts(Input(R"j({
    "format": 1, "scenario": "stretched-cache", "platform": "P",
    "cells": [{"run": 1, "relay_mode": "pipelined", "client": "pipelined", "one_way_ns": 5000000, "median_ns": 10400000},
              {"run": 1, "relay_mode": "pipelined", "client": "pipelined", "one_way_ns": 20000000, "median_ns": 40500000},
              {"run": 1, "relay_mode": "serializing", "client": "pipelined", "one_way_ns": 5000000, "median_ns": 15000000},
              {"run": 2, "relay_mode": "serializing", "client": "pipelined", "one_way_ns": 20000000, "median_ns": 1}],
    "calibration": [{"run": 1, "one_way_ns": 5000000, "get_relay_median_ns": 10300000}]})j"));
  EXPECT_EQ(Data(s, "stretched-cache: write + WAIT 1 against distance"), Golden(R"j({
    "x": {"label": "one-way delay", "unit": "ms", "log": false},
    "y": {"label": "median time per write acknowledged by the replica", "unit": "ms", "log": false},
    "series": ["pipelined relay, pipelined client", "serializing relay, pipelined client", "round trip (2 x one-way)",
               "GET through the relay (calibration)"],
    "data": [[5, 20], [10.4, 40.5], [15, null], [10, 40], [10.3, null]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
}

TEST(HtmlReportTest, DurabilityOverloadThroughputAndErrorsPerCellAndMode) {
  ReportSection s = SectionWithCharts(Input(R"j({
    "format": 1, "scenario": "durability-overload", "platform": "P",
    "matrix": [{"mode": "none", "op": "SET", "size": 100, "payload": "random", "ops_per_sec": {"median": 50000},
                "runs": 3, "runs_with_errors": 0},
               {"mode": "aof-everysec", "op": "SET", "size": 100, "payload": "random",
                "ops_per_sec": {"median": 30000}, "runs": 3, "runs_with_errors": 2},
               {"mode": "none", "op": "GET", "size": 100, "payload": "random", "ops_per_sec": {"median": 70000},
                "runs": 3, "runs_with_errors": 0}]})j"));
  EXPECT_EQ(Data(s, "durability-overload: throughput per cell and durability mode"), Golden(R"j({
    "x": {"label": "cell", "unit": "", "log": false, "ticks": ["SET 100 B random", "GET 100 B random"]},
    "y": {"label": "median throughput over the runs", "unit": "ops/s", "log": false},
    "series": ["none", "aof-everysec"], "data": [[0, 1], [50000, 70000], [30000, null]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
  EXPECT_EQ(Data(s, "durability-overload: runs with errors per cell")["data"], Golden("[[0, 1], [0, 0], [2, null]]"));
}

// The cluster's state over time: the cells end to end (1 s apart), one row per kind of
// interval, a gap (null) between two intervals of a row, a dashed line where a cell starts.
TEST(HtmlReportTest, DurabilityOverloadClusterStateTimeline) {
  ReportSection s = SectionWithCharts(Input(R"j({
    "format": 1, "scenario": "durability-overload", "platform": "P", "matrix": [],
    "cells": [{"run": 1, "mode": "none", "op": "SET", "size": 100, "seconds": 4, "cluster_samples": 12,
               "cluster_intervals": [{"what": "node-2 pfail", "from_s": 1, "to_s": 3, "open": false},
                                     {"what": "cluster_state:fail", "from_s": 2, "to_s": 4, "open": true}]},
              {"run": 1, "mode": "none", "op": "GET", "size": 100, "seconds": 2, "cluster_samples": 6,
               "cluster_intervals": []},
              {"run": 1, "mode": "aof-everysec", "op": "SET", "size": 100, "seconds": 3, "cluster_samples": 9,
               "cluster_intervals": [{"what": "node-2 pfail", "from_s": 0, "to_s": 1, "open": false}]}]})j"));
  const OJson t = Data(s, "durability-overload: the cluster's state over time");
  ASSERT_FALSE(t.is_null());
  EXPECT_EQ(t["y"], Golden(R"j({"label": "", "unit": "", "log": false,
                                 "ticks": ["node-2 pfail", "cluster_state:fail"]})j"));
  EXPECT_EQ(t["data"], Golden(R"j([[0, 1, 2, 3, 4, 4.5, 5, 7.5, 8, 9, 11.5],
    [null, 0, 0, 0, null, null, null, null, 0, 0, null],
    [null, null, 1, 1, 1, null, null, null, null, null, null]])j"));
  EXPECT_EQ(t["x_lines"], Golden(R"j([{"at": 0, "label": "run 1 none SET 100 B"},
    {"at": 5, "label": "run 1 none GET 100 B"}, {"at": 8, "label": "run 1 aof-everysec SET 100 B"}])j"));
  const Chart* c = Find(s, "durability-overload: the cluster's state over time");
  EXPECT_EQ(c->style, "segments");

  // No interval: no chart, a line that counts the samples that saw none.
  ReportSection quiet = SectionWithCharts(Input(R"j({
    "format": 1, "scenario": "durability-overload", "platform": "P", "matrix": [],
    "cells": [{"seconds": 4, "cluster_samples": 12, "cluster_intervals": []}]})j"));
  for (const Chart& q : quiet.charts) EXPECT_EQ(q.title.find("state over time"), std::string::npos) << q.title;
  bool said = false;
  for (const TextBlock& b : quiet.blocks) {
    for (const std::string& l : b.lines) said |= l.find("in all 12 CLUSTER INFO samples") != std::string::npos;
  }
  EXPECT_TRUE(said);
}

// replication-cost: per system, throughput and p99 against concurrency per path (the
// median over runs, a cell that stalled or failed a gap) and the ratios at equal
// concurrency.
TEST(HtmlReportTest, ReplicationCostPathsAgainstConcurrencyAndRatios) {
  ReportSection s = SectionWithCharts(Input(R"j({
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
                "throughput_ratio": 0.5}]})j"));
  EXPECT_EQ(Data(s, "replication-cost: tarantool throughput against concurrency"), Golden(R"j({
    "x": {"label": "concurrency", "unit": "connections", "log": true},
    "y": {"label": "successful operations per second", "unit": "ops/s", "log": false},
    "series": ["async-write", "sync-write"], "data": [[1, 4], [2000, 5000], [null, 2500]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
  EXPECT_EQ(Data(s, "replication-cost: tarantool p99 latency against concurrency")["data"],
            Golden("[[1, 4], [800, 1500], [null, 3000]]"));
  EXPECT_EQ(Data(s, "replication-cost: tarantool throughput ratios at equal concurrency")["data"],
            Golden("[[4], [0.5]]"));
  EXPECT_EQ(Data(s, "replication-cost: redis throughput against concurrency")["data"], Golden("[[1], [20000]]"));
  EXPECT_EQ(s.charts.size(), 5u);  // no ratio chart for redis: no ratio in the JSON
}

TEST(HtmlReportTest, AnUnknownScenarioGetsItsBlocksAndTablesOnly) {
  ReportInput in = Input(R"j({"format": 1, "scenario": "a-future-scenario", "platform": "P",
    "question": "Q?", "procedure": ["step one"], "limits": ["limit one"], "verdict": "ok",
    "verdict_reasons": []})j");
  in.csv["cells"] = "a,b\n1,2\n";
  ReportSection s = SectionOf(in, ChartsByName);
  EXPECT_TRUE(s.charts.empty());
  ASSERT_EQ(s.tables.size(), 1u);
  EXPECT_EQ(s.tables[0].columns, (std::vector<std::string>{"a", "b"}));
  std::string text;
  for (const TextBlock& b : s.blocks) {
    text += b.title + ":";
    for (const std::string& l : b.lines) text += " " + l;
    text += "\n";
  }
  EXPECT_NE(text.find("question: Q?"), std::string::npos) << text;
  EXPECT_NE(text.find("Procedure: step one"), std::string::npos) << text;
  EXPECT_NE(text.find("What this result does not show: limit one"), std::string::npos) << text;
  EXPECT_NE(text.find("no charts for scenario 'a-future-scenario'"), std::string::npos) << text;
}

TEST(HtmlReportTest, FieldsOfTheWrongTypeReadAsAbsent) {
  ReportInput in = Input(R"j({"schema": "memstand.run", "version": 1, "totals": {"latency": 5},
    "commands": "SET", "series": {"Total": [{"second": "x"}, 7]}, "resources": {"a": 1}, "platform": 3})j");
  ReportSection s = SectionOf(in, ChartsByName);
  EXPECT_TRUE(s.charts.empty());  // nothing to draw: each empty chart named in a block
  EXPECT_EQ(s.blocks.back().title, "Charts without data");
  EXPECT_NE(s.platform.find("unknown platform"), std::string::npos);
}

TEST(HtmlReportTest, KindsAreToldByTheFilesOwnFields) {
  EXPECT_EQ(*DetectKind(json::parse(kRun)), ReportInputKind::kRun);
  EXPECT_EQ(*DetectKind(json::parse(kRuns)), ReportInputKind::kRuns);
  EXPECT_EQ(*DetectKind(json::parse(kSweep)), ReportInputKind::kSweep);
  EXPECT_EQ(*DetectKind(json::parse(kWorkingSet)), ReportInputKind::kScenario);
  struct Bad {
    const char* text;
    const char* says;
  };
  for (const Bad& b :
       {Bad{"[1, 2]", "not a JSON object"}, Bad{R"j({"a": 1})j", "no \"schema\""},
        Bad{R"j({"schema": "memtier", "version": 1})j", "unknown schema"},
        Bad{R"j({"schema": "memstand.run", "version": 2, "totals": {}})j", "version 2"},
        Bad{R"j({"schema": "memstand.run", "version": 1})j", "without a \"totals\""},
        Bad{R"j({"schema": "memstand.sweep", "version": 1})j", "without a \"steps\""},
        Bad{R"j({"schema": "memstand.run", "version": 1, "runs": 3})j", "no runs array"},
        Bad{R"j({"scenario": "working-set", "format": 2})j", "format 2"},
        Bad{R"j({"scenario": 5, "format": 1})j", "not a string"}}) {
    auto k = DetectKind(json::parse(b.text));
    ASSERT_FALSE(k.ok()) << b.text;
    EXPECT_EQ(k.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(k.status().message().find(b.says), std::string::npos) << k.status().message();
  }
}

class HtmlReportFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/html-report-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(dir_ + "/" + name).parent_path());
    std::ofstream(dir_ + "/" + name) << text;
    return dir_ + "/" + name;
  }
  std::string dir_;
};

TEST_F(HtmlReportFilesTest, BadInputsAreRefusedWithTheFileNamed) {
  struct Case {
    std::string path;
    const char* says;
  };
  const std::string truncated = Write("truncated.json", std::string(kRun).substr(0, 200));
  const std::string other = Write("other.json", R"j({"Format version": 2})j");
  const std::string empty = Write("empty.json", "");
  std::filesystem::create_directories(dir_ + "/nofolder");
  const std::string run_in_folder = Write("runfolder/scenario.json", kRun);
  for (const Case& c :
       {Case{truncated, "not valid JSON"}, Case{other, "not a document memstand wrote"},
        Case{empty, "not valid JSON"}, Case{dir_ + "/absent.json", "no such file"},
        Case{dir_ + "/nofolder", "a folder without scenario.json"},
        Case{dir_ + "/runfolder", "is a run document"}}) {
    auto in = LoadReportInput(c.path);
    ASSERT_FALSE(in.ok()) << c.path;
    EXPECT_EQ(in.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(in.status().message().find(c.says), std::string::npos) << in.status().message();
    EXPECT_NE(in.status().message().find(std::filesystem::path(c.path).filename().string()),
              std::string::npos)
        << in.status().message();
  }
}

TEST_F(HtmlReportFilesTest, AnEvidenceFolderBringsItsCsvFiles) {
  Write("ev/scenario.json", kWorkingSet);
  Write("ev/portions.csv", "configuration,written\nlru,10\n");
  Write("ev/README.txt", "not a table");
  auto in = LoadReportInput(dir_ + "/ev");
  ASSERT_TRUE(in.ok()) << in.status().message();
  EXPECT_EQ(in->json_path, dir_ + "/ev/scenario.json");
  ASSERT_EQ(in->csv.size(), 1u);
  EXPECT_EQ(in->csv.begin()->first, "portions");
}

TEST_F(HtmlReportFilesTest, ABadInputLeavesTheOutputAsItWas) {
  const std::string out = Write("report.html", "old");
  const std::string good = Write("run.json", kRun);
  Status s = WriteHtmlReport({good, dir_ + "/absent.json"}, out, "memstand report", ChartsByName);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  std::ifstream f(out);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "old");
}

TEST(HtmlReportTest, ThePageInlinesEverythingAndNoTextEndsAScript) {
  json doc = json::parse(kWorkingSet);
  doc["configurations"][0]["name"] = "</script><script>alert(1)</script>";
  ReportSection s = SectionOf(Input(doc.dump()), ChartsByName);
  const std::string page = RenderHtmlReport({s}, "memstand report x");
  EXPECT_NE(page.find("uPlot"), std::string::npos);
  EXPECT_EQ(page.find("<script src"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("alert(1)</script>"), std::string::npos);  // escaped in HTML and in JSON
  EXPECT_NE(page.find("\\u003c/script>\\u003cscript>alert(1)"), std::string::npos);
  EXPECT_NE(page.find("data-charts=\"1\""), std::string::npos);
  EXPECT_NE(page.find("download=\"in-chart-0.csv\" href=\"data:text/csv;charset=utf-8,"),
            std::string::npos);
}

TEST(HtmlReportTest, ChartCsvHasUnitsInTheHeaderAndTickNames) {
  ReportSection s = SectionWithCharts(Input(kLocality));
  EXPECT_EQ(ChartCsv(s.charts.at(0)),
            "comparison,objects (x),bytes in (x),time (x)\n"
            "as published: naive / local,3327.6,3020.7,80.5\n"
            "control 1: naive-short / local-short,3327.6,2800,70\n");
}

// The binary carries the very files npm installed (web/package.json pins the version).
TEST(HtmlReportTest, TheEmbeddedUplotIsTheNpmPackage) {
  auto read = [](const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  };
  const std::string dist = testutil::SourceDir() + "/web/node_modules/uplot/dist/";
  EXPECT_EQ(assets::UplotVersion(), "1.6.32");
  EXPECT_EQ(assets::UplotJs(), read(dist + "uPlot.iife.min.js"));
  EXPECT_EQ(assets::UplotCss(), read(dist + "uPlot.min.css"));
  EXPECT_EQ(assets::PageJs(), read(testutil::SourceDir() + "/src/report/page/report.js"));
  EXPECT_GT(assets::UplotJs().size(), 10000u);
}

}  // namespace
}  // namespace memstand
