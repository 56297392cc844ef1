#include "report/repeat_report.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

// A run of 1000 GETs in 2 s, all at 100 µs but one at 1 ms.
struct Fixture {
  LoadOptions options;
  RunResult result;
  RunReport report;
  Fixture() {
    CommandSpec get;
    get.label = "GET";
    options.commands = {get};
    options.percentiles = {50, 99.9};
    result.totals = ThreadStats(1);
    CommandStats& s = result.totals.commands[0];
    s.ops = 1000;
    s.latency_ns.RecordN(100'000, 999);
    s.latency_ns.Record(1'000'000);
    result.measured_s = 2;
    result.totals.cpu_user_s = 0.01;  // 10 ms over 1000 requests: 10 µs each
    report.options = &options;
    report.result = &result;
    report.verdict = "OK";
  }
};

double Value(const RunFigures& f, const std::string& row, const std::string& key) {
  for (const Figure& x : f.figures) {
    if (x.row == row && x.key == key) return x.value;
  }
  ADD_FAILURE() << row << " " << key << " missing";
  return -1;
}

TEST(FiguresOf, TakesEveryFigureOfTheSummary) {
  Fixture fx;
  RunFigures f = FiguresOf(fx.report);
  EXPECT_EQ(f.outcome, RunOutcome::kOk);
  EXPECT_DOUBLE_EQ(Value(f, "GET", "ops_per_sec"), 500);
  EXPECT_DOUBLE_EQ(Value(f, "Total", "ops_per_sec"), 500);
  EXPECT_NEAR(Value(f, "GET", "p50_us"), 100, 0.1);
  EXPECT_NEAR(Value(f, "Total", "p99.9_us"), 100, 0.1);
  EXPECT_NEAR(Value(f, "Total", "max_us"), 1000, 1);
  EXPECT_NEAR(Value(f, "client", "cpu_us_per_request"), 10, 1e-9);
  for (const Figure& x : f.figures) EXPECT_NE(x.row, "server") << "server CPU unknown";
  fx.result.server_cpu_known = true;
  fx.result.server_cpu_user_s = 0.02;
  EXPECT_NEAR(Value(FiguresOf(fx.report), "server", "cpu_us_per_request"), 20, 1e-9);
}

TEST(FiguresOf, OutcomeFollowsTheExitCode) {
  Fixture fx;
  fx.report.exit_code = 1;
  fx.report.verdict = "FAILED: connection reset by peer";
  RunFigures failed = FiguresOf(fx.report);
  EXPECT_EQ(failed.outcome, RunOutcome::kFailed);
  EXPECT_EQ(failed.reason, "FAILED: connection reset by peer");
  EXPECT_FALSE(failed.figures.empty()) << "kept, though left out of the ranges";
  fx.report.exit_code = 130;
  EXPECT_EQ(FiguresOf(fx.report).outcome, RunOutcome::kInterrupted);
}

TEST(RepeatSummaryJson, RangesCarryTheirN) {
  Fixture fx;
  RunFigures ok = FiguresOf(fx.report);
  RepeatSummary s = Summarize({ok, FailedRunFigures("cannot use redis://x: refused"), ok}, 3);
  auto j = RepeatSummaryJson(s);
  EXPECT_EQ(j["n"], 2);
  EXPECT_EQ(j["failed"], 1);
  EXPECT_EQ(j["failures"][0], "run 2: FAILED: cannot use redis://x: refused");
  EXPECT_EQ(j["figures"]["Total"]["ops_per_sec"]["n"], 2);
  EXPECT_DOUBLE_EQ(j["figures"]["Total"]["ops_per_sec"]["median"].get<double>(), 500);
}

}  // namespace
}  // namespace memstand
