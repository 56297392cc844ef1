#include "load/availability.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

constexpr int64_t kS = 1'000'000'000;

FaultStats WithSpans(std::vector<OutageSpan> spans) {
  FaultStats f;
  f.outages = {std::move(spans)};
  return f;
}

TEST(AvailabilityTest, OverlappingSpansOfThreadsAreOneOutage) {
  // Two threads saw the same outage a little apart; a third span is separate.
  const FaultStats f = WithSpans({{10 * kS + 2'000'000, 12 * kS, 3, 1},
                                  {10 * kS, 11 * kS + 500'000'000, 2, 4},
                                  {15 * kS, 15 * kS + 1'000'000, 1, 0}});
  const Availability a = ComputeAvailability(f, 1, 8 * kS, 20 * kS, {});
  ASSERT_EQ(a.commands.size(), 1u);
  const CommandAvailability& c = a.commands[0];
  EXPECT_EQ(c.outages, 2u);
  ASSERT_EQ(c.longest.size(), 2u);
  EXPECT_DOUBLE_EQ(c.longest[0].start_s, 2.0);
  EXPECT_DOUBLE_EQ(c.longest[0].length_s, 2.0);
  EXPECT_EQ(c.longest[0].failed, 5u);
  EXPECT_EQ(c.longest[0].unknown, 5u);
  EXPECT_TRUE(c.longest[0].recovered);
  EXPECT_DOUBLE_EQ(c.longest[1].start_s, 7.0);
  EXPECT_NEAR(c.unavailable_s, 2.001, 1e-9);
  EXPECT_TRUE(a.any());
}

TEST(AvailabilityTest, AnUnrecoveredSpanLastsToTheEnd) {
  const FaultStats f = WithSpans({{12 * kS, 0, 7, 0}, {11 * kS, 13 * kS, 1, 1}});
  const Availability a = ComputeAvailability(f, 1, 10 * kS, 20 * kS, {});
  const CommandAvailability& c = a.commands[0];
  ASSERT_EQ(c.outages, 1u);
  EXPECT_FALSE(c.longest[0].recovered);
  EXPECT_DOUBLE_EQ(c.longest[0].start_s, 1.0);
  EXPECT_DOUBLE_EQ(c.longest[0].length_s, 9.0);
  EXPECT_EQ(c.longest[0].failed, 8u);
}

TEST(AvailabilityTest, KeepsTheTenLongestButCountsAll) {
  std::vector<OutageSpan> spans;
  for (int i = 0; i < 25; ++i) spans.push_back({i * kS, i * kS + (i + 1) * 1'000'000, 1, 0});
  const Availability a = ComputeAvailability(WithSpans(spans), 1, 0, 30 * kS, {});
  const CommandAvailability& c = a.commands[0];
  EXPECT_EQ(c.outages, 25u);
  ASSERT_EQ(c.longest.size(), kLongestOutages);
  EXPECT_DOUBLE_EQ(c.longest[0].start_s, 24.0);  // the longest: 25 ms
  EXPECT_NEAR(c.unavailable_s, 0.325, 1e-9);     // 1 + 2 + ... + 25 ms
}

SeriesPoint Second(int s, uint64_t ok, uint64_t failed, uint64_t unknown) {
  SeriesPoint p;
  p.second = s;
  p.ok = ok;
  p.failed = failed;
  p.unknown = unknown;
  return p;
}

TEST(AvailabilityTest, SecondsWithoutOkAreRunsOfTheSeries) {
  const std::vector<SeriesPoint> series = {Second(0, 100, 0, 0), Second(1, 0, 5, 2), Second(2, 0, 0, 0),
                                           Second(3, 80, 0, 0),  Second(4, 0, 3, 0), Second(5, 0, 0, 0)};
  const Availability a = ComputeAvailability(FaultStats{}, 0, 0, 6 * kS, series);
  ASSERT_EQ(a.seconds.size(), 2u);
  EXPECT_EQ(a.seconds[0].first_second, 1);
  EXPECT_EQ(a.seconds[0].seconds, 2);
  EXPECT_EQ(a.seconds[0].failed, 5u);
  EXPECT_EQ(a.seconds[0].unknown, 2u);
  EXPECT_TRUE(a.seconds[0].recovered);
  // The last second had nothing at all (a partial second): only second 4 counts.
  EXPECT_EQ(a.seconds[1].first_second, 4);
  EXPECT_EQ(a.seconds[1].seconds, 1);
}

