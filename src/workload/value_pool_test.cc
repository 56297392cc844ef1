#include "workload/value_pool.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <cmath>
#include <vector>

namespace memstand {
namespace {

using Content = ValueSpec::Content;

ValueSpec SpecOf(Content content, size_t min_size, size_t max_size, double ratio = 1.0) {
  ValueSpec spec;
  spec.content = content;
  spec.min_size = min_size;
  spec.max_size = max_size;
  spec.compress_ratio = ratio;
  return spec;
}

// Total input bytes over total zstd-compressed bytes for `draws` picks at `level`.
double MeasuredRatio(const ValuePool& pool, int level, int draws = 300) {
  Rng rng(77);
  std::vector<char> out(ZSTD_compressBound(pool.spec().max_size));
  double in_bytes = 0, out_bytes = 0;
  for (int i = 0; i < draws; ++i) {
    const std::string_view value = pool.Pick(rng, 0);
    const size_t n = ZSTD_compress(out.data(), out.size(), value.data(), value.size(), level);
    EXPECT_FALSE(ZSTD_isError(n)) << ZSTD_getErrorName(n);
    in_bytes += static_cast<double>(value.size());
    out_bytes += static_cast<double>(n);
  }
  return in_bytes / out_bytes;
}

void ExpectInvalid(const ValueSpec& spec, const std::string& words) {
  const Status status = ValidateValueSpec(spec);
  ASSERT_FALSE(status.ok()) << words;
  EXPECT_EQ(status.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(status.message().find(words), std::string::npos) << status.message();
}

TEST(ValidateValueSpecTest, AcceptsSensibleSpecs) {
  EXPECT_TRUE(ValidateValueSpec(ValueSpec()).ok());
  EXPECT_TRUE(ValidateValueSpec(SpecOf(Content::kRandom, 1, 512 << 20)).ok());
  EXPECT_TRUE(ValidateValueSpec(SpecOf(Content::kCompressible, 10, 10, 3.5)).ok());
}

TEST(ValidateValueSpecTest, RejectsBadSizesAndRatios) {
  ExpectInvalid(SpecOf(Content::kPattern, 0, 10), "at least 1 byte");
  ExpectInvalid(SpecOf(Content::kPattern, 1, (512 << 20) + 1), "512 MiB");
  ExpectInvalid(SpecOf(Content::kPattern, 100, 10), "min 100 > max 10");
  ExpectInvalid(SpecOf(Content::kCompressible, 10, 10, 0.5), "ratio must be");
  ExpectInvalid(SpecOf(Content::kCompressible, 10, 10, std::nan("")), "ratio must be");
  ExpectInvalid(SpecOf(Content::kCompressible, 10, 10, HUGE_VAL), "ratio must be");
}

TEST(ValuePoolTest, SizesStayInRangeAndCoverIt) {
  ValuePool pool(SpecOf(Content::kRandom, 10, 20), 1);
  Rng rng(2);
  std::vector<int> seen(21);
  for (int i = 0; i < 10000; ++i) {
    const size_t size = pool.Pick(rng, 0).size();
    ASSERT_GE(size, 10u);
    ASSERT_LE(size, 20u);
    ++seen[size];
  }
  for (size_t size = 10; size <= 20; ++size) EXPECT_GT(seen[size], 700) << size;
}

TEST(ValuePoolTest, FixedSizeAndSingleByte) {
  for (size_t size : {size_t{1}, size_t{32}, size_t{100000}}) {
    ValuePool pool(SpecOf(Content::kPattern, size, size), 1);
    Rng rng(3);
    for (int i = 0; i < 100; ++i) ASSERT_EQ(pool.Pick(rng, 0).size(), size);
  }
}

TEST(ValuePoolTest, ValuesComeFromDifferentOffsets) {
  ValuePool pool(SpecOf(Content::kRandom, 64, 64), 1);
  Rng rng(4);
  const std::string_view first = pool.Pick(rng, 0);
  int same = 0;
  for (int i = 0; i < 100; ++i) same += pool.Pick(rng, 0) == first;
  EXPECT_LT(same, 3);
}

TEST(ValuePoolTest, SameSeedSameValues) {
  const ValueSpec spec = SpecOf(Content::kCompressible, 100, 5000, 2.0);
  ValuePool a(spec, 9), b(spec, 9), other(spec, 10);
  Rng ra(5), rb(5), rother(5);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const std::string_view va = a.Pick(ra, 0);
    EXPECT_EQ(va, b.Pick(rb, 0));
    differs |= va != other.Pick(rother, 0);
  }
  EXPECT_TRUE(differs);
}

TEST(ValuePoolTest, RandomContentDoesNotCompress) {
  ValuePool pool(SpecOf(Content::kRandom, 4096, 4096), 1);
  for (int level : {1, 3}) EXPECT_LE(MeasuredRatio(pool, level), 1.0 / 0.98) << level;
}

TEST(ValuePoolTest, PatternContentCompressesWell) {
  ValuePool pool(SpecOf(Content::kPattern, 4096, 4096), 1);
  for (int level : {1, 3}) EXPECT_GT(MeasuredRatio(pool, level), 10.0) << level;
}

TEST(ValuePoolTest, CompressibleContentMeetsTheRatio) {
  for (double ratio : {1.0, 2.0, 4.0}) {
    ValuePool pool(SpecOf(Content::kCompressible, 4096, 4096, ratio), 1);
    for (int level : {1, 2, 3}) {
      EXPECT_NEAR(MeasuredRatio(pool, level), ratio, 0.25 * ratio)
          << "ratio " << ratio << " level " << level;
    }
  }
}

TEST(ValuePoolTest, HighRatiosHoldForLargerValues) {
  for (double ratio : {10.0, 20.0}) {
    ValuePool pool(SpecOf(Content::kCompressible, 65536, 65536, ratio), 1);
    EXPECT_NEAR(MeasuredRatio(pool, 1, 50), ratio, 0.25 * ratio) << ratio;
  }
}

}  // namespace
TEST(ValuePoolTest, KeyedValuesGiveEachKeyItsOwnBytes) {
  auto table = std::make_shared<KeyedValues>(5);
  table->Add("five");
  table->Add("six!!");
  table->Add("");
  ValueSpec spec;
  spec.keyed = table;
  ASSERT_TRUE(ValidateValueSpec(spec).ok());
  ValuePool pool(spec, 1);
  Rng rng(1);
  EXPECT_EQ(pool.Pick(rng, 6), "six!!");
  EXPECT_EQ(pool.Pick(rng, 5), "five");
  EXPECT_EQ(pool.Pick(rng, 7), "");
  EXPECT_EQ(table->last(), 7u);
  EXPECT_EQ(table->max_size(), 5u);
  ValueSpec empty;
  empty.keyed = std::make_shared<KeyedValues>(1);
  EXPECT_FALSE(ValidateValueSpec(empty).ok());
}

}  // namespace memstand
