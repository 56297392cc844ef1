// The value tag: (client, seq) at the start of a value, read back, and "not ours" for
// every other byte string; version 1's text tags still read.
#include "history/value_tag.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "history/record.h"
#include "util/rng.h"

namespace memstand::history {
namespace {

using namespace std::string_literals;

TEST(ValueTag, ReadsBackWhatItStamped) {
  auto v = TaggedValue(0x1234, 3, 7, 64);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->size(), 64u);
  // docs/history.md's example: client's part 0x3b48a898, check 0x8eccfca7, little-endian.
  EXPECT_EQ(TagClientCheck(TagSalt(0x1234), 3), 0x3b48a898u);
  EXPECT_EQ(v->substr(0, kValueTagSize), "ms2:\x03\0\0\0\x07\0\0\0\xa7\xfc\xcc\x8e"s);
  EXPECT_EQ(v->substr(kValueTagSize), std::string(64 - kValueTagSize, '.'));
  EXPECT_EQ(ReadValueTag(0x1234, *v), ValueId(3, 7));
  // The extremes of both numbers, and a value exactly the tag's size.
  auto edge = TaggedValue(0, UINT32_MAX, 0, kValueTagSize);
  ASSERT_TRUE(edge.ok());
  EXPECT_EQ(ReadValueTag(0, *edge), ValueId(UINT32_MAX, 0));
  EXPECT_EQ(edge->substr(0, 12), "ms2:\xff\xff\xff\xff\0\0\0\0"s);
  auto bytes = TaggedValue(0, 0x01234567, 0x89abcdef, kValueTagSize);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, "ms2:\x67\x45\x23\x01\xef\xcd\xab\x89\x37\x6a\x83\x47"s);
}

// Version 1 (31 bytes of text, written until 2026-12-03): a run of an older memstand
// left them, and `memstand check` reads them back.
TEST(ValueTag, Version1TextTagsStillRead) {
  EXPECT_EQ(ReadValueTag(0x1234, "ms1:00000003:00000007:7f5d5de7;"), ValueId(3, 7));
  EXPECT_EQ(ReadValueTag(0x1234, "ms1:00000003:00000007:7f5d5de7;and the rest"), ValueId(3, 7));
  EXPECT_EQ(ReadValueTag(0, "ms1:ffffffff:00000000:" + fmt::format("{:08x};", TagCheckV1(TagSalt(0), UINT32_MAX, 0))),
            ValueId(UINT32_MAX, 0));
  EXPECT_EQ(ReadValueTag(0, "ms1:01234567:89abcdef:ebb5112c;"), ValueId(0x01234567, 0x89abcdef));
  EXPECT_EQ(ReadValueTag(0x1235, "ms1:00000003:00000007:7f5d5de7;"), std::nullopt);  // another run's
  EXPECT_EQ(ReadValueTag(0x1234, "ms1:00000003:00000007:7f5d5de7"), std::nullopt);   // cut short
  EXPECT_EQ(ReadValueTag(0x1234, "ms1:00000003:00000007:7F5D5DE7;"), std::nullopt);  // upper-case
  EXPECT_EQ(ReadValueTag(5, "ms1:0000000G:00000007:00000000;"), std::nullopt);
}

// Whatever the numbers, a stamp reads back as them, and only with its run's tag.
TEST(ValueTag, EveryNumberReadsBack) {
  Rng rng(29);
  for (int i = 0; i < 10000; ++i) {
    const auto run_tag = static_cast<uint32_t>(rng.Next());
    const auto client = static_cast<uint32_t>(rng.Next());
    const auto seq = static_cast<uint32_t>(rng.Next() >> (i % 32));
    char value[kValueTagSize];
    StampValueTag(TagIds(client, seq), TagClientCheck(TagSalt(run_tag), client), value);
    const std::string tag(value, sizeof(value));
    ASSERT_EQ(tag.substr(0, 4), "ms2:") << tag;
    ASSERT_EQ(ReadValueTag(run_tag, tag), ValueId(client, seq)) << tag;
    ASSERT_EQ(ReadValueTag(run_tag + 1, tag), std::nullopt) << tag;
  }
}

