#include "load/request_builder.h"

#include <gtest/gtest.h>

#include <string>

#include "load/cluster_map.h"
#include "workload/rng.h"

namespace memstand {
namespace {

TEST(FormatUint, MatchesToString) {
  char buf[24];
  std::vector<uint64_t> values = {0, 1, 9, 10, 99, 100, 101, 999, 1000, 65535, UINT64_MAX,
                                  UINT64_MAX / 10, 10000000000000000000ULL};
  for (uint64_t p = 1; p < UINT64_MAX / 10; p *= 10) {
    values.push_back(p);
    values.push_back(p - 1);
  }
  Rng rng(7);
  for (int i = 0; i < 100000; ++i) values.push_back(rng.Next() >> rng.Uniform(64));
  for (uint64_t v : values) {
    size_t n = FormatUint(v, buf);
    EXPECT_EQ(std::string(buf, n), std::to_string(v));
  }
}

CommandTemplate Parse(const std::string& text) {
  auto t = ParseCommandTemplate(text);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return *t;
}

TEST(RequestBuilder, EncodesKeyAndData) {
  RequestBuilder b(Parse("set __key__ __data__"), "memtier-");
  Buffer out;
  size_t n = b.Append(&out, 42, "hello");
  std::string want = "*3\r\n$3\r\nset\r\n$10\r\nmemtier-42\r\n$5\r\nhello\r\n";
  EXPECT_EQ(std::string(out.View()), want);
  EXPECT_EQ(n, want.size());
}

TEST(RequestBuilder, PlaceholdersInsideArgumentsAndLiterals) {
  RequestBuilder b(Parse("hset \"user:__key__:x\" name __data____data__"), "k");
  EXPECT_EQ(b.Render(7, "ab"), (std::vector<std::string>{"hset", "user:k7:x", "name", "abab"}));
  RequestBuilder fixed(Parse("ping"), "k");
  Buffer out;
  fixed.Append(&out, 1, "");
  fixed.Append(&out, 2, "");
  EXPECT_EQ(std::string(out.View()), "*1\r\n$4\r\nping\r\n*1\r\n$4\r\nping\r\n");
}

TEST(RequestBuilder, AppendsAfterExistingBytesAndGrows) {
  RequestBuilder b(Parse("set __key__ __data__"), "");
  Buffer out(8);
  out.Append("xx");
  std::string big(100000, 'v');
  size_t n = b.Append(&out, 123456789, big);
  EXPECT_EQ(out.Readable(), n + 2);
  EXPECT_EQ(b.Render(123456789, big)[2], big);
  EXPECT_EQ(b.Render(0, "")[1], "0");
}

// The slot is that of the first argument holding __key__, whole (hash tags respected).
TEST(RequestBuilder, SlotOfTheKeyArgument) {
  RequestBuilder plain(Parse("get __key__"), "memtier-");
  EXPECT_EQ(plain.Slot(42, ""), KeySlot("memtier-42"));
  RequestBuilder mixed(Parse("hset \"user:__key__:x\" name __key__"), "k");
  EXPECT_EQ(mixed.Slot(7, "ab"), KeySlot("user:k7:x"));
  RequestBuilder tagged(Parse("set {tag}__key__ __data__"), "k");
  EXPECT_EQ(tagged.Slot(1, "v"), tagged.Slot(999999, "v"));
  EXPECT_EQ(tagged.Slot(1, "v"), KeySlot("tag"));
  RequestBuilder data_in_key(Parse("set __key____data__ x"), "k");
  EXPECT_EQ(data_in_key.Slot(3, std::string(300, 'z')), KeySlot("k3" + std::string(300, 'z')));
  RequestBuilder none(Parse("ping"), "k");
  EXPECT_EQ(none.Slot(1, ""), -1);
}

}  // namespace
}  // namespace memstand