TEST(AvailabilityTest, ALastSecondWithFailuresIsNotRecovered) {
  const std::vector<SeriesPoint> series = {Second(0, 10, 0, 0), Second(1, 0, 4, 0)};
  const Availability a = ComputeAvailability(FaultStats{}, 0, 0, 2 * kS, series);
  ASSERT_EQ(a.seconds.size(), 1u);
  EXPECT_FALSE(a.seconds[0].recovered);
}

CommandOutage Outage(double start_s, double length_s, bool recovered, uint64_t failed, uint64_t unknown) {
  CommandOutage o;
  o.start_s = start_s;
  o.length_s = length_s;
  o.recovered = recovered;
  o.failed = failed;
  o.unknown = unknown;
  return o;
}

TEST(AvailabilityTest, JoinOutagesJoinsThoseThatOverlapAsThreadsAre) {
  // Three runs' outages on one axis: two overlap, one touches the second's end, one apart.
  const CommandAvailability c = JoinOutages({Outage(0.5, 0.25, true, 3, 0), Outage(0.25, 0.5, true, 1, 2),
                                             Outage(2.0, 0.5, true, 0, 1), Outage(0.75, 0.125, true, 1, 1)});
  EXPECT_EQ(c.outages, 2u);
  EXPECT_DOUBLE_EQ(c.unavailable_s, 1.125);
  ASSERT_EQ(c.longest.size(), 2u);
  EXPECT_DOUBLE_EQ(c.longest[0].start_s, 0.25);
  EXPECT_DOUBLE_EQ(c.longest[0].length_s, 0.625);
  EXPECT_EQ(c.longest[0].failed, 5u);
  EXPECT_EQ(c.longest[0].unknown, 3u);
  EXPECT_DOUBLE_EQ(c.longest[1].start_s, 2.0);
  EXPECT_TRUE(c.exact);
}

TEST(AvailabilityTest, JoinOutagesIsRecoveredAsTheOneReachingFurthest) {
  // A run that ended while down (not recovered), inside another run's outage that ended
  // with an ok: the joined outage ends with that ok.
  const CommandAvailability inside = JoinOutages({Outage(1.0, 1.0, false, 1, 0), Outage(1.5, 1.0, true, 1, 0)});
  ASSERT_EQ(inside.outages, 1u);
  EXPECT_TRUE(inside.longest[0].recovered);
  EXPECT_DOUBLE_EQ(inside.longest[0].length_s, 1.5);
  // ... and the other way round: not recovered; on a tie, not recovered either.
  const CommandAvailability last = JoinOutages({Outage(1.0, 2.0, false, 1, 0), Outage(1.5, 0.5, true, 1, 0)});
  EXPECT_FALSE(last.longest[0].recovered);
  EXPECT_DOUBLE_EQ(last.longest[0].length_s, 2.0);
  const CommandAvailability tie = JoinOutages({Outage(1.0, 1.0, true, 1, 0), Outage(1.5, 0.5, false, 1, 0)});
  EXPECT_FALSE(tie.longest[0].recovered);
}

TEST(AvailabilityTest, JoinOutagesKeepsTheTenLongestButCountsAll) {
  std::vector<CommandOutage> outages;
  for (int i = 0; i < 25; ++i) outages.push_back(Outage(i, (i + 1) / 1000.0, true, 1, 0));
  const CommandAvailability c = JoinOutages(outages);
  EXPECT_EQ(c.outages, 25u);
  ASSERT_EQ(c.longest.size(), kLongestOutages);
  EXPECT_DOUBLE_EQ(c.longest[0].start_s, 24.0);
  EXPECT_NEAR(c.unavailable_s, 0.325, 1e-9);
}

TEST(AvailabilityTest, NothingToSay) {
  const std::vector<SeriesPoint> series = {Second(0, 10, 0, 0), Second(1, 7, 0, 0), Second(2, 0, 0, 0)};
  const Availability a = ComputeAvailability(FaultStats{}, 2, 0, 3 * kS, series);
  EXPECT_FALSE(a.any());
  EXPECT_EQ(a.commands.size(), 2u);
}

}  // namespace
}  // namespace memstand
