#include "util/parse.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(ParseDuration, Units) {
  EXPECT_DOUBLE_EQ(*ParseDurationSeconds("30s"), 30);
  EXPECT_DOUBLE_EQ(*ParseDurationSeconds("500ms"), 0.5);
  EXPECT_DOUBLE_EQ(*ParseDurationSeconds("2m"), 120);
  EXPECT_DOUBLE_EQ(*ParseDurationSeconds("1h"), 3600);
  EXPECT_DOUBLE_EQ(*ParseDurationSeconds("250us"), 250e-6);
  EXPECT_DOUBLE_EQ(*ParseDurationSeconds("1.5"), 1.5);
  EXPECT_DOUBLE_EQ(*ParseDurationSeconds("0"), 0);
  EXPECT_DOUBLE_EQ(*ParseDurationSeconds("1m30s"), 90);
  EXPECT_DOUBLE_EQ(*ParseDurationSeconds("1h2m3.5s"), 3723.5);
  EXPECT_DOUBLE_EQ(*ParseDurationSeconds("1s500ms"), 1.5);
  EXPECT_DOUBLE_EQ(*ParseDurationSeconds("2ms250us"), 2.25e-3);
}

TEST(ParseDuration, Errors) {
  for (const char* bad : {"", "s", "-1s", "10x", "abc", "1.2.3s", "ms", "30s1m", "1m1m", "1m30", "1 m", "m30s"}) {
    auto r = ParseDurationSeconds(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("bad duration"), std::string::npos);
  }
}

TEST(ParseByteSize, UnitsAndErrors) {
  EXPECT_EQ(*ParseByteSize("100"), 100u);
  EXPECT_EQ(*ParseByteSize("4K"), 4096u);
  EXPECT_EQ(*ParseByteSize("4KiB"), 4096u);
  EXPECT_EQ(*ParseByteSize("1M"), 1u << 20);
  EXPECT_EQ(*ParseByteSize("4KB"), 4096u);
  EXPECT_EQ(*ParseByteSize("1MB"), 1u << 20);
  EXPECT_EQ(*ParseByteSize("1GiB"), 1u << 30);
  EXPECT_EQ(*ParseByteSize("2gb"), 2ull << 30);
  for (const char* bad : {"", "0", "-5", "2TB", "k", "12.5", "1025G", "4 KB"}) {
    EXPECT_FALSE(ParseByteSize(bad).ok()) << bad;
  }
  auto r = ParseByteRange("100-1K");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->first, 100u);
  EXPECT_EQ(r->second, 1024u);
  EXPECT_FALSE(ParseByteRange("200-100").ok());
  EXPECT_FALSE(ParseByteRange("200").ok());
}

TEST(ParsePercentiles, SortsAndRejects) {
  auto r = ParsePercentiles("99,50,99.9,50");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<double>{50, 99, 99.9}));
  for (const char* bad : {"", "0", "101", "50,,99", "x"}) {
    EXPECT_FALSE(ParsePercentiles(bad).ok()) << bad;
  }
}

TEST(ParseIncreasingList, ValuesAndErrors) {
  EXPECT_EQ(*ParseIncreasingList("1,2,4,8"), (std::vector<uint64_t>{1, 2, 4, 8}));
  EXPECT_EQ(*ParseIncreasingList("5000"), (std::vector<uint64_t>{5000}));
  for (const char* bad : {"", "0", "1,1", "4,2", "1,,2", "1,2,", "-1", "1.5", "x", "1, 2"}) {
    auto r = ParseIncreasingList(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("increasing positive"), std::string::npos);
  }
}

}  // namespace
}  // namespace memstand
