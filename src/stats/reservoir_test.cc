#include "stats/reservoir.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "util/rng.h"

namespace memstand {
namespace {

// An item that names itself: its index in the stream goes into time_ns.
Sample Item(int64_t index, uint32_t command = 0) { return Sample{index, 1000 + index, command}; }

// Pearson's chi-square of observed counts against one common expected count.
double ChiSquare(const std::vector<int64_t>& observed, double expected) {
  double chi = 0;
  for (int64_t o : observed) chi += (o - expected) * (o - expected) / expected;
  return chi;
}

// Bounds for a chi-square with `df` degrees of freedom: mean df, standard deviation
// sqrt(2 df); 5 standard deviations each side. Too low means "too regular" (e.g. a
// deterministic stride), too high means some items are favoured.
void ExpectChiSquareFits(double chi, double df) {
  const double sd = std::sqrt(2 * df);
  EXPECT_GT(chi, df - 5 * sd);
  EXPECT_LT(chi, df + 5 * sd);
}

TEST(SampleReservoir, UnderCapKeepsEverythingInOrder) {
  SampleReservoir r(100, 1);
  for (int i = 0; i < 100; ++i) r.Offer(Item(i));
  ASSERT_EQ(r.samples().size(), 100u);
  EXPECT_EQ(r.seen(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(r.samples()[i].time_ns, i);
}

TEST(SampleReservoir, FullReservoirHoldsCapacityDistinctItems) {
  SampleReservoir r(50, 7);
  for (int i = 0; i < 10000; ++i) r.Offer(Item(i));
  EXPECT_EQ(r.seen(), 10000u);
  ASSERT_EQ(r.samples().size(), 50u);
  std::set<int64_t> distinct;
  for (const Sample& s : r.samples()) {
    distinct.insert(s.time_ns);
    EXPECT_EQ(s.latency_ns, 1000 + s.time_ns);  // kept whole, not mixed up
  }
  EXPECT_EQ(distinct.size(), 50u);
}

TEST(SampleReservoir, MemoryGrowsLazilyAndStopsAtCapacity) {
  SampleReservoir r(1'000'000, 3);
  for (int i = 0; i < 10; ++i) r.Offer(Item(i));
  EXPECT_LT(r.samples().capacity(), 10'000u) << "a short run must not reserve the whole cap";

  SampleReservoir small(3000, 3);
  for (int i = 0; i < 3000; ++i) small.Offer(Item(i));
  EXPECT_EQ(small.samples().capacity(), 3000u);
  const Sample* data = small.samples().data();
  for (int i = 3000; i < 100000; ++i) small.Offer(Item(i));
  EXPECT_EQ(small.samples().data(), data) << "no allocation once full";
  EXPECT_EQ(small.samples().capacity(), 3000u);
}

// Every index of the stream must be kept with probability cap / n, early and late
// ones alike: over many seeded runs the inclusion counts fit a uniform chi-square.
TEST(SampleReservoir, InclusionIsUniformOverTheStream) {
  constexpr int kItems = 1000, kCap = 100, kRuns = 2000;
  std::vector<int64_t> included(kItems, 0);
  for (int run = 0; run < kRuns; ++run) {
    SampleReservoir r(kCap, DeriveSeed(42, run));
    for (int i = 0; i < kItems; ++i) r.Offer(Item(i));
    for (const Sample& s : r.samples()) ++included[s.time_ns];
  }
  ExpectChiSquareFits(ChiSquare(included, double(kRuns) * kCap / kItems), kItems - 1);
  // The first and last tenth of the stream are kept equally often (about 20,000 each).
  int64_t first = 0, last = 0;
  for (int i = 0; i < kItems / 10; ++i) {
    first += included[i];
    last += included[kItems - 1 - i];
  }
  EXPECT_NEAR(first, 20000, 5 * std::sqrt(20000.0));
  EXPECT_NEAR(last, 20000, 5 * std::sqrt(20000.0));
}

// A long stream: the skip arithmetic of Algorithm L stays uniform far past the cap.
TEST(SampleReservoir, LongStreamStaysUniformByDecile) {
  constexpr int kItems = 200000, kCap = 500, kRuns = 200;
  std::vector<int64_t> decile(10, 0);
  for (int run = 0; run < kRuns; ++run) {
    SampleReservoir r(kCap, DeriveSeed(9, run));
    for (int i = 0; i < kItems; ++i) r.Offer(Item(i));
    ASSERT_EQ(r.samples().size(), size_t{kCap});
    for (const Sample& s : r.samples()) ++decile[s.time_ns / (kItems / 10)];
  }
  ExpectChiSquareFits(ChiSquare(decile, kRuns * kCap / 10.0), 9);
}

TEST(MergeReservoirs, UnderCapKeepsEveryItemOnce) {
  SampleReservoir a(1000, 1), b(1000, 2), c(1000, 3);
  for (int i = 0; i < 300; ++i) a.Offer(Item(i, 0));
  for (int i = 0; i < 150; ++i) b.Offer(Item(i, 1));
  // c offered nothing; a null part is a thread without a reservoir.
  std::vector<Sample> merged = MergeReservoirs({{&a, 0}, {&b, 5}, {&c, 0}, {nullptr, 0}}, 1000, 11);
  ASSERT_EQ(merged.size(), 450u);
  std::set<std::pair<uint32_t, int64_t>> items;
  for (const Sample& s : merged) {
    int64_t index = s.time_ns - (s.command == 1 ? 5 : 0);  // the offset was added
    EXPECT_EQ(s.latency_ns, 1000 + index);
    items.insert({s.command, index});
  }
  EXPECT_EQ(items.size(), 450u);
  for (size_t i = 1; i < merged.size(); ++i) EXPECT_LE(merged[i - 1].time_ns, merged[i].time_ns);
}

TEST(MergeReservoirs, EmptyInputGivesNothing) {
  EXPECT_TRUE(MergeReservoirs({}, 10, 1).empty());
  SampleReservoir a(10, 1);
  EXPECT_TRUE(MergeReservoirs({{&a, 0}}, 10, 1).empty());
}

// Threads of very unequal sizes, one under the cap: every item of the union must be
// kept with the same probability cap / total, not "cap / threads per thread".
TEST(MergeReservoirs, UnequalThreadsGiveAUniformSampleOfTheUnion) {
  const std::vector<int> sizes = {100, 1000, 5000};
  constexpr int kCap = 200, kRuns = 600;
  const int total = 6100;
  std::vector<int64_t> included(total, 0);
  std::vector<int64_t> per_thread(sizes.size(), 0);
  for (int run = 0; run < kRuns; ++run) {
    std::vector<SampleReservoir> threads;
    for (size_t t = 0; t < sizes.size(); ++t) threads.emplace_back(kCap, DeriveSeed(run, t));
    int base = 0;
    std::vector<ReservoirPart> parts;
    for (size_t t = 0; t < sizes.size(); ++t) {
      for (int i = 0; i < sizes[t]; ++i) threads[t].Offer(Item(base + i, static_cast<uint32_t>(t)));
      parts.push_back({&threads[t], 0});
      base += sizes[t];
    }
    std::vector<Sample> merged = MergeReservoirs(parts, kCap, DeriveSeed(1000 + run, 0));
    ASSERT_EQ(merged.size(), size_t{kCap});
    for (const Sample& s : merged) {
      ++included[s.time_ns];
      ++per_thread[s.command];
    }
  }
  ExpectChiSquareFits(ChiSquare(included, double(kRuns) * kCap / total), total - 1);
  // Each thread's share is its share of the items: 100/6100 of 120,000 picks is 1967.
  for (size_t t = 0; t < sizes.size(); ++t) {
    double expected = double(kRuns) * kCap * sizes[t] / total;
    EXPECT_NEAR(per_thread[t], expected, 5 * std::sqrt(expected)) << "thread " << t;
  }
}

TEST(MergeReservoirs, SameSeedSameSample) {
  SampleReservoir a(100, 1), b(100, 2);
  for (int i = 0; i < 1000; ++i) a.Offer(Item(i));
  for (int i = 0; i < 500; ++i) b.Offer(Item(i + 1000));
  auto x = MergeReservoirs({{&a, 0}, {&b, 0}}, 100, 5);
  auto y = MergeReservoirs({{&a, 0}, {&b, 0}}, 100, 5);
  ASSERT_EQ(x.size(), 100u);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(x[i].time_ns, y[i].time_ns);
}

}  // namespace
}  // namespace memstand
