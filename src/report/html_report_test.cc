// Golden tests of the data each chart of `memstand report` receives (ChartJson, from
// crafted inputs), and of inputs the report must refuse with the file named.
#include "report/html_report.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "report/run_sections.h"
#include "report/scenario_sections.h"
#include "report/web_assets.h"
#include "report_util.h"
#include "test_paths.h"

namespace memstand {
namespace {

using nlohmann::json;
using OJson = nlohmann::ordered_json;

using testutil::ChartData;
using testutil::ChartTitled;
using testutil::Golden;
using testutil::ReportInputOf;

// A scenario made up here: report/ knows none, its charts are given (scenario/registry.h
// gives the real ones, tested in their folders). One chart per item, y against x.
constexpr char kScenario[] = R"j({
  "format": 1, "scenario": "a-scenario", "platform": "P",
  "items": [{"name": "lru", "points": [[10, 1], [20, 2]]}]
})j";

void ItemCharts(const ReportInput& in, ReportSection* s) {
  for (const json& item : in.doc["items"]) {
    Chart c;
    c.title = "a-scenario: " + item["name"].get<std::string>();
    c.x = Axis("x", "");
    c.y = Axis("y", "");
    c.series = {"y"};
    c.data.resize(2);
    for (const json& p : item["points"]) {
      c.data[0].push_back(p[0].get<double>());
      c.data[1].push_back(p[1].get<double>());
    }
    s->charts.push_back(std::move(c));
  }
}

