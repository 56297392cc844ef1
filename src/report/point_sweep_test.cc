#include "report/point_sweep.h"

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

namespace memstand {
namespace point_sweep_test {  // its own: a unity build puts the sweep report's test beside it
namespace {

SweepStep Step(uint64_t x, double ops, double p99, int exit_code = 0) {
  SweepStep s;
  s.x = x;
  s.measured = true;
  s.exit_code = exit_code;
  s.verdict = exit_code == 0 ? "OK" : "FAILED: lost connection";
  s.ops_per_sec = ops;
  s.p99_us = p99;
  return s;
}

// A run whose inner sweep over clients 1,4,16 has its knee at 4 with `ops` there (the
// next step adds 1%, p99 rises).
PointRun KneeAt4(double ops, double p99 = 60) {
  PointRun run;
  run.servers = "redis 1 node(s)";
  run.sweep.knob = "clients";
  run.sweep.values = {1, 4, 16};
  run.sweep.steps = {Step(1, ops / 3, 50), Step(4, ops, p99), Step(16, ops * 1.01, p99 * 4)};
  Conclude(&run.sweep);
  return run;
}

PointRun RisingNoKnee() {
  PointRun run;
  run.sweep.knob = "clients";
  run.sweep.values = {1, 4, 16};
  run.sweep.steps = {Step(1, 1000, 50), Step(4, 4000, 55), Step(16, 16000, 60)};
  Conclude(&run.sweep);
  return run;
}

PointSweepOutcome Outcome(std::vector<PointOutcome> points, int runs) {
  PointSweepOutcome o;
  o.axis = "set";
  o.key = "maxmemory-policy";
  o.knob = "clients";
  o.knob_values = {1, 4, 16};
  o.runs = runs;
  for (const auto& p : points) o.values.push_back(p.value);
  o.points = std::move(points);
  ConcludePoints(&o);
  return o;
}

std::string Printed(const PointSweepOutcome& o) {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  PrintPointSummary(f, o);
  std::fclose(f);
  std::string text(buf, len);
  free(buf);
  return text;
}

TEST(PointSweep, ThePointsKneeIsARangeOverItsRunsWithN) {
  PointOutcome p{"allkeys-lru", {KneeAt4(30000, 60), KneeAt4(34000, 80), KneeAt4(32000, 70)}};
  PointSummary s = SummarizePoint(p);
  EXPECT_EQ(s.runs, 3u);
  EXPECT_EQ(s.knees, 3u);
  EXPECT_EQ(s.failed, 0u);
  EXPECT_EQ(s.knee_x.min, 4);
  EXPECT_EQ(s.knee_x.max, 4);
  EXPECT_EQ(s.ops_per_sec.min, 30000);
  EXPECT_EQ(s.ops_per_sec.median, 32000);
  EXPECT_EQ(s.ops_per_sec.max, 34000);
  EXPECT_EQ(s.p99_us.median, 70);
}

TEST(PointSweep, AnEvenCountsMedianIsTheMeanOfTheMiddleTwo) {
  PointOutcome p{"v", {KneeAt4(1000), KneeAt4(3000)}};
  EXPECT_EQ(SummarizePoint(p).ops_per_sec.median, 2000);
}

TEST(PointSweep, RunsWithoutAKneeAreCountedButNotRanged) {
  PointOutcome p{"v", {KneeAt4(30000), RisingNoKnee()}};
  PointSummary s = SummarizePoint(p);
  EXPECT_EQ(s.runs, 2u);
  EXPECT_EQ(s.knees, 1u);
  EXPECT_EQ(s.ops_per_sec.min, 30000);
  EXPECT_EQ(s.ops_per_sec.max, 30000);
  auto j = PointSweepJson(Outcome({p}, 2));
  EXPECT_EQ(j["points"][0]["summary"]["knees"], 1);
  EXPECT_EQ(j["points"][0]["summary"]["ops_per_sec"]["n"], 1);
}

TEST(PointSweep, ClearRangesNameTheBestPoint) {
  PointSweepOutcome o = Outcome({{"allkeys-lru", {KneeAt4(30000), KneeAt4(31000)}},
                                 {"allkeys-lfu", {KneeAt4(40000), KneeAt4(41000)}}},
                                2);
  auto best = FindBestPoint(o);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->index, 1u);
  EXPECT_FALSE(best->overlaps);
  const std::string text = Printed(o);
  EXPECT_NE(text.find("the most throughput at the knee: maxmemory-policy=allkeys-lfu; its range is clear"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("40500 [40000 .. 41000]"), std::string::npos) << text;
  EXPECT_NE(text.find("OK (exit 0)"), std::string::npos) << text;
  auto j = PointSweepJson(o);
  EXPECT_EQ(j["schema"], "memstand.sweep_points");
  EXPECT_EQ(j["best"]["value"], "allkeys-lfu");
  EXPECT_TRUE(j["best"]["overlaps"].empty());
}

TEST(PointSweep, OverlappingRangesAreNotToldApart) {
  PointSweepOutcome o = Outcome({{"a", {KneeAt4(30000), KneeAt4(40000)}},
                                 {"b", {KneeAt4(35000), KneeAt4(41000)}}},
                                2);
  auto best = FindBestPoint(o);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->index, 1u);
  EXPECT_TRUE(best->overlaps);
  ASSERT_EQ(best->overlapping.size(), 1u);
  EXPECT_EQ(best->overlapping[0], "a");
  EXPECT_NE(Printed(o).find("they are not told apart"), std::string::npos) << Printed(o);
}

TEST(PointSweep, OnePointWithAKneeNamesNoBest) {
  PointSweepOutcome o = Outcome({{"a", {KneeAt4(30000)}}, {"b", {RisingNoKnee()}}}, 1);
  EXPECT_FALSE(FindBestPoint(o).has_value());
  EXPECT_NE(Printed(o).find("fewer than two points have a knee"), std::string::npos);
  EXPECT_TRUE(PointSweepJson(o)["best"].is_null());
}

TEST(PointSweep, ATopologyThatFailedFailsTheSweepAndSaysWhy) {
  PointRun broken;
  broken.failure = "the topology did not start: redis-server exited";
  PointSweepOutcome o = Outcome({{"a", {KneeAt4(30000)}}, {"b", {broken}}}, 1);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.verdict, "FAILED: 1 of 2 runs failed");
  const std::string text = Printed(o);
  EXPECT_NE(text.find("maxmemory-policy=b run 1: the topology did not start"), std::string::npos) << text;
  auto j = PointSweepJson(o);
  EXPECT_TRUE(j["points"][1]["runs"][0]["sweep"].is_null());
  EXPECT_EQ(j["points"][1]["summary"]["failed"], 1);
}

TEST(PointSweep, AFailedStepFailsTheSweep) {
  PointRun run = KneeAt4(30000);
  run.sweep.steps.push_back(Step(64, 0, 0, 1));
  run.sweep.values.push_back(64);
  Conclude(&run.sweep);
  PointSweepOutcome o = Outcome({{"a", {run}}}, 1);
  EXPECT_EQ(o.exit_code, 1);
}

TEST(PointSweep, FewerRunsThanAskedIsAnInterruption) {
  PointSweepOutcome o = Outcome({{"a", {KneeAt4(30000)}}}, 2);
  EXPECT_EQ(o.exit_code, 130);
  EXPECT_EQ(o.verdict, "INTERRUPTED: 1 of 2 runs made");
}

}  // namespace
}  // namespace point_sweep_test
}  // namespace memstand
