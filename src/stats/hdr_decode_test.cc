#include "stats/hdr_decode.h"

#include <gtest/gtest.h>

#include "stats/hdr_log.h"
#include "util/rng.h"

namespace memstand {
namespace {

Result<HdrHistogram> RoundTrip(const HdrHistogram& h) {
  return DecodeCompressedV2Base64(EncodeCompressedV2Base64(h), h.min(), h.max());
}

void ExpectSame(const HdrHistogram& a, const HdrHistogram& b) {
  ASSERT_EQ(a.total_count(), b.total_count());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_DOUBLE_EQ(a.mean(), b.mean());
  for (int i = 0; i < a.counts_len(); ++i) ASSERT_EQ(a.count_at_index(i), b.count_at_index(i)) << i;
  for (double p = 0; p <= 100; p += 0.125) {
    ASSERT_EQ(a.ValueAtPercentile(p), b.ValueAtPercentile(p)) << "p" << p;
  }
  for (double p : {99.9, 99.99, 99.999, 99.9999}) EXPECT_EQ(a.ValueAtPercentile(p), b.ValueAtPercentile(p));
}

TEST(HdrDecodeTest, RoundTripsEveryBucketAndTheExactExtremes) {
  HdrHistogram h;
  Rng rng(3);
  for (int i = 0; i < 20000; ++i) h.Record(1000 + static_cast<int64_t>(rng.Uniform(5'000'000)));
  h.Record(123'456'789);  // a lone outlier far up
  auto back = RoundTrip(h);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectSame(h, *back);
  HdrHistogram one;
  one.RecordN(777'777, 3);
  auto single = RoundTrip(one);
  ASSERT_TRUE(single.ok());
  ExpectSame(one, *single);
  HdrHistogram empty;
  auto none = RoundTrip(empty);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->total_count(), 0);
}

// The split sample of a fleet: shards record parts, the merge adds their decoded
// histograms; the result equals one histogram holding every value, at every percentile.
TEST(HdrDecodeTest, MergedSplitSampleEqualsTheWholeSample) {
  HdrHistogram whole, merged;
  std::vector<HdrHistogram> parts(3);
  Rng rng(11);
  for (int i = 0; i < 30000; ++i) {
    const int64_t v = 20'000 + static_cast<int64_t>(rng.Uniform(1 + (i % 7 == 0 ? 80'000'000 : 400'000)));
    whole.Record(v);
    parts[rng.Uniform(3)].Record(v);
  }
  for (const HdrHistogram& p : parts) {
    auto back = RoundTrip(p);
    ASSERT_TRUE(back.ok());
    merged.Add(*back);
  }
  ExpectSame(whole, merged);
}

TEST(HdrDecodeTest, RefusesDamagedInput) {
  HdrHistogram h;
  h.Record(5000);
  h.Record(900000);
  const std::string good = EncodeCompressedV2Base64(h);
  EXPECT_FALSE(DecodeCompressedV2Base64("not base64!", 5000, 900000).ok());
  EXPECT_FALSE(DecodeCompressedV2Base64(good.substr(0, good.size() - 8), 5000, 900000).ok());
  EXPECT_FALSE(DecodeCompressedV2Base64("AAAAAAAAAAA=", 5000, 900000).ok());
  // Extremes that are not in the first/last buckets.
  EXPECT_FALSE(DecodeCompressedV2Base64(good, 4000, 900000).ok());
  EXPECT_FALSE(DecodeCompressedV2Base64(good, 5000, 2'000'000).ok());
  EXPECT_TRUE(DecodeCompressedV2Base64(good, 5000, 900000).ok());
}

}  // namespace
}  // namespace memstand
