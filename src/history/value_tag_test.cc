// The value tag: (client, seq) at the start of a value, read back, and "not ours" for
// every other byte string.
#include "history/value_tag.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "history/record.h"
#include "util/rng.h"

namespace memstand::history {
namespace {

TEST(ValueTag, ReadsBackWhatItStamped) {
  auto v = TaggedValue(0x1234, 3, 7, 64);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->size(), 64u);
  EXPECT_EQ(v->substr(0, kValueTagSize), "ms1:00000003:00000007:7f5d5de7;");  // docs/history.md's check
  EXPECT_EQ(v->substr(kValueTagSize), std::string(64 - kValueTagSize, '.'));
  EXPECT_EQ(ReadValueTag(0x1234, *v), ValueId(3, 7));
  // The extremes of both numbers, and a value exactly the tag's size.
  auto edge = TaggedValue(0, UINT32_MAX, 0, kValueTagSize);
  ASSERT_TRUE(edge.ok());
  EXPECT_EQ(ReadValueTag(0, *edge), ValueId(UINT32_MAX, 0));
  EXPECT_EQ(edge->substr(0, 22), "ms1:ffffffff:00000000:");
  // Every hex digit, in order.
  auto digits = TaggedValue(0, 0x01234567, 0x89abcdef, kValueTagSize);
  ASSERT_TRUE(digits.ok());
  EXPECT_EQ(*digits, "ms1:01234567:89abcdef:ebb5112c;");
}

// The digits, however they are made (value_tag.cc), are each number's in lower-case hex,
// most significant first, for numbers with every digit and byte in every place.
TEST(ValueTag, TheDigitsAreTheNumbersInLowerCaseHex) {
  Rng rng(29);
  for (int i = 0; i < 10000; ++i) {
    const auto run_tag = static_cast<uint32_t>(rng.Next());
    const auto client = static_cast<uint32_t>(rng.Next());
    const auto seq = static_cast<uint32_t>(rng.Next() >> (i % 32));
    char value[kValueTagSize];
    StampValueTag(run_tag, client, seq, value, sizeof(value));
    const std::string tag(value, sizeof(value));
    ASSERT_EQ(tag.substr(0, 22), fmt::format("ms1:{:08x}:{:08x}:", client, seq)) << tag;
    ASSERT_EQ(tag.find_first_not_of("0123456789abcdef", 22), 30u) << tag;
    ASSERT_EQ(ReadValueTag(run_tag, tag), ValueId(client, seq)) << tag;
  }
}

TEST(ValueTag, StampsOverAValueInPlace) {
  std::string pooled(100, 'x');
  StampValueTag(9, 1, 2, pooled.data(), pooled.size());
  EXPECT_EQ(ReadValueTag(9, pooled), ValueId(1, 2));
  EXPECT_EQ(pooled.substr(kValueTagSize), std::string(100 - kValueTagSize, 'x'));
}

TEST(ValueTag, AValueTooSmallForItIsRefused) {
  auto v = TaggedValue(1, 1, 1, kValueTagSize - 1);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "a value of 30 bytes cannot carry its tag (31 bytes at least)");
}

TEST(ValueTag, AnyOtherBytesAreNotOurs) {
  const std::string tag = *TaggedValue(5, 3, 7, kValueTagSize);
  EXPECT_EQ(ReadValueTag(6, tag), std::nullopt);  // another run's
  EXPECT_EQ(ReadValueTag(5, ""), std::nullopt);
  EXPECT_EQ(ReadValueTag(5, tag.substr(0, kValueTagSize - 1)), std::nullopt);
  EXPECT_EQ(ReadValueTag(5, std::string(64, 'x')), std::nullopt);
  EXPECT_EQ(ReadValueTag(5, "ms1:0000000G:00000007:00000000;"), std::nullopt);
  // Every change of one byte of the tag (upper-case hex included) reads as not ours.
  for (size_t i = 0; i < kValueTagSize; ++i) {
    for (int b = 0; b < 256; ++b) {
      if (static_cast<char>(b) == tag[i]) continue;
      std::string changed = tag;
      changed[i] = static_cast<char>(b);
      ASSERT_EQ(ReadValueTag(5, changed), std::nullopt) << "byte " << i << " = " << b;
    }
  }
}

}  // namespace
}  // namespace memstand::history