ScenarioChartsFn ChartsByName(std::string_view name) { return name == "a-scenario" ? ItemCharts : nullptr; }

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
  ReportSection s = RunSection(ReportInputOf(kRun, "dir/run.json"));
  EXPECT_EQ(s.platform, "Linux 6.1 x86_64, 2 CPUs (EPYC), virtual machine, 2.0 GiB");
  EXPECT_EQ(ChartData(s, "Throughput per second"), Golden(R"j({
    "x": {"label": "second of the measured phase", "unit": "s", "log": false, "integer": true},
    "y": {"label": "replies in the second", "unit": "ops/s", "log": false},
    "series": ["SET", "GET", "Total"], "data": [[0, 1], [10, 20], [100, 200], [110, 220]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
  // A p99 of 0 cannot be drawn on the log axis: a gap, not a point at the bottom.
  EXPECT_EQ(ChartData(s, "Latency per second: SET"), Golden(R"j({
    "x": {"label": "second of the measured phase", "unit": "s", "log": false, "integer": true},
    "y": {"label": "latency", "unit": "µs", "log": true},
    "series": ["p50", "p99", "max"], "data": [[0, 1], [2, 3], [8, null], [9, 7]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
  EXPECT_NE(ChartTitled(s, "Latency per second: Total"), nullptr);
  OJson j = ChartJson(*ChartTitled(s, "Throughput per second"), s);
  EXPECT_EQ(j["source"], "dir/run.json");
  EXPECT_EQ(j["platform"], s.platform);
  EXPECT_NE(j["caption"].get<std::string>().find("last second may be partial"), std::string::npos);
}

TEST(HtmlReportTest, PercentilePlotIsOnTheInverseTailAxis) {
  ReportSection s = RunSection(ReportInputOf(kRun));
  OJson d = ChartData(s, "Latency percentiles");
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
  ReportSection s = RunSection(ReportInputOf(kRun));
  // redis-server: 0.5 CPU s over its first second, the 0.1 s interval left out, 0.75
  // over the next second; memstand: 1.0 over its first second.
  EXPECT_EQ(ChartData(s, "CPU over time: server and client"), Golden(R"j({
    "x": {"label": "time since the run started", "unit": "s", "log": false},
    "y": {"label": "CPU share of one core", "unit": "cores", "log": false},
    "series": ["redis-server (pid 7)", "memstand (pid 8)"],
    "data": [[1.0, 2.1], [0.5, 0.75], [1.0, null]],
    "bands": [], "x_lines": [], "y_lines": []})j"));
  EXPECT_EQ(ChartData(s, "Resident memory over time")["data"],
            Golden("[[1.0, 1.1, 2.1], [1, 2, 3], [4, null, null]]"));
}

TEST(HtmlReportTest, OpenLoopAddsServiceTimeAndSendLag) {
  json doc = json::parse(kRun);
  doc["latency_from"] = "intended_send";
  doc["totals"]["service_time"] = {{"percentiles_us", {{"50", 1}, {"99", 2}}}};
  doc["totals"]["send_lag"] = {{"percentiles_us", {{"50", 0}, {"99", 0.5}}}};
  ReportSection s = RunSection(ReportInputOf(doc.dump()));
  OJson d = ChartData(s, "Open loop: latency, service time and send lag");
  EXPECT_EQ(d["series"], Golden(R"j(["latency", "service time", "send lag"])j"));
  // x: p50, p90, p99, p99.9 (the union); a lag of 0 is a gap on the log axis.
  EXPECT_EQ(d["data"][2], Golden("[1, null, 2, null]"));
  EXPECT_EQ(d["data"][3], Golden("[null, null, 0.5, null]"));
}

// The run's validity becomes two tables: the checks, and the percentiles' intervals.
TEST(HtmlReportTest, ValidityBecomesTheChecksAndIntervalsTables) {
  json doc = json::parse(kRun);
  EXPECT_EQ(RunSection(ReportInputOf(doc.dump())).tables.size(), 1u);  // none recorded: no table
  doc["validity"] = {
      {"verdict", "suspect"},
      {"confidence", 0.95},
      {"checks", {{{"name", "stationarity"}, {"status", "suspect"}, {"figure", "f"}, {"threshold", "t"},
                   {"reason", "not a steady state"}},
                  {{"name", "rate"}, {"status", "not judged"}, {"figure", "-"}, {"threshold", "t"}, {"reason", nullptr}}}},
      {"intervals", {{{"command", "Total"}, {"samples", 100}, {"effective_samples", 50},
                      {"percentiles", {{{"percentile", 99}, {"value_us", 10}, {"low_us", 9}, {"high_us", 12},
                                        {"clamped", false}}}}}}}};
  ReportSection s = RunSection(ReportInputOf(doc.dump()));
  ASSERT_EQ(s.tables.size(), 3u);
  EXPECT_EQ(s.tables[1].title, "Validity of the statistics: suspect");
  ASSERT_EQ(s.tables[1].rows.size(), 2u);
  EXPECT_EQ(s.tables[1].rows[0], (std::vector<std::string>{"stationarity", "suspect", "f", "t", "not a steady state"}));
  EXPECT_EQ(s.tables[1].rows[1][4], "");
  EXPECT_EQ(s.tables[2].title, "Percentiles with their 95% intervals (µs)");
  EXPECT_EQ(s.tables[2].rows[0], (std::vector<std::string>{"Total", "99", "9", "10", "12", "false", "100", "50"}));
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
  ReportSection s = SweepSection(ReportInputOf(kSweep));
  EXPECT_EQ(ChartData(s, "Throughput against clients"), Golden(R"j({
    "x": {"label": "clients", "unit": "connections per thread", "log": true},
    "y": {"label": "throughput, all commands", "unit": "ops/s", "log": false},
    "series": ["ops/s"], "data": [[1, 4, 64], [100, 350, 360]],
    "bands": [], "x_lines": [{"at": 4, "label": "knee at clients=4"}], "y_lines": []})j"));
  EXPECT_EQ(ChartData(s, "p99 latency against clients")["data"], Golden("[[1, 4, 64], [10, 12, 90]]"));
  ASSERT_EQ(s.tables.size(), 1u);
  EXPECT_EQ(s.tables[0].rows.size(), 4u);  // the failed step is in the table
  EXPECT_EQ(s.tables[0].rows[2][1], "FAILED: lost connection");
  EXPECT_NE(s.platform.find("Linux 6.1 x86_64, 4 CPUs"), std::string::npos) << s.platform;
}

TEST(HtmlReportTest, SweepWithoutAKneeDrawsNoKneeLine) {
  json doc = json::parse(kSweep);
  doc["knee"] = {
      {"found", false}, {"index", nullptr}, {"x", nullptr}, {"text", "no knee within the range"}};
  ReportSection s = SweepSection(ReportInputOf(doc.dump()));
  EXPECT_EQ(ChartData(s, "Throughput against clients")["x_lines"], OJson::array());
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
  ReportSection s = RunsSection(ReportInputOf(kRuns));
  EXPECT_EQ(ChartData(s, "throughput of each run (all commands)"), Golden(R"j({
    "x": {"label": "run", "unit": "", "log": false, "integer": true},
    "y": {"label": "throughput", "unit": "ops/s", "log": false},
    "series": ["run ended OK", "run failed"],
    "data": [[1, 2, 3], [100, null, 120], [null, 10, null]],
    "bands": [], "x_lines": [],
    "y_lines": [{"at": 100, "label": "min 100 (N=2)"}, {"at": 110, "label": "median 110 (N=2)"},
                {"at": 120, "label": "max 120 (N=2)"}]})j"));
  EXPECT_EQ(ChartData(s, "p99 latency of each run (all commands)")["data"],
            Golden("[[1, 2, 3], [5, null, 6], [null, 70, null]]"));
  ASSERT_FALSE(s.blocks.empty());
  EXPECT_EQ(s.blocks[0].lines.back(), "run 2: FAILED: lost connection");
}

TEST(HtmlReportTest, AnUnknownScenarioGetsItsBlocksAndTablesOnly) {
  ReportInput in = ReportInputOf(R"j({"format": 1, "scenario": "a-future-scenario", "platform": "P",
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
  ReportInput in = ReportInputOf(R"j({"schema": "memstand.run", "version": 1, "totals": {"latency": 5},
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
  EXPECT_EQ(*DetectKind(json::parse(kScenario)), ReportInputKind::kScenario);
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
        Bad{R"j({"scenario": "a-scenario", "format": 2})j", "format 2"},
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
  Write("ev/scenario.json", kScenario);
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
  json doc = json::parse(kScenario);
  doc["items"][0]["name"] = "</script><script>alert(1)</script>";
  ReportSection s = SectionOf(ReportInputOf(doc.dump()), ChartsByName);
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
