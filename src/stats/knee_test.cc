#include "stats/knee.h"

#include <gtest/gtest.h>

#include <vector>

#include "util/rng.h"

namespace memstand {
namespace {

// Throughput rises linearly with x up to `flat_from`, then stays flat; p99 stays at its
// base until the flattening, then rises with the queue (Little's law: p99 ~ x / tput).
std::vector<SweepPoint> LinearThenFlat(int n, int flat_from) {
  std::vector<SweepPoint> points;
  for (int i = 0; i < n; ++i) {
    const double x = i + 1;
    const double tput = 10'000.0 * (i < flat_from ? x : flat_from + 1);
    points.push_back({x, tput, 100.0 * x * 10'000.0 / tput});
  }
  return points;
}

TEST(FindKneeTest, LinearThenFlatWithRisingLatency) {
  const std::vector<SweepPoint> points = LinearThenFlat(10, 5);
  // Points 0..5 rise; 5 -> 6 is the first flat step and latency grows on it.
  EXPECT_EQ(FindKnee(points), std::optional<size_t>(5));
}

TEST(FindKneeTest, AlwaysRisingHasNoKnee) {
  std::vector<SweepPoint> points;
  for (int i = 1; i <= 10; ++i) points.push_back({double(i), 1000.0 * i, 50.0 + i});
  EXPECT_EQ(FindKnee(points), std::nullopt);
}

TEST(FindKneeTest, DiminishingButStillLargeGainsAreNotAKnee) {
  // Each step gains 10%: above min_gain, so no knee, though latency rises throughout.
  std::vector<SweepPoint> points;
  double tput = 1000;
  for (int i = 1; i <= 8; ++i, tput *= 1.10) points.push_back({double(i), tput, 10.0 * i});
  EXPECT_EQ(FindKnee(points), std::nullopt);
  // With min_gain 15% every step is small, but the steps add up to more than 15% until
  // the last one: the knee is where the remaining gain falls below min_gain.
  EXPECT_EQ(FindKnee(points, 0.15), std::optional<size_t>(6));
}

TEST(FindKneeTest, NoisyPlateau) {
  // Rises to 100k at index 4, then wanders within +-2% while p99 climbs.
  Rng rng(2024);
  std::vector<SweepPoint> points;
  for (int i = 0; i < 16; ++i) {
    const double x = 1 << i;
    const double base = i <= 4 ? 20'000.0 * (i + 1) : 100'000.0;
    const double noise = i <= 4 ? 1.0 : 1.0 + 0.04 * (rng.NextDouble() - 0.5);
    points.push_back({x, base * noise, 80.0 * (i <= 4 ? 1.0 : x / 16.0)});
  }
  EXPECT_EQ(FindKnee(points), std::optional<size_t>(4));
}

TEST(FindKneeTest, FlatThroughputWithFallingLatencyIsNotAKneeThere) {
  const std::vector<SweepPoint> points = {
      {1, 100, 1.0}, {2, 200, 2.0}, {3, 300, 3.0}, {4, 301, 2.5}, {5, 302, 4.0}, {6, 300, 6.0},
  };
  // 2 -> 3 is flat but p99 falls; 3 -> 4 is flat and p99 rises: the knee is 3.
  EXPECT_EQ(FindKnee(points), std::optional<size_t>(3));
  const std::vector<SweepPoint> never_rises = {
      {1, 100, 3.0},
      {2, 200, 2.0},
      {3, 201, 1.5},
      {4, 202, 1.0},
  };
  EXPECT_EQ(FindKnee(never_rises), std::nullopt);
}

TEST(FindKneeTest, AHiccupOnARisingCurveIsNotAKnee) {
  const std::vector<SweepPoint> points = {
      {1, 100, 1.0}, {2, 200, 1.1}, {3, 202, 1.3}, {4, 300, 1.4}, {5, 400, 1.5}, {6, 405, 3.0},
  };
  // 1 -> 2 gains 1% with rising latency, but throughput later reaches 300: not a knee.
  EXPECT_EQ(FindKnee(points), std::optional<size_t>(4));
}

TEST(FindKneeTest, FallingThroughputPastTheKnee) {
  const std::vector<SweepPoint> points = {
      {1, 100, 1.0}, {2, 190, 1.1}, {4, 260, 1.5}, {8, 250, 3.0}, {16, 200, 7.0},
  };
  EXPECT_EQ(FindKnee(points), std::optional<size_t>(2));
}

TEST(FindKneeTest, TooFewPoints) {
  EXPECT_EQ(FindKnee({}), std::nullopt);
  EXPECT_EQ(FindKnee({{1, 100, 1.0}}), std::nullopt);
  EXPECT_EQ(FindKnee({{1, 100, 1.0}, {2, 100, 5.0}}), std::nullopt);
  EXPECT_EQ(FindKnee({{1, 100, 1.0}, {2, 100, 5.0}, {3, 100, 9.0}}), std::optional<size_t>(0));
}

}  // namespace
}  // namespace memstand
