#include "stats/hdr_decode.h"

#include <zlib.h>

#include <gtest/gtest.h>

#include "stats/hdr_log.h"
#include "util/base64.h"
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

// ZigZag LEB128-64b9B, as the V2 encoding writes a count (stats/hdr_log.h).
std::string V2CountBytes(int64_t n) {
  uint64_t v = (static_cast<uint64_t>(n) << 1) ^ static_cast<uint64_t>(n >> 63);
  std::string out;
  for (int i = 0; i < 8; ++i) {
    if (v < 0x80) {
      out.push_back(static_cast<char>(v));
      return out;
    }
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

void PutBig(uint64_t v, int bytes, std::string* out) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// A V2 compressed base64 histogram (1..3.6e12 ns, 3 figures) whose counts are `payload`.
std::string HandMade(const std::string& payload) {
  std::string v2;
  PutBig(kHdrV2EncodingCookie, 4, &v2);
  PutBig(payload.size(), 4, &v2);
  PutBig(0, 4, &v2);
  PutBig(3, 4, &v2);
  PutBig(1, 8, &v2);
  PutBig(3'600'000'000'000ULL, 8, &v2);
  PutBig(0x3ff0000000000000ULL, 8, &v2);  // conversion ratio 1.0
  v2 += payload;
  uLongf size = compressBound(v2.size());
  std::string z(size, '\0');
  EXPECT_EQ(compress(reinterpret_cast<Bytef*>(z.data()), &size, reinterpret_cast<const Bytef*>(v2.data()),
                     v2.size()), Z_OK);
  z.resize(size);
  std::string wrapped;
  PutBig(kHdrV2CompressedEncodingCookie, 4, &wrapped);
  PutBig(z.size(), 4, &wrapped);
  return Base64Encode(wrapped + z);
}

// A zero run of INT64_MIN overflowed the bucket index; counts summing past 2^63 the
// histogram's total (UBSan: signed overflow).
TEST(HdrDecodeTest, RefusesZeroRunsAndCountsThatWouldOverflow) {
  auto ok = DecodeCompressedV2Base64(HandMade(V2CountBytes(-5) + V2CountBytes(2)), 5, 5);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->total_count(), 2);
  auto run = DecodeCompressedV2Base64(HandMade(V2CountBytes(INT64_MIN) + V2CountBytes(1)), 5, 5);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().message(), "histogram: counts go past the histogram's range");
  const int64_t big = int64_t{1} << 52;
  auto sum = DecodeCompressedV2Base64(HandMade(V2CountBytes(big) + V2CountBytes(big) + V2CountBytes(1)), 0, 2);
  ASSERT_FALSE(sum.ok());
  EXPECT_EQ(sum.status().message(), "histogram: the counts add up past 2^53");
}

// One value in one wide bucket: min and max are that value, so a min and a max that differ
// cannot both be true (found by the fuzzer: the decoded max was min's).
TEST(HdrDecodeTest, OneValueNeedsMinEqualToMax) {
  const HdrHistogram shape(1, 3'600'000'000'000LL, 3);
  const int index = shape.CountsIndexFor(1'000'000);
  const int64_t low = shape.ValueFromIndex(index), high = shape.HighestEquivalentValue(low);
  ASSERT_LT(low, high);
  auto one = DecodeCompressedV2Base64(HandMade(V2CountBytes(-index) + V2CountBytes(1)), low, high);
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.status().message(), "histogram: one value, but min and max differ");
  auto same = DecodeCompressedV2Base64(HandMade(V2CountBytes(-index) + V2CountBytes(1)), high, high);
  ASSERT_TRUE(same.ok()) << same.status().message();
  EXPECT_EQ(same->min(), high);
  auto two = DecodeCompressedV2Base64(HandMade(V2CountBytes(-index) + V2CountBytes(2)), low, high);
  ASSERT_TRUE(two.ok()) << two.status().message();
  EXPECT_EQ(two->min(), low);
  EXPECT_EQ(two->max(), high);
  EXPECT_EQ(two->total_count(), 2);
}

}  // namespace
}  // namespace memstand
