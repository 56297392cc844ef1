#include "stats/encoded_histogram.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(EncodedHistogram, RoundTripsEveryBucketAndTheExtremes) {
  HdrHistogram h;
  for (int64_t v = 1000; v < 2'000'000; v = v * 3 / 2 + 7) h.RecordN(v, v % 5 + 1);
  const EncodedHistogram e = EncodeHistogram(h);
  EXPECT_EQ(e.count, h.total_count());
  EXPECT_EQ(e.min, 1000);
  EXPECT_EQ(e.max, h.max());
  auto back = DecodeHistogram(e);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->total_count(), h.total_count());
  EXPECT_EQ(back->min(), h.min());
  EXPECT_EQ(back->max(), h.max());
  for (double p : {0.0, 10.0, 50.0, 90.0, 99.0, 99.9, 100.0}) {
    EXPECT_EQ(back->ValueAtPercentile(p), h.ValueAtPercentile(p)) << p;
  }
  for (int i = 0; i < h.counts_len(); ++i) ASSERT_EQ(back->count_at_index(i), h.count_at_index(i));
}

TEST(EncodedHistogram, AnEmptyHistogramRoundTrips) {
  auto back = DecodeHistogram(EncodeHistogram(HdrHistogram()));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->total_count(), 0);
}

TEST(EncodedHistogram, RefusesNoDataAndAWrongCount) {
  EXPECT_FALSE(DecodeHistogram(EncodedHistogram{}).ok());
  HdrHistogram h;
  h.RecordN(5000, 3);
  EncodedHistogram e = EncodeHistogram(h);
  e.count = 4;
  auto back = DecodeHistogram(e);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("count 4 but the data hold 3"), std::string::npos);
}

}  // namespace
}  // namespace memstand