// Version 2's check: any other seq of the same client has another check (the step is
// odd), so a changed seq never reads as ours.
TEST(ValueTag, AnotherSeqAlwaysHasAnotherCheck) {
  const uint32_t part = TagClientCheck(TagSalt(77), 5);
  for (uint32_t seq : {0u, 1u, 2u, 255u, 256u, 65535u, 0x80000000u}) {
    for (uint32_t bit = 0; bit < 32; ++bit) {
      ASSERT_NE(TagCheckV2(part, seq), TagCheckV2(part, seq ^ (1u << bit))) << seq << " bit " << bit;
    }
  }
}

TEST(ValueTag, StampsOverAValueInPlace) {
  std::string pooled(100, 'x');
  StampValueTag(TagIds(1, 2), TagClientCheck(TagSalt(9), 1), pooled.data());
  EXPECT_EQ(ReadValueTag(9, pooled), ValueId(1, 2));
  EXPECT_EQ(pooled.substr(kValueTagSize), std::string(100 - kValueTagSize, 'x'));
}

TEST(ValueTag, AValueTooSmallForItIsRefused) {
  auto v = TaggedValue(1, 1, 1, kValueTagSize - 1);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "a value of 15 bytes cannot carry its tag (16 bytes at least)");
}

TEST(ValueTag, AnyOtherBytesAreNotOurs) {
  const std::string tag = *TaggedValue(5, 3, 7, kValueTagSize);
  EXPECT_EQ(ReadValueTag(6, tag), std::nullopt);  // another run's
  EXPECT_EQ(ReadValueTag(5, ""), std::nullopt);
  EXPECT_EQ(ReadValueTag(5, tag.substr(0, kValueTagSize - 1)), std::nullopt);
  EXPECT_EQ(ReadValueTag(5, std::string(64, 'x')), std::nullopt);
  // Every change of one byte of either version's tag reads as not ours (version 2: of
  // seq or the check, always; of client, unless its check's part happens to match).
  const std::string v1 = "ms1:00000003:00000007:" + fmt::format("{:08x};", TagCheckV1(TagSalt(5), 3, 7));
  ASSERT_EQ(ReadValueTag(5, v1), ValueId(3, 7));
  for (const std::string& t : {tag, v1}) {
    for (size_t i = 0; i < t.size(); ++i) {
      for (int b = 0; b < 256; ++b) {
        if (static_cast<char>(b) == t[i]) continue;
        std::string changed = t;
        changed[i] = static_cast<char>(b);
        ASSERT_EQ(ReadValueTag(5, changed), std::nullopt) << t.substr(0, 4) << " byte " << i << " = " << b;
      }
    }
  }
}

// A tag made the next seq's by one add (the engine's processes keep their next write's
// tag whole) is the tag stamped for that seq, its (client, seq) readable at once.
TEST(ValueTag, NextSeqTagIsTheTagOfTheNextSeq) {
  const uint32_t check = TagClientCheck(TagSalt(11), 42);
  for (const uint32_t first : {1u, 0xfffffff0u}) {
    char tag[kValueTagSize];
    StampValueTag(TagIds(42, first), check, tag);
    for (uint32_t seq = first; seq < first + 14; ++seq) {
      char want[kValueTagSize];
      StampValueTag(TagIds(42, seq), check, want);
      ASSERT_EQ(std::string_view(tag, kValueTagSize), std::string_view(want, kValueTagSize)) << seq;
      ASSERT_EQ(TagIdsOf(tag), TagIds(42, seq));
      ASSERT_EQ(ReadValueTag(11, std::string_view(tag, kValueTagSize)), ValueId(42, seq));
      NextSeqTag(tag);
    }
  }
}

}  // namespace
}  // namespace memstand::history
