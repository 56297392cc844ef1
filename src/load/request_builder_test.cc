#include "load/request_builder.h"

#include <gtest/gtest.h>

#include <string>

#include "load/cluster_map.h"
#include "util/rng.h"

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

std::string EncodeReference(const std::vector<std::string>& args) {
  std::string s = "*" + std::to_string(args.size()) + "\r\n";
  for (const auto& a : args) s += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return s;
}

// Templates of the fast shape (literals, __key__, maybe __data__) and of the general one
// give the reference bytes for every length class of head, prefix, key and data, in
// one buffer appended to many times (the fast path copies fixed-size blocks past the
// request's end: they must never clobber what was written before).
TEST(RequestBuilder, FastAndGeneralShapesGiveTheReferenceBytes) {
  struct Case {
    std::string tmpl;
    std::vector<std::string> literals;  // leading literal arguments
    bool data;
  };
  const std::vector<Case> cases = {
      {"get __key__", {"get"}, false},
      {"set __key__ __data__", {"set"}, true},
      {"hset h field __key__", {}, false},  // general: the key is not second
      {"setex_with_a_long_name_abcdefgh 1 __key__ __data__",  // head longer than 32 bytes
       {"setex_with_a_long_name_abcdefgh", "1"}, true},
      {"set x __key__ __data__", {"set", "x"}, true},
  };
  const std::vector<std::string> prefixes = {"", "k", "memtier-", "0123456789abcdef",
                                             "0123456789abcdefg"};
  const std::vector<uint64_t> keys = {0, 9, 10, 12345, 99999999, UINT64_MAX};
  const std::vector<size_t> sizes = {0, 1, 100, 4095, 4096, 70000};
  for (const auto& c : cases) {
    for (const auto& prefix : prefixes) {
      RequestBuilder b(Parse(c.tmpl), prefix);
      Buffer out(1);
      std::string want;
      for (uint64_t key : keys) {
        for (size_t size : sizes) {
          const std::string data(size, static_cast<char>('a' + size % 26));
          std::vector<std::string> args = c.literals;
          if (c.tmpl.starts_with("hset")) args = {"hset", "h", "field"};
          args.push_back(prefix + std::to_string(key));
          if (c.data) args.push_back(data);
          want += EncodeReference(args);
          size_t n = b.Append(&out, key, data);
          EXPECT_EQ(n, EncodeReference(args).size()) << c.tmpl << " " << prefix << " " << key;
        }
      }
      EXPECT_TRUE(out.View() == want) << c.tmpl << " with prefix '" << prefix << "'";
    }
  }
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
  // The prefix's CRC continued over the digits (the common case) against the whole key.
  for (uint64_t key : {0ULL, 9ULL, 10ULL, 12345ULL, 99999ULL, 18446744073709551615ULL}) {
    EXPECT_EQ(plain.Slot(key, ""), KeySlot("memtier-" + std::to_string(key))) << key;
  }
  RequestBuilder tag_prefix(Parse("get __key__"), "{user}:");  // '{' in the prefix: the slow way
  EXPECT_EQ(tag_prefix.Slot(5, ""), KeySlot("user"));
  EXPECT_EQ(Crc16("456", Crc16("123")), Crc16("123456"));
}

}  // namespace
}  // namespace memstand
