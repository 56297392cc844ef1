#include "report/repeat.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

RunFigures Ok(double ops, double p99) {
  return {RunOutcome::kOk, "", {{"Total", "ops_per_sec", "ops/s", ops}, {"Total", "p99_us", "p99 µs", p99}}};
}

// The median's interval between runs: exact binomial coverage of [X_(k), X_(n+1-k)].
TEST(RangeOf, MedianIntervalBetweenRuns) {
  Range five = RangeOf({5, 1, 3, 2, 4});
  EXPECT_EQ(five.median_low, 1);  // [min, max]: 1 - 2/32 = 93.75%, below 95%
  EXPECT_EQ(five.median_high, 5);
  EXPECT_NEAR(five.median_coverage, 0.9375, 1e-12);
  Range six = RangeOf({6, 5, 4, 3, 2, 1});
  EXPECT_NEAR(six.median_coverage, 1 - 2.0 / 64, 1e-12);  // the first 95%
  Range nine = RangeOf({9, 8, 7, 6, 5, 4, 3, 2, 1});
  EXPECT_EQ(nine.median_low, 2);  // k = 2: 1 - 2 (1 + 9) / 512 = 96.1%; k = 3: 82%
  EXPECT_EQ(nine.median_high, 8);
  EXPECT_NEAR(nine.median_coverage, 1 - 20.0 / 512, 1e-12);
  Range one = RangeOf({7});
  EXPECT_EQ(one.median_low, 7);
  EXPECT_EQ(one.median_coverage, 0);
}

TEST(RangeOf, OddAndEvenMedians) {
  Range odd = RangeOf({5, 1, 3});
  EXPECT_EQ(odd.n, 3);
  EXPECT_DOUBLE_EQ(odd.min, 1);
  EXPECT_DOUBLE_EQ(odd.median, 3);
  EXPECT_DOUBLE_EQ(odd.max, 5);
  Range even = RangeOf({10, 1, 4, 2});  // sorted 1 2 4 10: middle pair 2, 4
  EXPECT_EQ(even.n, 4);
  EXPECT_DOUBLE_EQ(even.median, 3);
  EXPECT_DOUBLE_EQ(even.min, 1);
  EXPECT_DOUBLE_EQ(even.max, 10);
}

TEST(Summarize, OneRunIsARangeOfOne) {
  RepeatSummary s = Summarize({Ok(1000, 80)}, 1);
  EXPECT_EQ(s.requested, 1);
  EXPECT_EQ(s.runs, 1);
  EXPECT_EQ(s.ok, 1);
  EXPECT_EQ(s.failed, 0);
  ASSERT_EQ(s.ranges.size(), 2u);
  EXPECT_EQ(s.ranges[0].key, "ops_per_sec");
  EXPECT_EQ(s.ranges[0].range.n, 1);
  EXPECT_DOUBLE_EQ(s.ranges[0].range.min, 1000);
  EXPECT_DOUBLE_EQ(s.ranges[0].range.median, 1000);
  EXPECT_DOUBLE_EQ(s.ranges[0].range.max, 1000);
}

TEST(Summarize, EvenNumberOfRunsTakesTheMeanOfTheMiddlePair) {
  RepeatSummary s = Summarize({Ok(100, 9), Ok(400, 1), Ok(200, 3), Ok(300, 5)}, 4);
  ASSERT_EQ(s.ranges.size(), 2u);
  EXPECT_DOUBLE_EQ(s.ranges[0].range.median, 250);
  EXPECT_DOUBLE_EQ(s.ranges[1].range.median, 4);
  EXPECT_EQ(s.ranges[1].range.n, 4);
}

TEST(Summarize, AFailedRunIsCountedAndNamedNotAveraged) {
  RunFigures failed = Ok(5, 100000);  // what it measured before the failure
  failed.outcome = RunOutcome::kFailed;
  failed.reason = "FAILED: connection reset";
  RepeatSummary s = Summarize({Ok(100, 10), failed, Ok(300, 30)}, 3);
  EXPECT_EQ(s.runs, 3);
  EXPECT_EQ(s.ok, 2);
  EXPECT_EQ(s.failed, 1);
  ASSERT_EQ(s.failures.size(), 1u);
  EXPECT_EQ(s.failures[0], "run 2: FAILED: connection reset");
  ASSERT_EQ(s.ranges.size(), 2u);
  EXPECT_EQ(s.ranges[0].range.n, 2);
  EXPECT_DOUBLE_EQ(s.ranges[0].range.min, 100);  // not 5: the failed run is out
  EXPECT_DOUBLE_EQ(s.ranges[0].range.median, 200);
  EXPECT_DOUBLE_EQ(s.ranges[1].range.max, 30);
}

TEST(Summarize, InterruptedSeriesCountsWhatRan) {
  RunFigures cut = Ok(50, 5);
  cut.outcome = RunOutcome::kInterrupted;
  RepeatSummary s = Summarize({Ok(100, 10), cut}, 5);
  EXPECT_EQ(s.requested, 5);
  EXPECT_EQ(s.runs, 2);
  EXPECT_EQ(s.ok, 1);
  EXPECT_EQ(s.interrupted, 1);
  EXPECT_EQ(s.failed, 0);
  EXPECT_EQ(s.ranges[0].range.n, 1);
  EXPECT_DOUBLE_EQ(s.ranges[0].range.max, 100);
}

TEST(Summarize, AFigureMissingFromSomeRunsHasItsOwnN) {
  RunFigures with_server = Ok(100, 10);
  with_server.figures.push_back({"server", "cpu_us_per_request", "CPU µs/request", 7});
  RepeatSummary s = Summarize({Ok(300, 30), with_server, Ok(200, 20)}, 3);
  ASSERT_EQ(s.ranges.size(), 3u);
  EXPECT_EQ(s.ranges[0].range.n, 3);
  EXPECT_EQ(s.ranges[2].row, "server");
  EXPECT_EQ(s.ranges[2].range.n, 1);
}

TEST(Summarize, AllRunsFailedLeavesNoRanges) {
  RunFigures failed{RunOutcome::kFailed, "FAILED: refused", {}};
  RepeatSummary s = Summarize({failed, failed}, 2);
  EXPECT_EQ(s.failed, 2);
  EXPECT_EQ(s.ok, 0);
  EXPECT_TRUE(s.ranges.empty());
}

}  // namespace
}  // namespace memstand
