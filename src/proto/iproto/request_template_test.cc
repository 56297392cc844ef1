#include "proto/iproto/request_template.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "codec/iproto_values.h"
#include "proto/iproto/iproto.h"
#include "proto/iproto/value.h"

namespace memstand::iproto {
namespace {

using testing::A;
using testing::I;
using testing::S;
using testing::U;

RequestTemplate MustParse(std::string_view text) {
  auto t = RequestTemplate::Parse(text);
  EXPECT_TRUE(t.ok()) << text << ": " << t.status().message();
  return t.ok() ? *t : *RequestTemplate::Parse("ping");
}

std::string Render(const RequestTemplate& t, uint64_t sync, const TemplateArgs& a) {
  Buffer out;
  const size_t n = t.Append(&out, sync, a);
  EXPECT_EQ(n, out.Readable());
  EXPECT_LE(n, t.MaxSize(a));
  return std::string(out.View());
}

// One packet split into header and body (nil when absent), its length prefix checked.
struct DecodedPacket {
  Value header;
  Value body;
};
DecodedPacket DecodePacket(std::string_view bytes) {
  DecodedPacket p;
  EXPECT_GE(bytes.size(), 5u);
  EXPECT_EQ(static_cast<uint8_t>(bytes[0]), 0xce);
  uint32_t len = 0;
  for (int i = 1; i <= 4; ++i) len = (len << 8) | static_cast<uint8_t>(bytes[i]);
  EXPECT_EQ(len, bytes.size() - 5);
  bytes.remove_prefix(5);
  auto header = Decode(&bytes);
  EXPECT_TRUE(header.ok()) << header.status().message();
  if (header.ok()) p.header = *header;
  if (!bytes.empty()) {
    auto body = Decode(&bytes);
    EXPECT_TRUE(body.ok()) << body.status().message();
    if (body.ok()) p.body = *body;
  }
  EXPECT_TRUE(bytes.empty()) << bytes.size() << " bytes after the body";
  return p;
}

// The value of `key` in a decoded map; nil (and a failure) if missing.
Value Field(const Value& map, uint64_t key) {
  for (size_t i = 0; i + 1 < map.items().size(); i += 2) {
    if (map.items()[i] == U(key)) return map.items()[i + 1];
  }
  ADD_FAILURE() << "no key " << key << " in " << ToString(map);
  return Value();
}

// ---- Constant templates encode exactly as the codec's own encoders. ----

struct Same {
  const char* text;
  std::string (*expected)();
};

std::string Bytes(void (*f)(Buffer*)) {
  Buffer b;
  f(&b);
  return std::string(b.View());
}

TEST(IprotoTemplateTest, ConstantTemplatesMatchTheCodecEncoders) {
  const Same kCases[] = {
      {"ping", [] { return Bytes([](Buffer* b) { AppendPing(b, 7); }); }},
      {"select 512 1 ge ['a'] limit 10 offset 3", [] {
         return Bytes([](Buffer* b) {
           AppendSelect(b, 7, {.space_id = 512, .index_id = 1, .iterator = Iterator::kGe, .limit = 10,
                               .offset = 3, .key = Encode(A({S("a")}))});
         });
       }},
      {"select 512 0 [1]", [] {
         return Bytes([](Buffer* b) { AppendSelect(b, 7, {.space_id = 512, .key = Encode(A({U(1)}))}); });
       }},
      {"insert 512 [1, nil, 'x', -3, 1.5, true, {'k': [false]}]", [] {
         return Bytes([](Buffer* b) {
           AppendInsert(b, 7, 512,
                        Encode(A({U(1), Value(), S("x"), I(-3), Value::Double(1.5), Value::Bool(true),
                                  Value::Map({{S("k"), A({Value::Bool(false)})}})})));
         });
       }},
      {"replace 512 [1, 'a b']",
       [] { return Bytes([](Buffer* b) { AppendReplace(b, 7, 512, Encode(A({U(1), S("a b")}))); }); }},
      {"upsert 512 [1, 1] [['+', 2, 1]]", [] {
         return Bytes([](Buffer* b) {
           AppendUpsert(b, 7, 512, Encode(A({U(1), U(1)})), Encode(A({A({S("+"), U(2), U(1)})})));
         });
       }},
      {"update 512 0 [1] [['=', 2, 'v'], ['#', 3, 1]]", [] {
         return Bytes([](Buffer* b) {
           AppendUpdate(b, 7, 512, 0, Encode(A({U(1)})),
                        Encode(A({A({S("="), U(2), S("v")}), A({S("#"), U(3), U(1)})})));
         });
       }},
      {"delete 512 2 [1, 'x']",
       [] { return Bytes([](Buffer* b) { AppendDelete(b, 7, 512, 2, Encode(A({U(1), S("x")}))); }); }},
      {"call crud.replace 'users' [1, nil]", [] {
         return Bytes([](Buffer* b) { AppendCall(b, 7, "crud.replace", Encode(A({S("users"), A({U(1), Value()})}))); });
       }},
      {"call 'box.space.test:get' 1", [] {
         return Bytes([](Buffer* b) { AppendCall(b, 7, "box.space.test:get", Encode(A({U(1)}))); });
       }},
      {"call f", [] { return Bytes([](Buffer* b) { AppendCall(b, 7, "f", Encode(A({}))); }); }},
      {"eval 'return ...' [1, 2] 3", [] {
         return Bytes([](Buffer* b) { AppendEval(b, 7, "return ...", Encode(A({A({U(1), U(2)}), U(3)}))); });
       }},
  };
  for (const Same& c : kCases) {
    EXPECT_EQ(Render(MustParse(c.text), 7, {}), c.expected()) << c.text;
  }
}

TEST(IprotoTemplateTest, KindsAreCaseInsensitiveAndLabelled) {
  EXPECT_EQ(MustParse("REPLACE 512 [1]").label(), "REPLACE");
  EXPECT_EQ(MustParse("Select 512 0 EQ [1]").label(), "SELECT");
  EXPECT_EQ(MustParse("call crud.replace 'users' [1]").label(), "CALL crud.replace");
  EXPECT_EQ(MustParse("eval 'return 1'").label(), "EVAL");
  EXPECT_EQ(MustParse("ping").label(), "PING");
  EXPECT_TRUE(MustParse("select 512 0 [1]").is_read());
  EXPECT_FALSE(MustParse("replace 512 [1]").is_read());
  EXPECT_EQ(MustParse("upsert 512 [1] [['+', 2, 1]]").type(), kUpsert);
}

TEST(IprotoTemplateTest, IteratorsLimitAndOffset) {
  const std::pair<const char*, Iterator> kIters[] = {
      {"eq", Iterator::kEq}, {"req", Iterator::kReq}, {"all", Iterator::kAll}, {"lt", Iterator::kLt},
      {"le", Iterator::kLe}, {"ge", Iterator::kGe},   {"gt", Iterator::kGt},
      {"bits_all_set", Iterator::kBitsAllSet},        {"overlaps", Iterator::kOverlaps}};
  for (const auto& [name, it] : kIters) {
    const std::string text = std::string("select 512 3 ") + name + " [] offset 5 limit 2";
    const DecodedPacket p = DecodePacket(Render(MustParse(text), 1, {}));
    EXPECT_EQ(Field(p.body, kIteratorKey), U(static_cast<uint64_t>(it))) << text;
    EXPECT_EQ(Field(p.body, kIndexIdKey), U(3));
    EXPECT_EQ(Field(p.body, kLimitKey), U(2));
    EXPECT_EQ(Field(p.body, kOffsetKey), U(5));
    EXPECT_EQ(Field(p.body, kKeyKey), A({}));
  }
  const DecodedPacket d = DecodePacket(Render(MustParse("select 512 0 [1]"), 1, {}));
  EXPECT_EQ(Field(d.body, kIteratorKey), U(0));
  EXPECT_EQ(Field(d.body, kLimitKey), U(UINT32_MAX));
  EXPECT_EQ(Field(d.body, kOffsetKey), U(0));
}

// ---- Placeholders. ----

TEST(IprotoTemplateTest, KeyAndDataFilledPerRequest) {
  const RequestTemplate t = MustParse("replace 512 [__key__, __data__]");
  EXPECT_TRUE(t.uses_key());
  EXPECT_TRUE(t.uses_data());
  EXPECT_FALSE(t.uses_rng());
  // Data sizes across every MessagePack str header width.
  for (size_t size : {0, 1, 31, 32, 255, 256, 65535, 65536, 200000}) {
    for (uint64_t index : {uint64_t{0}, uint64_t{9}, uint64_t{10}, uint64_t{42}, UINT64_MAX}) {
      const std::string data(size, 'v');
      const DecodedPacket p = DecodePacket(Render(t, index + 1, {.key_index = index, .key_prefix = "user:", .data = data}));
      EXPECT_EQ(p.header, Value::Map({{U(kRequestTypeKey), U(kReplace)}, {U(kSyncKey), U(index + 1)}}));
      EXPECT_EQ(Field(p.body, kSpaceIdKey), U(512));
      EXPECT_EQ(Field(p.body, kTupleKey), A({S("user:" + std::to_string(index)), S(data)}));
    }
  }
  // An empty prefix: the key is the bare decimal index, still a string.
  const DecodedPacket p = DecodePacket(Render(t, 1, {.key_index = 7, .data = "x"}));
  EXPECT_EQ(Field(p.body, kTupleKey), A({S("7"), S("x")}));
}

TEST(IprotoTemplateTest, SeqKeynumAndRepeatedPlaceholders) {
  const RequestTemplate t = MustParse("update 512 0 [__keynum__] [['=', 2, __data__], ['=', 3, __seq__], ['=', 4, __key__]]");
  EXPECT_TRUE(t.uses_key());
  EXPECT_TRUE(t.uses_seq());
  const DecodedPacket p = DecodePacket(Render(t, 9, {.key_index = 300, .key_prefix = "k", .data = "d", .seq = uint64_t{1} << 40}));
  EXPECT_EQ(Field(p.body, kKeyKey), A({U(300)}));
  EXPECT_EQ(Field(p.body, kIndexBaseKey), U(1));
  EXPECT_EQ(Field(p.body, kTupleKey), A({A({S("="), U(2), S("d")}), A({S("="), U(3), U(1ull << 40)}),
                                          A({S("="), U(4), S("k300")})}));
}

TEST(IprotoTemplateTest, RandomStringsComeFromTheRng) {
  const RequestTemplate t = MustParse("insert 512 [__seq__, nil, __rand:128__]");
  EXPECT_TRUE(t.uses_rng());
  EXPECT_FALSE(t.uses_key());
  Rng rng(1), same(1);
  std::set<std::string> seen;
  for (uint64_t seq = 1; seq <= 50; ++seq) {
    const std::string bytes = Render(t, seq, {.seq = seq, .rng = &rng});
    EXPECT_EQ(bytes, Render(t, seq, {.seq = seq, .rng = &same}));  // same seed, same bytes
    const Value tuple = Field(DecodePacket(bytes).body, kTupleKey);
    ASSERT_EQ(tuple.items().size(), 3u);
    EXPECT_EQ(tuple.items()[0], U(seq));
    EXPECT_EQ(tuple.items()[1], Value());
    const std::string& s = tuple.items()[2].str();
    ASSERT_EQ(s.size(), 128u);
    EXPECT_EQ(s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
              std::string::npos);
    seen.insert(s);
  }
  EXPECT_EQ(seen.size(), 50u);
  // Lengths that are not a multiple of the ten characters one draw gives.
  for (uint32_t n : {1u, 9u, 11u, 1000u}) {
    const std::string text = "replace 1 [__rand:" + std::to_string(n) + "__]";
    const Value tuple = Field(DecodePacket(Render(MustParse(text), 1, {.rng = &rng})).body, kTupleKey);
    EXPECT_EQ(tuple.items().at(0).str().size(), n);
  }
}

TEST(IprotoTemplateTest, RandomIntegersStayInTheirRange) {
  Rng rng(7);
  const RequestTemplate t = MustParse("replace 1 [__int:-3:3__, __int:0:1__, __int:-9223372036854775808:9223372036854775807__]");
  std::set<int64_t> small;
  bool negative_full = false, positive_full = false;
  for (int i = 0; i < 2000; ++i) {
    const Value tuple = Field(DecodePacket(Render(t, 1, {.rng = &rng})).body, kTupleKey);
    ASSERT_EQ(tuple.items().size(), 3u);
    const Value& a = tuple.items()[0];
    // Non-negative values are uints, as Tarantool's unsigned fields need.
    const int64_t v = a.type() == Value::Type::kUint ? static_cast<int64_t>(a.uint_value()) : a.int_value();
    EXPECT_TRUE(a.type() == Value::Type::kUint || v < 0);
    EXPECT_GE(v, -3);
    EXPECT_LE(v, 3);
    small.insert(v);
    EXPECT_LE(tuple.items()[1].uint_value(), 1u);
    (tuple.items()[2].type() == Value::Type::kInt ? negative_full : positive_full) = true;
  }
  EXPECT_EQ(small.size(), 7u);
  EXPECT_TRUE(negative_full && positive_full);
}

TEST(IprotoTemplateTest, AppendDoesNotGrowARoomyBuffer) {
  const RequestTemplate t = MustParse("insert 512 [__key__, __data__, __rand:128__, __int:1:9__]");
  Rng rng(3);
  Buffer out(1 << 20);
  const std::string data(100, 'x');
  size_t total = 0;
  for (int i = 0; i < 1000; ++i) {
    total += t.Append(&out, static_cast<uint64_t>(i), {.key_index = static_cast<uint64_t>(i), .key_prefix = "memtier-", .data = data, .rng = &rng});
  }
  EXPECT_EQ(out.Capacity(), size_t{1} << 20);
  EXPECT_EQ(out.Readable(), total);
  // Back to back packets all decode.
  std::string_view all = out.View();
  for (int i = 0; i < 1000; ++i) {
    uint32_t len = 0;
    for (int k = 1; k <= 4; ++k) len = (len << 8) | static_cast<uint8_t>(all[k]);
    DecodePacket(all.substr(0, 5 + len));
    all.remove_prefix(5 + len);
  }
  EXPECT_TRUE(all.empty());
}

TEST(IprotoTemplateTest, BriefExamplesParse) {
  for (const char* text : {"ping", "replace 512 [__key__, __data__]", "select 512 0 eq [__key__] limit 1 offset 0",
                           "insert 512 [__seq__, nil, __rand:128__]", "upsert 512 [__key__, 1] [['+', 1, 1]]",
                           "update 512 0 [__key__] [['=', 1, __data__]]", "delete 512 0 [__key__]",
                           "call crud.replace 'users' [__seq__, nil, __rand:128__]",
                           "eval 'return box.space.test:get(...)' __key__", "eval \"return 1\"",
                           "  replace   512[__key__,__data__]  ", "replace 512 [\"it's\", 'a\\'b', '\\x41\\n']"}) {
    EXPECT_TRUE(RequestTemplate::Parse(text).ok()) << text << ": " << RequestTemplate::Parse(text).status().message();
  }
  const Value tuple = Field(DecodePacket(Render(MustParse("replace 1 [\"it's\", 'a\\'b', '\\x41\\n', -0.5e1, +7]"), 1, {})).body, kTupleKey);
  EXPECT_EQ(tuple, A({S("it's"), S("a'b"), S("A\n"), Value::Double(-5), U(7)}));
}

// ---- Malformed templates: what and where. ----

TEST(IprotoTemplateTest, MalformedTemplatesNameTheFaultAndColumn) {
  const std::pair<std::string, const char*> kCases[] = {
      {"", "empty Tarantool request template"},
      {"   ", "empty Tarantool request template"},
      {"get 512 [1]", "unknown Tarantool request 'get' at column 1 (want one of: ping, select"},
      {"select 512 0 bogus [1]", "unknown iterator 'bogus' (eq, req, all"},
      {"select 512 0 bogus [1]", "at column 14"},
      {"replace 512 [1, 2", "unbalanced '[' (the template ends before its ']') at column 13"},
      {"replace 512 [1, [2]", "unbalanced '[' (the template ends before its ']') at column 13"},
      {"replace 512 {1: 2", "unbalanced '{' (the template ends before its '}') at column 13"},
      {"replace 512 [1, 2]]", "unexpected ']' after the end of the request at column 19"},
      {"replace 512 [1] junk", "unexpected 'junk' after the end of the request at column 17"},
      {"ping 1", "unexpected '1' after the end of the request at column 6"},
      {"replace", "missing space id at column 8"},
      {"replace [1]", "space id must be a number from 0 to 4294967295, got '[' at column 9"},
      {"replace 4294967296 [1]", "space id must be a number from 0 to 4294967295, got '4294967296'"},
      {"replace -1 [1]", "space id must be a number"},
      {"delete 512 [1]", "index id must be a number from 0 to 4294967295, got '['"},
      {"replace 512", "missing the tuple, e.g. [__key__, __data__] at column 12"},
      {"replace 512 1", "the tuple must be an array, e.g. [__key__, __data__] at column 13"},
      {"select 512 0 eq __key__", "the key must be an array, e.g. [__key__] at column 17"},
      {"replace 512 [__kye__]", "unknown placeholder '__kye__' (known: __key__"},
      {"replace 512 [__kye__]", "at column 14"},
      {"replace 512 [__key]", "malformed placeholder '__key' (placeholders: __key__"},
      {"replace 512 [__rand:0__]", "__rand:N__ needs a length N from 1 to 1048576, got '__rand:0__'"},
      {"replace 512 [__rand:x__]", "__rand:N__ needs a length N"},
      {"replace 512 [__int:5:1__]", "__int:A:B__ needs integers A <= B, got '__int:5:1__'"},
      {"replace 512 [__int:5__]", "__int:A:B__ needs integers A <= B"},
      {"replace 512 [foo]", "unknown word 'foo' (strings are quoted: 'foo') at column 14"},
      {"replace 512 [1 2]", "expected ',' or ']', got '2' at column 16"},
      {"replace 512 [1,]", "unexpected ']' at column 16"},
      {"replace 512 [{1 2}]", "expected ':' after a map key, got '2' at column 17"},
      {"replace 512 ['abc]", "unterminated string (no closing ') at column 14"},
      {"replace 512 ['a\\q']", "unknown escape '\\q' in a string"},
      {"replace 512 [99999999999999999999999]", "integer '99999999999999999999999' is out of range"},
      {"replace 512 [-9223372036854775809]", "integer '-9223372036854775809' is out of range"},
      {"replace 512 [1e999]", "number '1e999' is out of range or malformed"},
      {"replace 512 [1.2.3]", "number '1.2.3' is out of range or malformed"},
      {"upsert 512 [1] ['+', 2, 1]", "the update operations must be an array of arrays, e.g. [['=', 2, __data__]]"},
      {"upsert 512 [1]", "missing the update operations"},
      {"update 512 0 [1]", "missing the update operations"},
      {"select 512 0 eq [1] limit x", "the limit must be a number from 0 to 4294967295, got 'x' at column 27"},
      {"select 512 0 eq [1] limit", "missing the limit at column 26"},
      {"select 512 0 eq [1] limit 1 limit 2", "limit given twice at column 29"},
      {"call", "missing function name after call at column 5"},
      {"call [x]", "a function name cannot start with '['"},
      {"eval return", "eval needs a quoted Lua expression"},
      {"replace 512 " + std::string(40, '['), "nesting deeper than 32"},
      {"replace 512 [" + std::string(17, 'x') + "]", "unknown word"},
      {[] {
         std::string t = "replace 512 [__rand:1048576__";
         for (int i = 0; i < 16; ++i) t += ", __rand:1048576__";
         return t + "]";
       }(),
       "the request would be larger than 16 MiB before __key__ and __data__"},
  };
  for (const auto& [text, want] : kCases) {
    auto t = RequestTemplate::Parse(text);
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_EQ(t.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(t.status().message().find(want), std::string::npos)
        << "template: " << text << "\n got: " << t.status().message() << "\nwant: " << want;
  }
}

}  // namespace
}  // namespace memstand::iproto

namespace memstand::iproto {
namespace {

TEST(IprotoTemplateTest, RegisterFormsOfSelectsAndReplaces) {
  auto write = RequestTemplate::Parse("replace 512 [__key__, nil, __data__]");
  ASSERT_TRUE(write.ok());
  ASSERT_TRUE(write->register_form().has_value());
  EXPECT_TRUE(write->register_form()->write);
  EXPECT_EQ(write->register_form()->space, 512u);
  EXPECT_FALSE(write->register_form()->key_number);
  EXPECT_EQ(write->register_form()->data_field, 2u);
  auto read = RequestTemplate::Parse("select 513 0 eq [__keynum__] limit 1");
  ASSERT_TRUE(read.ok());
  ASSERT_TRUE(read->register_form().has_value());
  EXPECT_FALSE(read->register_form()->write);
  EXPECT_EQ(read->register_form()->space, 513u);
  EXPECT_TRUE(read->register_form()->key_number);
  for (const char* other : {"insert 512 [__key__, __data__]", "select 512 0 [__key__] limit 0",
                            "replace 512 [__key__, [__data__]]", "update 512 0 [__key__] [['=', 2, __data__]]",
                            "select 512 0 [__seq__]", "ping"}) {
    auto t = RequestTemplate::Parse(other);
    ASSERT_TRUE(t.ok()) << other;
    EXPECT_FALSE(t->register_form().has_value()) << other;
  }
}

// --history stamps a write's tag where its value lies in the request just appended:
// data_tail() bytes before its end.
TEST(IprotoTemplateTest, DataTailLocatesTheValueInTheRequest) {
  for (const char* text : {"replace 512 [__key__, __data__]", "replace 512 [__key__, nil, __data__, 7, 'x']",
                           "replace 512 [__keynum__, __data__, [1, 2]]"}) {
    auto t = RequestTemplate::Parse(text);
    ASSERT_TRUE(t.ok()) << text;
    ASSERT_NE(t->data_tail(), std::string::npos) << text;
    Buffer out;
    const std::string data = "0123456789abcdefXYZ";
    t->Append(&out, 9, {.key_index = 42, .key_prefix = "k:", .data = data});
    EXPECT_EQ(std::string(out.WritePtr() - t->data_tail() - data.size(), data.size()), data) << text;
  }
  for (const char* text : {"replace 512 [__key__, __data__, __seq__]", "select 512 0 [__key__]", "ping"}) {
    auto t = RequestTemplate::Parse(text);
    ASSERT_TRUE(t.ok()) << text;
    EXPECT_EQ(t->data_tail(), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace memstand::iproto
