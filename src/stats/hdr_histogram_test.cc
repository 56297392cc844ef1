#include "stats/hdr_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace memstand {
namespace {

constexpr int64_t kHour = 3'600'000'000'000LL;

// Percentiles under test, times 100 so the exact rank is integer arithmetic.
constexpr int64_t kPercentilesX100[] = {0, 100, 1000, 5000, 9000, 9900, 9990, 9999, 10000};

// counts_len as the reference C implementation computes it (hdr_calculate_bucket_config).
int64_t ReferenceCountsLen(int64_t lowest, int64_t highest, int sig_figs) {
  const double largest_single_unit = 2.0 * std::pow(10.0, sig_figs);
  const int sub_bucket_count_magnitude =
      static_cast<int>(std::ceil(std::log(largest_single_unit) / std::log(2.0)));
  const int half_count_magnitude = std::max(sub_bucket_count_magnitude, 1) - 1;
  const int unit_magnitude = static_cast<int>(std::floor(std::log2(static_cast<double>(lowest))));
  const int64_t sub_bucket_count = int64_t{1} << (half_count_magnitude + 1);
  int64_t smallest_untrackable = sub_bucket_count << unit_magnitude;
  int64_t buckets_needed = 1;
  while (smallest_untrackable <= highest) {
    if (smallest_untrackable > INT64_MAX / 2) {
      ++buckets_needed;
      break;
    }
    smallest_untrackable <<= 1;
    ++buckets_needed;
  }
  return (buckets_needed + 1) * (sub_bucket_count / 2);
}

// The exact value at percentile p: the ceil(p/100 * n)-th smallest (at least the 1st).
int64_t ExactAtPercentile(const std::vector<int64_t>& sorted, int64_t p_x100) {
  const int64_t n = static_cast<int64_t>(sorted.size());
  const int64_t rank = std::max<int64_t>((p_x100 * n + 9999) / 10000, 1);
  return sorted[rank - 1];
}

// Checks every percentile of `h` against the exact order statistics of `samples`.
void ExpectPercentilesMatch(const HdrHistogram& h, std::vector<int64_t> samples) {
  std::sort(samples.begin(), samples.end());
  for (int64_t p_x100 : kPercentilesX100) {
    const double p = static_cast<double>(p_x100) / 100.0;
    const int64_t exact = ExactAtPercentile(samples, p_x100);
    const int64_t got = h.ValueAtPercentile(p);
    SCOPED_TRACE(testing::Message() << "p=" << p << " exact=" << exact << " got=" << got);
    EXPECT_GE(got, exact);
    EXPECT_LE(got, h.HighestEquivalentValue(exact));
    EXPECT_LE(static_cast<double>(got - exact), 1e-3 * static_cast<double>(exact));
  }
  EXPECT_EQ(h.min(), samples.front());
  EXPECT_EQ(h.max(), samples.back());
}

std::vector<int64_t> Draw(size_t n, const std::function<int64_t(std::mt19937_64&)>& gen,
                          uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> out(n);
  for (auto& v : out) v = gen(rng);
  return out;
}

int64_t LogUniform(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(std::log(lo), std::log(hi));
  return std::llround(std::exp(u(rng)));
}

HdrHistogram Filled(const std::vector<int64_t>& samples) {
  HdrHistogram h;
  for (int64_t v : samples) h.Record(v);
  return h;
}

TEST(HdrHistogramTest, DefaultCountsLenMatchesReference) {
  HdrHistogram h;
  EXPECT_EQ(h.counts_len(), ReferenceCountsLen(1, kHour, 3));
  EXPECT_EQ(h.counts_len(), 33 * 1024);
  // The reference's documented example: 1 us..1 hour in us, 3 digits -> 23552 counts.
  EXPECT_EQ(HdrHistogram(1, 3'600'000'000LL, 3).counts_len(), 23552);
}

TEST(HdrHistogramTest, CountsLenMatchesReferenceForOtherParameters) {
  const int64_t lowests[] = {1, 2, 3, 1000, 1024, 1'000'000};
  const int64_t highests[] = {2'000'000, kHour, INT64_MAX / 4, INT64_MAX};
  for (int sig = 1; sig <= 5; ++sig) {
    for (int64_t lo : lowests) {
      for (int64_t hi : highests) {
        SCOPED_TRACE(testing::Message() << lo << " " << hi << " " << sig);
        EXPECT_EQ(HdrHistogram(lo, hi, sig).counts_len(), ReferenceCountsLen(lo, hi, sig));
      }
    }
  }
}

// Every counts index holds a contiguous value range that starts where the previous ends.
TEST(HdrHistogramTest, IndexRangesAreContiguous) {
  for (int sig = 1; sig <= 5; ++sig) {
    for (int64_t lo : {int64_t{1}, int64_t{1000}}) {
      HdrHistogram h(lo, kHour, sig);
      SCOPED_TRACE(testing::Message() << "sig=" << sig << " lo=" << lo);
      EXPECT_EQ(h.ValueFromIndex(0), 0);
      for (int i = 0; i + 1 < h.counts_len(); ++i) {
        const int64_t v = h.ValueFromIndex(i);
        ASSERT_EQ(h.CountsIndexFor(v), i);
        ASSERT_EQ(h.LowestEquivalentValue(v), v);
        ASSERT_EQ(h.HighestEquivalentValue(v) + 1, h.ValueFromIndex(i + 1));
      }
      EXPECT_LT(h.CountsIndexFor(kHour), h.counts_len());
    }
  }
}

void ExpectGeometryHolds(const HdrHistogram& h, int64_t v) {
  const int64_t low = h.LowestEquivalentValue(v);
  const int64_t high = h.HighestEquivalentValue(v);
  ASSERT_LE(low, v);
  ASSERT_GE(high, v);
  ASSERT_EQ(h.ValueFromIndex(h.CountsIndexFor(v)), low);
  ASSERT_EQ(h.CountsIndexFor(high), h.CountsIndexFor(v));
  // Precision: a range is never wider than 10^-sig of its values (or one unit).
  const double width = static_cast<double>(high - low + 1);
  const double unit = std::exp2(std::floor(std::log2(static_cast<double>(h.lowest_discernible()))));
  ASSERT_LE(width,
            std::max(unit, static_cast<double>(v) * std::pow(10.0, -h.significant_figures())));
}

TEST(HdrHistogramTest, GeometryHoldsOverManyValues) {
  std::mt19937_64 rng(42);
  for (int sig = 1; sig <= 5; ++sig) {
    for (int64_t lo : {int64_t{1}, int64_t{7}, int64_t{1000}}) {
      HdrHistogram h(lo, kHour, sig);
      SCOPED_TRACE(testing::Message() << "sig=" << sig << " lo=" << lo);
      for (int64_t v = 0; v <= 70'000; ++v) ExpectGeometryHolds(h, v);
      for (int i = 0; i < 200'000; ++i) ExpectGeometryHolds(h, LogUniform(rng, 1, kHour));
      ExpectGeometryHolds(h, kHour);
    }
  }
}

TEST(HdrHistogramTest, DefaultPrecisionIsExactBelow2048) {
  HdrHistogram h;
  for (int64_t v = 0; v < 2048; ++v) EXPECT_EQ(h.HighestEquivalentValue(v), v);
  EXPECT_EQ(h.HighestEquivalentValue(2048), 2049);
}

TEST(HdrHistogramTest, PercentilesLogUniformOneNsToOneHour) {
  const auto samples = Draw(
      200'000, [](auto& rng) { return LogUniform(rng, 1, kHour); }, 1);
  ExpectPercentilesMatch(Filled(samples), samples);
}

TEST(HdrHistogramTest, PercentilesSmallValues) {
  const auto samples = Draw(
      100'000, [](auto& rng) { return std::uniform_int_distribution<int64_t>(0, 5000)(rng); }, 2);
  ExpectPercentilesMatch(Filled(samples), samples);
}

TEST(HdrHistogramTest, PercentilesExponentialAndBimodal) {
  const auto expo = Draw(
      100'000,
      [](auto& rng) {
        return std::llround(std::exponential_distribution<double>(1.0 / 250'000)(rng));
      },
      3);
  ExpectPercentilesMatch(Filled(expo), expo);
  const auto bimodal = Draw(
      100'000,
      [](auto& rng) {
        const bool slow = std::bernoulli_distribution(0.02)(rng);
        const double mu = slow ? 40'000'000 : 80'000;
        return std::max<int64_t>(0,
                                 std::llround(std::normal_distribution<double>(mu, mu / 10)(rng)));
      },
      4);
  ExpectPercentilesMatch(Filled(bimodal), bimodal);
}

TEST(HdrHistogramTest, PercentilesForTinySampleCounts) {
  for (size_t n : {1, 2, 3, 7, 10, 999, 1000, 1001, 10'000}) {
    SCOPED_TRACE(testing::Message() << "n=" << n);
    const auto samples = Draw(
        n, [](auto& rng) { return LogUniform(rng, 1, 1e9); }, n);
    ExpectPercentilesMatch(Filled(samples), samples);
  }
}

// Where buckets have width 1 the percentiles are the exact order statistics.
void ExpectExactPercentiles(const HdrHistogram& h, std::vector<int64_t> samples) {
  std::sort(samples.begin(), samples.end());
  for (int64_t p_x100 : kPercentilesX100) {
    EXPECT_EQ(h.ValueAtPercentile(p_x100 / 100.0), ExactAtPercentile(samples, p_x100))
        << "p=" << p_x100 / 100.0;
  }
}

TEST(HdrHistogramTest, SmallValuesAreExact) {
  for (size_t n : {1, 10, 1000, 100'000}) {
    const auto below_2048 = Draw(
        n, [](auto& rng) { return std::uniform_int_distribution<int64_t>(0, 2047)(rng); }, 5 + n);
    ExpectExactPercentiles(Filled(below_2048), below_2048);
    // 0..5000 needs 4 significant figures to be exact (3 give width 2 above 2047).
    const auto below_5000 = Draw(
        n, [](auto& rng) { return std::uniform_int_distribution<int64_t>(0, 5000)(rng); }, 6 + n);
    HdrHistogram h4(1, kHour, 4);
    for (int64_t v : below_5000) h4.Record(v);
    ExpectExactPercentiles(h4, below_5000);
  }
}

TEST(HdrHistogramTest, ConstantValueGivesExactValueEverywhere) {
  HdrHistogram h;
  h.RecordN(123'456'789, 1000);
  for (double p : {0.0, 1.0, 50.0, 99.999, 100.0}) EXPECT_EQ(h.ValueAtPercentile(p), 123'456'789);
  EXPECT_DOUBLE_EQ(h.mean(), 123'456'789.0);
  EXPECT_EQ(h.total_count(), 1000);
}

TEST(HdrHistogramTest, PercentileRankUsesCeiling) {
  HdrHistogram h;
  for (int64_t v = 1; v <= 1000; ++v) h.Record(v);
  EXPECT_EQ(h.ValueAtPercentile(99.9), 999);  // rank 999, not 1000
  EXPECT_EQ(h.ValueAtPercentile(0.1), 1);
  EXPECT_EQ(h.ValueAtPercentile(0.1001), 2);  // rank ceil(1.001) = 2
  EXPECT_EQ(h.ValueAtPercentile(50.0), 500);
  EXPECT_EQ(h.ValueAtPercentile(50.05), 501);
}

TEST(HdrHistogramTest, ZeroPercentileIsExactMin) {
  HdrHistogram h;
  h.Record(5000);
  h.Record(3000);  // held by [3000, 3001]
  EXPECT_EQ(h.ValueAtPercentile(0), 3000);
  EXPECT_EQ(h.ValueAtPercentile(50), 3001);
  EXPECT_EQ(h.ValueAtPercentile(100), 5000);
}

TEST(HdrHistogramTest, MeanAndStddevApproximateExact) {
  const auto samples = Draw(
      100'000, [](auto& rng) { return LogUniform(rng, 1000, 1e8); }, 7);
  const HdrHistogram h = Filled(samples);
  double sum = 0;
  for (int64_t v : samples) sum += static_cast<double>(v);
  const double mean = sum / static_cast<double>(samples.size());
  double sq = 0;
  for (int64_t v : samples) sq += (static_cast<double>(v) - mean) * (static_cast<double>(v) - mean);
  const double stddev = std::sqrt(sq / static_cast<double>(samples.size()));
  EXPECT_NEAR(h.mean(), mean, 1e-3 * mean);
  EXPECT_NEAR(h.stddev(), stddev, 1e-3 * stddev);
}

void ExpectSameHistogram(const HdrHistogram& a, const HdrHistogram& b) {
  ASSERT_EQ(a.counts_len(), b.counts_len());
  for (int i = 0; i < a.counts_len(); ++i) ASSERT_EQ(a.count_at_index(i), b.count_at_index(i)) << i;
  EXPECT_EQ(a.total_count(), b.total_count());
  EXPECT_EQ(a.saturated(), b.saturated());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_DOUBLE_EQ(a.mean(), b.mean());
  EXPECT_DOUBLE_EQ(a.stddev(), b.stddev());
  for (int64_t p_x100 : kPercentilesX100) {
    EXPECT_EQ(a.ValueAtPercentile(p_x100 / 100.0), b.ValueAtPercentile(p_x100 / 100.0));
  }
}

TEST(HdrHistogramTest, AddOfTwoHalvesEqualsWhole) {
  auto samples = Draw(
      50'000, [](auto& rng) { return LogUniform(rng, 1, kHour); }, 8);
  samples.push_back(kHour * 2);  // one saturated value in the second half
  const HdrHistogram whole = Filled(samples);
  const size_t half = samples.size() / 2;
  HdrHistogram first = Filled({samples.begin(), samples.begin() + half});
  const HdrHistogram second = Filled({samples.begin() + half, samples.end()});
  first.Add(second);
  ExpectSameHistogram(first, whole);
  EXPECT_EQ(first.saturated(), 1);
}

TEST(HdrHistogramTest, AddOfEmptyKeepsAndIntoEmptyCopies) {
  const HdrHistogram full = Filled({5, 70, 9000});
  HdrHistogram a = full;
  a.Add(HdrHistogram());
  ExpectSameHistogram(a, full);
  HdrHistogram b;
  b.Add(full);
  ExpectSameHistogram(b, full);
}

TEST(HdrHistogramTest, SaturatesAboveHighestTrackable) {
  HdrHistogram h(1, 1'000'000, 3);
  h.Record(500);
  h.Record(1'000'000);  // at the limit: not saturated
  h.Record(1'000'001);
  h.RecordN(INT64_MAX, 3);
  EXPECT_EQ(h.saturated(), 4);
  EXPECT_EQ(h.total_count(), 6);
  EXPECT_EQ(h.max(), 1'000'000);
  EXPECT_EQ(h.ValueAtPercentile(100), 1'000'000);
  EXPECT_EQ(h.ValueAtPercentile(50), 1'000'000);
  EXPECT_EQ(h.count_at_index(h.CountsIndexFor(1'000'000)), 5);
}

TEST(HdrHistogramTest, NegativeValuesRecordAsZero) {
  HdrHistogram h;
  h.Record(-5);
  h.Record(10);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.count_at_index(0), 1);
  EXPECT_EQ(h.ValueAtPercentile(50), 0);
  EXPECT_EQ(h.saturated(), 0);
}

void ExpectEmpty(const HdrHistogram& h) {
  EXPECT_EQ(h.total_count(), 0);
  EXPECT_EQ(h.saturated(), 0);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.stddev(), 0.0);
  for (double p : {0.0, 50.0, 99.9, 100.0}) EXPECT_EQ(h.ValueAtPercentile(p), 0);
  for (int i = 0; i < h.counts_len(); ++i) ASSERT_EQ(h.count_at_index(i), 0);
}

TEST(HdrHistogramTest, EmptyHistogram) { ExpectEmpty(HdrHistogram()); }

TEST(HdrHistogramTest, ResetEmpties) {
  HdrHistogram h = Filled({1, 2, 3'000'000, kHour * 5});
  h.Reset();
  ExpectEmpty(h);
  h.Record(42);
  EXPECT_EQ(h.min(), 42);
  EXPECT_EQ(h.max(), 42);
}

// Record has its own inline copy of the index arithmetic: it must put every value where
// RecordN does, for every geometry.
TEST(HdrHistogramTest, RecordPutsEveryValueWhereRecordNDoes) {
  std::mt19937_64 rng(7);
  for (int sig = 1; sig <= 5; ++sig) {
    for (int64_t lo : {int64_t{1}, int64_t{7}, int64_t{1000}}) {
      SCOPED_TRACE(testing::Message() << "sig=" << sig << " lo=" << lo);
      HdrHistogram a(lo, kHour, sig), b(lo, kHour, sig);
      std::vector<int64_t> values = {-5, 0, 1, lo, 2047, 2048, kHour, kHour + 1, INT64_MAX};
      for (int i = 0; i < 20'000; ++i) values.push_back(LogUniform(rng, 1, kHour));
      for (int64_t v : values) {
        a.Record(v);
        b.RecordN(v, 1);
      }
      ExpectSameHistogram(a, b);
    }
  }
}

TEST(HdrHistogramTest, RecordNEqualsRepeatedRecord) {
  HdrHistogram a, b;
  a.RecordN(777'777, 5);
  a.RecordN(3, 0);  // records nothing
  for (int i = 0; i < 5; ++i) b.Record(777'777);
  ExpectSameHistogram(a, b);
}

// Copy, assignment, Add and Reset visit only the indexes between min and max: every
// count must still arrive, and nothing a reused array held before may stay behind.
TEST(HdrHistogramTest, CopiesAndAssignmentsCarryEveryCountAndNothingStale) {
  // Arrays under 64 KB come from calloc, larger ones are mapped (hdr_histogram.cc
  // kMapBytes): hi = 10'000 at 3 digits is 5 * 1024 counts (40 KB), kHour 43 * 1024.
  constexpr size_t kMapBytes = 64 * 1024;
  for (int64_t hi : {int64_t{10'000}, kHour}) {
    SCOPED_TRACE(testing::Message() << "highest=" << hi);
    HdrHistogram ref(1, hi, 3);
    const size_t bytes = static_cast<size_t>(ref.counts_len()) * sizeof(int64_t);
    if (hi == kHour) {
      ASSERT_GE(bytes, kMapBytes);
    } else {
      ASSERT_LT(bytes, kMapBytes);
    }
    for (int64_t v : {int64_t{-3}, int64_t{0}, int64_t{1}, int64_t{999}, hi / 3, hi, hi + 5}) {
      ref.RecordN(v, 2);
    }
    const HdrHistogram copy(ref);
    ExpectSameHistogram(copy, ref);

    HdrHistogram reused(1, hi, 3);  // same geometry, other values: reuses its array
    reused.RecordN(hi / 2, 9);
    reused.RecordN(7, 1);
    reused = ref;
    ExpectSameHistogram(reused, ref);

    // Equal counts_len, other geometry: the array is reused, the geometry must not be.
    // (1, hi, 3) and (2, 2 * hi, 3) have the same bucket count at another unit.
    HdrHistogram same_len(2, 2 * hi, 3);
    ASSERT_EQ(same_len.counts_len(), ref.counts_len());
    same_len.RecordN(hi / 7, 3);
    same_len.RecordN(2 * hi - 1, 4);
    same_len.RecordN(4 * hi, 1);  // saturated
    same_len = ref;
    ExpectSameHistogram(same_len, ref);
    HdrHistogram ref_plus = ref;  // and it records as ref does: ref's geometry
    for (int64_t v : {int64_t{1}, int64_t{3}, hi / 2 + 1, hi + 1}) {
      same_len.Record(v);
      ref_plus.Record(v);
    }
    ExpectSameHistogram(same_len, ref_plus);

    HdrHistogram other_geometry(1, hi * 4, 2);
    other_geometry.Record(12345);
    other_geometry = ref;
    ExpectSameHistogram(other_geometry, ref);

    HdrHistogram moved(std::move(other_geometry));
    ExpectSameHistogram(moved, ref);
    other_geometry = ref;  // a moved-from histogram takes an assignment
    ExpectSameHistogram(other_geometry, ref);

    HdrHistogram target(1, hi, 3);
    target.Record(hi / 5);
    target = std::move(moved);
    ExpectSameHistogram(target, ref);

    HdrHistogram narrow(1, hi, 3);  // Add of a wider range into a narrower one
    narrow.Record(500);
    narrow.Add(ref);
    HdrHistogram expected = ref;
    expected.Record(500);
    ExpectSameHistogram(narrow, expected);
    narrow.Reset();
    ExpectEmpty(narrow);
  }
}

// Freed mapped arrays are kept for the next histogram of their length (hdr_histogram.cc
// SpareArrays): whatever the last owner recorded, saturated or of another geometry with
// the same length, a new histogram starts with every count zero.
TEST(HdrHistogramTest, ANewHistogramStartsEmptyWhateverTheLastOwnerOfItsArrayRecorded) {
  for (int round = 0; round < 3; ++round) {
    {
      std::vector<HdrHistogram> owners;
      for (int i = 0; i < 12; ++i) {  // more than are kept
        owners.emplace_back(i % 2 == 0 ? 1 : 2, i % 2 == 0 ? kHour : 2 * kHour, 3);
        for (int64_t v : {int64_t{1}, int64_t{999}, kHour / 3 + i, kHour, 4 * kHour}) {
          owners.back().RecordN(v, i + 1);
        }
      }
      HdrHistogram moved_from(1, kHour, 3);
      moved_from.Record(77);
      HdrHistogram taker(std::move(moved_from));
    }
    for (int i = 0; i < 12; ++i) {
      HdrHistogram h(i % 2 == 0 ? 1 : 2, i % 2 == 0 ? kHour : 2 * kHour, 3);
      SCOPED_TRACE(testing::Message() << "round " << round << " histogram " << i);
      ExpectEmpty(h);  // every count too
      h.Record(5000);
      EXPECT_EQ(h.total_count(), 1);
      EXPECT_EQ(h.ValueAtPercentile(50), 5000);
    }
  }
}

}  // namespace
}  // namespace memstand
