#include "scenario/stretched_cache/figures.h"

#include <gtest/gtest.h>

#include "scenario/stretched_cache/report.h"

namespace memstand {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(StretchedDistancesTest, ParsesTheDurationList) {
  auto d = ParseDistances("5ms,20ms,40ms");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(*d, (std::vector<int64_t>{5 * kMs, 20 * kMs, 40 * kMs}));
  auto fine = ParseDistances("250us,1.5ms,1s");
  ASSERT_TRUE(fine.ok()) << fine.status().message();
  EXPECT_EQ(*fine, (std::vector<int64_t>{250'000, 1'500'000, 1000 * kMs}));
  EXPECT_EQ(DistanceText(5 * kMs), "5ms");
  EXPECT_EQ(DistanceText(250'000), "250us");
  EXPECT_EQ(DistanceText(1'500'000), "1.5ms");
  EXPECT_EQ(DistanceText(1000 * kMs), "1000ms");
}

TEST(StretchedDistancesTest, RefusesWhatIsNoDistance) {
  for (const char* bad : {"", "5ms,", ",5ms", "0", "0ms,5ms", "2s", "5xs", "5ms,5ms", "-5ms",
                          "1ms,2ms,3ms,4ms,5ms,6ms,7ms,8ms,9ms"}) {
    auto d = ParseDistances(bad);
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_EQ(d.status().code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_NE(d.status().message().find("--distances"), std::string::npos) << d.status().message();
  }
  EXPECT_NE(ParseDistances("5ms,5ms").status().message().find("'5ms' is given twice"), std::string::npos);
  EXPECT_NE(ParseDistances("1ms,2s").status().message().find("'2s' must be above 0 and at most 1s"),
            std::string::npos);
}

TEST(StretchedDeltaTest, TheDifferenceHoldsOnlyTheValuesBetweenTwoSnapshots) {
  HdrHistogram h;
  for (int64_t v : {int64_t{1'000}, int64_t{2'000}, 5 * kMs}) h.Record(v);
  const HdrHistogram before = h;
  for (int64_t v : {20 * kMs, 20 * kMs, 40 * kMs}) h.Record(v);
  const HdrHistogram d = HistogramDifference(h, before);
  EXPECT_EQ(d.total_count(), 3);
  EXPECT_EQ(d.min(), d.LowestEquivalentValue(20 * kMs));
  EXPECT_EQ(d.HighestEquivalentValue(d.max()), h.HighestEquivalentValue(40 * kMs));
  EXPECT_EQ(HistogramDifference(h, h).total_count(), 0);
  EXPECT_EQ(HistogramDifference(HdrHistogram(), HdrHistogram()).total_count(), 0);
}

TEST(StretchedDeltaTest, ADirectionsCountsAndAppliedSumOverOneOperation) {
  RelayLinkStats before;
  before.back.chunks = 10;
  before.back.bytes = 1000;
  before.back.applied_ns.Record(5 * kMs);
  RelayLinkStats after = before;
  after.back.chunks = 12;
  after.back.bytes = 1100;
  after.back.applied_ns.Record(20 * kMs);
  after.back.applied_ns.Record(21 * kMs);
  after.forward.chunks = 1;
  after.forward.bytes = 30;
  after.forward.applied_ns.Record(20 * kMs);
  const LinkDelta d = DeltaOf(after, before);
  EXPECT_EQ(d.back.chunks, 2);
  EXPECT_EQ(d.back.bytes, 100);
  EXPECT_NEAR(d.back.applied_sum_ns, 41.0 * kMs, 41.0 * kMs * 0.002);  // 3 significant digits
  EXPECT_GE(d.back.applied_max_ns, 21 * kMs);
  EXPECT_LE(d.back.applied_max_ns, 21 * kMs * 1.002);
  EXPECT_EQ(d.forward.chunks, 1);
  EXPECT_NEAR(d.forward.applied_sum_ns, 20.0 * kMs, 20.0 * kMs * 0.002);
  const LinkDelta none = DeltaOf(after, after);
  EXPECT_EQ(none.back.chunks, 0);
  EXPECT_EQ(none.back.applied_sum_ns, 0);
  EXPECT_EQ(none.back.applied_max_ns, 0);
}

TEST(StretchedDeltaTest, StatsDifferenceSubtractsCountsAndHistogramsPerLink) {
  RelayStats before;
  before.links.resize(2);
  before.links[0].connections = 1;
  before.links[0].forward.chunks = 4;
  before.links[0].forward.extra_ns.Record(900'000);  // the re-sync's overshoot: left out
  RelayStats after = before;
  after.links[0].connections = 2;
  after.links[0].forward.chunks = 7;
  for (int64_t v : {int64_t{1'000}, int64_t{2'000}, int64_t{3'000}}) after.links[0].forward.extra_ns.Record(v);
  after.links[1].back.chunks = 2;
  const RelayStats d = StatsDifference(after, before);
  ASSERT_EQ(d.links.size(), 2u);
  EXPECT_EQ(d.links[0].connections, 1);
  EXPECT_EQ(d.links[0].forward.chunks, 3);
  EXPECT_EQ(d.links[0].forward.extra_ns.total_count(), 3);
  EXPECT_LT(d.links[0].forward.extra_ns.max(), 3'100);
  EXPECT_EQ(d.links[1].back.chunks, 2);
}

TEST(StretchedArithmeticTest, CellsAndModeDifferences) {
  const CellFigures f = FiguresOf(61.0 * kMs, 20 * kMs);
  EXPECT_EQ(f.round_trip_ns, 40.0 * kMs);
  EXPECT_EQ(f.over_round_trip_ns, 21.0 * kMs);
  const ModeDifference m = DifferenceOf(61.0 * kMs, 41.0 * kMs, 20 * kMs);
  EXPECT_EQ(m.difference_ns, 20.0 * kMs);
  EXPECT_DOUBLE_EQ(m.in_one_way, 1.0);
  EXPECT_EQ(RoundOrder(0, 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(RoundOrder(1, 3), (std::vector<int>{2, 1, 0}));
  EXPECT_EQ(RoundOrder(2, 2), (std::vector<int>{0, 1}));
}

TEST(StretchedArithmeticTest, TheDefaultsStayUnderTwoMinutesOfDelays) {
  const double s = EstimateSeconds(100, {5 * kMs, 20 * kMs, 40 * kMs});
  // 100 x (2 x 40 ms + 18 x 5 ms + 13 x 65 ms) = 101.5 s.
  EXPECT_NEAR(s, 101.5, 1e-9);
  EXPECT_LT(s, 120);
  EXPECT_NEAR(EstimateSeconds(10, {2 * kMs}), 10 * (0.08 + 0.036 + 0.026), 1e-9);
}

// A run record with one WAIT series, for the report's arithmetic.
StretchedRun OneRun(std::vector<int64_t> waits) {
  StretchedRun r;
  Series s;
  s.block = "a";
  s.condition = "no relay";
  s.mode = ClientMode::kSequential;
  for (size_t i = 0; i < waits.size(); ++i) {
    OpSample o;
    o.index = static_cast<int>(i + 1);
    o.ns = static_cast<int64_t>(100'000 * (i + 1));
    o.wait = waits[i];
    if (o.wait == -2) o.other = "error 'NOREPLICAS'";
    s.samples.push_back(o);
  }
  r.series.push_back(s);
  return r;
}

TEST(StretchedReportTest, EveryWaitAnsweringOneKeepsTheRunOk) {
  ScenarioReport report;
  StretchedCacheOptions o;
  FillStretchedReport(o, {OneRun({1, 1, 1})}, false, &report);
  EXPECT_EQ(report.verdict, ScenarioVerdict::kOk);
  EXPECT_EQ(report.json["wait"]["operations"], 3);
  EXPECT_EQ(report.json["wait"]["ones"], 3);
  ASSERT_EQ(report.json["series"].size(), 1u);
  EXPECT_EQ(report.json["series"][0]["median_ns"], 200'000);
  EXPECT_EQ(report.json["series"][0]["client"], "sequential");
  EXPECT_TRUE(report.json["invariants"][0]["ok"].get<bool>());
}

TEST(StretchedReportTest, AnyOtherWaitAnswerIsCountedAndFailsTheRun) {
  ScenarioReport report;
  StretchedCacheOptions o;
  FillStretchedReport(o, {OneRun({1, 0, -2, 1})}, false, &report);
  EXPECT_EQ(report.verdict, ScenarioVerdict::kFailed);
  EXPECT_EQ(report.ExitCode(), kScenarioExitFailed);
  EXPECT_EQ(report.json["wait"]["operations"], 4);
  EXPECT_EQ(report.json["wait"]["ones"], 2);
  EXPECT_EQ(report.json["wait"]["other_answers"]["integer 0"], 1);
  EXPECT_EQ(report.json["wait"]["other_answers"]["error 'NOREPLICAS'"], 1);
  bool printed = false;
  for (const auto& [title, body] : report.blocks) {
    if (title.starts_with("Invariant")) printed = body.find("other answer integer 0: 1 times") != std::string::npos;
  }
  EXPECT_TRUE(printed);
}

}  // namespace
}  // namespace memstand
