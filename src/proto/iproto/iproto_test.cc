#include "proto/iproto/iproto.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "codec/feed_util.h"
#include "codec/iproto_values.h"
#include "proto/iproto/greeting.h"
#include "proto/iproto/msgpack.h"

namespace memstand::iproto {
namespace {

using codec_test::Bytewise;
using codec_test::ExpectSplitInvariant;
using codec_test::FeedChunks;
using codec_test::Outcome;
using codec_test::RandomChunks;
using Mode = Reader::Mode;
using Event = Reader::Event;
using namespace std::string_literals;

using testing::A;
using testing::S;
using testing::U;
Value M(std::vector<std::pair<Value, Value>> v) { return Value::Map(std::move(v)); }

std::string Hex(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (!out.empty()) out += ' ';
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

// A packet: 0xce prefix + header + optional body.
std::string Packet(const Value& header, const Value* body) {
  std::string payload = Encode(header) + (body != nullptr ? Encode(*body) : "");
  std::string out = "\xce"s;
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((payload.size() >> shift) & 0xff);
  return out + payload;
}

std::string OkResponse(uint64_t sync, const Value& data) {
  Value body = M({{U(kDataKey), data}});
  return Packet(M({{U(kRequestTypeKey), U(0)}, {U(kSyncKey), U(sync)}, {U(kSchemaVersionKey), U(80)}}),
                &body);
}

std::string ErrorResponse(uint64_t sync, uint32_t code, const std::string& message, bool stack) {
  std::vector<std::pair<Value, Value>> fields = {{U(kError24Key), S(message)}};
  if (stack) {
    Value entry = M({{U(kErrorType), S("ClientError")}, {U(kErrorFile), S("box.cc")},
                     {U(kErrorLine), U(42)}, {U(kErrorMessage), S(message)},
                     {U(kErrorErrno), U(0)}, {U(kErrorCode), U(code)}});
    fields.emplace_back(U(kErrorKey), M({{U(kErrorStack), A({entry})}}));
  }
  Value body = M(std::move(fields));
  return Packet(M({{U(kRequestTypeKey), U(kTypeError | code)}, {U(kSyncKey), U(sync)}}), &body);
}

std::string Dump(const Summary& s) {
  std::string out = "sync=" + std::to_string(s.sync) + " status=" + std::to_string(s.status);
  if (s.is_error) out += " error " + std::to_string(s.error_code) + " '" + s.error + "' " + s.error_type;
  if (s.is_push) out += " push";
  if (s.has_data) out += " data=" + std::to_string(s.data_count);
  if (s.schema_version != 0) out += " schema=" + std::to_string(s.schema_version);
  return out + " bytes=" + std::to_string(s.wire_bytes);
}

std::string DumpReader(Reader* r, Mode mode) {
  std::string s = Dump(r->summary());
  if (mode == Mode::kFull) s += " | " + ToString(r->TakeData());
  return s;
}

Outcome Parse(Mode mode, const std::vector<std::string>& chunks, Reader::Limits limits = {}) {
  Reader reader(mode, limits);
  return FeedChunks(&reader, chunks, [mode](Reader* r) { return DumpReader(r, mode); });
}

TEST(IprotoEncoderTest, HandComputedBytes) {
  Buffer b(4);
  AppendPing(&b, 1);
  EXPECT_EQ(Hex(b.View()), "ce 00 00 00 05 82 00 40 01 01");
  b.Clear();
  AppendInsert(&b, 7, 512, Encode(A({U(1), S("a")})));
  EXPECT_EQ(Hex(b.View()), "ce 00 00 00 0f 82 00 02 01 07 82 10 cd 02 00 21 92 01 a1 61");
  b.Clear();
  SelectRequest select;
  select.space_id = 512;
  select.key = "\x91\x05";
  AppendSelect(&b, 2, select);
  EXPECT_EQ(Hex(b.View()),
            "ce 00 00 00 19 82 00 01 01 02 86 10 cd 02 00 11 00 12 ce ff ff ff ff 13 00 14 00 20 91 "
            "05");
  b.Clear();
  AppendCall(&b, 300, "f", "\x90");
  EXPECT_EQ(Hex(b.View()), "ce 00 00 00 0d 82 00 0a 01 cd 01 2c 82 22 a1 66 21 90");
  b.Clear();
  AppendEval(&b, 0, "return 1", "\x90");
  EXPECT_EQ(Hex(b.View()), "ce 00 00 00 12 82 00 08 01 00 82 27 a8 72 65 74 75 72 6e 20 31 21 90");
}

// The other requests, decoded back: the right type, keys and values.
TEST(IprotoEncoderTest, RequestsDecodeToTheirFields) {
  auto decode = [](const Buffer& b) {
    std::string_view rest = b.View().substr(5);
    Result<Value> header = Decode(&rest);
    Result<Value> body = Decode(&rest);
    EXPECT_TRUE(header.ok() && body.ok() && rest.empty());
    return ToString(*header) + " " + ToString(*body);
  };
  const std::string key = Encode(A({U(5)}));
  const std::string tuple = Encode(A({U(5), S("x")}));
  const std::string ops = Encode(A({A({S("="), U(2), S("y")})}));
  Buffer b;
  AppendReplace(&b, 1, 512, tuple);
  EXPECT_EQ(decode(b), R"({0: 3, 1: 1} {16: 512, 33: [5, "x"]})");
  b.Clear();
  AppendDelete(&b, 2, 512, 1, key);
  EXPECT_EQ(decode(b), R"({0: 5, 1: 2} {16: 512, 17: 1, 32: [5]})");
  b.Clear();
  AppendUpdate(&b, 3, 512, 0, key, ops);
  EXPECT_EQ(decode(b), R"({0: 4, 1: 3} {16: 512, 17: 0, 21: 1, 32: [5], 33: [["=", 2, "y"]]})");
  b.Clear();
  AppendUpsert(&b, 4, 512, tuple, ops);
  EXPECT_EQ(decode(b), R"({0: 9, 1: 4} {16: 512, 21: 1, 33: [5, "x"], 40: [["=", 2, "y"]]})");
  b.Clear();
  AppendAuth(&b, 5, "user", std::string(20, 'S'));
  EXPECT_EQ(decode(b),
            R"({0: 7, 1: 5} {35: "user", 33: ["chap-sha1", "SSSSSSSSSSSSSSSSSSSS"]})");
  b.Clear();
  SelectRequest all{.space_id = 281, .index_id = 2, .iterator = Iterator::kAll, .limit = 10,
                    .offset = 3};
  AppendSelect(&b, 6, all);
  EXPECT_EQ(decode(b), R"({0: 1, 1: 6} {16: 281, 17: 2, 18: 10, 19: 3, 20: 2, 32: []})");
}

TEST(IprotoValueTest, EncodesSmallestForms) {
  EXPECT_EQ(Hex(Encode(Value::Nil())), "c0");
  EXPECT_EQ(Hex(Encode(Value::Bool(true))), "c3");
  EXPECT_EQ(Hex(Encode(Value::Int(5))), "05");  // non-negative int: as uint
  EXPECT_EQ(Hex(Encode(Value::Int(-1))), "ff");
  EXPECT_EQ(Hex(Encode(Value::Int(-33))), "d0 df");
  EXPECT_EQ(Hex(Encode(Value::Uint(256))), "cd 01 00");
  EXPECT_EQ(Hex(Encode(Value::Uint(UINT64_MAX))), "cf ff ff ff ff ff ff ff ff");
  EXPECT_EQ(Hex(Encode(Value::Double(1.5))), "cb 3f f8 00 00 00 00 00 00");
  EXPECT_EQ(Hex(Encode(S(std::string(32, 'x'))).substr(0, 3)), "d9 20 78");
  EXPECT_EQ(Hex(Encode(M({{S("k"), A({})}}))), "81 a1 6b 90");
}

TEST(IprotoValueTest, RoundTrips) {
  Value v = A({Value::Nil(), Value::Bool(false), Value::Int(-5), U(1ULL << 40), Value::Double(-0.25),
               S("text\x01"), M({{U(1), A({S("a"), S(std::string(300, 'b'))})}}), A({})});
  std::string bytes = Encode(v);
  std::string_view view = bytes;
  Result<Value> back = Decode(&view);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(view.empty());
  // -5 comes back as an int, 1<<40 as a uint: the same Value.
  EXPECT_EQ(*back, v);
  EXPECT_TRUE(IsEncodedArray(bytes));
  EXPECT_FALSE(IsEncodedArray(bytes + "\x01"));
  EXPECT_FALSE(IsEncodedArray(bytes.substr(0, bytes.size() - 1)));
  EXPECT_FALSE(IsEncodedArray(Encode(U(1))));
}

TEST(IprotoValueTest, DecodeRejectsMalformed) {
  for (const std::string& bad : {"\x92\x01"s, "\xdd\xff\xff\xff\xff"s, "\xa5"s "ab", "\xc1"s,
                                 "\xd4\x01\x02"s, "\xcd\x01"s, ""s}) {
    std::string_view view = bad;
    EXPECT_FALSE(Decode(&view).ok()) << Hex(bad);
  }
  std::string deep(100, '\x91');
  deep += '\x01';
  std::string_view view = deep;
  Result<Value> v = Decode(&view, 64);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "MessagePack nested too deep");
}

// msgpuck's mp_check sums 32-bit counts into an int, so an array header claiming 2^32-1
// elements passes it; Cursor::Skip refuses any count above the bytes left.
TEST(IprotoCursorTest, HugeCountsAreRefused) {
  for (const std::string& bad : {"\xdd\xff\xff\xff\xff"s, "\xdf\x80\x00\x00\x00"s,
                                 "\xdc\x00\x03\x01\x02"s, "\x91\xdd\xff\xff\xff\xff"s}) {
    Cursor c(bad.data(), bad.data() + bad.size());
    EXPECT_FALSE(c.Skip()) << Hex(bad);
    EXPECT_EQ(c.position(), bad.data());
  }
  const std::string ok = "\x92\x01\x81\xa1k\xc0"s;
  Cursor c(ok.data(), ok.data() + ok.size());
  EXPECT_TRUE(c.Skip());
  EXPECT_TRUE(c.AtEnd());
}

TEST(IprotoReaderTest, OkResponseSummaryAndData) {
  const std::string wire = OkResponse(7, A({A({U(1), S("a")}), A({U(2), S("b")})}));
  Outcome full = Parse(Mode::kFull, {wire});
  ASSERT_FALSE(full.failed) << full.error;
  ASSERT_EQ(full.replies.size(), 1u);
  EXPECT_EQ(full.replies[0], "sync=7 status=0 data=2 schema=80 bytes=" +
                                 std::to_string(wire.size()) + R"( | [[1, "a"], [2, "b"]])");
}

TEST(IprotoReaderTest, ErrorResponses) {
  Outcome o = Parse(Mode::kSummary,
                    {ErrorResponse(9, 3, "Duplicate key exists in unique index 'pk'", true),
                     ErrorResponse(10, 36, "Space '999' does not exist", false)});
  ASSERT_FALSE(o.failed) << o.error;
  ASSERT_EQ(o.replies.size(), 2u);
  EXPECT_EQ(o.replies[0].substr(0, 83),
            "sync=9 status=32771 error 3 'Duplicate key exists in unique index 'pk'' ClientError");
  EXPECT_EQ(o.replies[1].substr(0, 65),
            "sync=10 status=32804 error 36 'Space '999' does not exist'  bytes");
}

TEST(IprotoReaderTest, ErrorStackAloneGivesTheMessage) {
  Value entry = M({{U(kErrorType), S("ClientError")}, {U(kErrorMessage), S("m")}, {U(kErrorCode), U(1)}});
  Value body = M({{U(kErrorKey), M({{U(kErrorStack), A({entry, entry})}})}});
  Outcome o = Parse(Mode::kSummary,
                    {Packet(M({{U(kRequestTypeKey), U(kTypeError | 1)}, {U(kSyncKey), U(1)}}), &body)});
  ASSERT_EQ(o.replies.size(), 1u) << o.error;
  EXPECT_EQ(o.replies[0].substr(0, 41), "sync=1 status=32769 error 1 'm' ClientErr");
}

TEST(IprotoReaderTest, PingPushAndUnknownKeys) {
  // A ping answer has no body; a push is kChunk; unknown header and body keys are skipped.
  Value push_body = M({{U(kDataKey), A({S("progress")})}, {U(0x7f), M({{S("x"), A({})}})}});
  Outcome o = Parse(
      Mode::kFull,
      {Packet(M({{U(kRequestTypeKey), U(0)}, {U(kSyncKey), U(1)}}), nullptr),
       Packet(M({{U(kSyncKey), U(2)}, {U(0x06), U(1)}, {U(kRequestTypeKey), U(kChunk)}}), &push_body)});
  ASSERT_FALSE(o.failed) << o.error;
  ASSERT_EQ(o.replies.size(), 2u);
  EXPECT_EQ(o.replies[0], "sync=1 status=0 bytes=10 | null");
  EXPECT_EQ(o.replies[1].substr(0, 38), "sync=2 status=128 push data=1 bytes=30");
}

// IPROTO_DATA's bytes, for call_error.h: whole in the input (a view into it) or split
// (a view into the reader's copy), and empty for the next packet without data.
TEST(IprotoReaderTest, DataIsAViewOfIprotoDataBytes) {
  const Value results = A({Value::Nil(), S("boom")});
  const std::string wire = OkResponse(5, results) + Packet(M({{U(kRequestTypeKey), U(0)}, {U(kSyncKey), U(6)}}), nullptr);
  for (size_t split : {wire.size(), size_t{9}, size_t{20}}) {
    Reader r(Mode::kSummary);
    size_t used = 0;
    Event ev = r.Feed(wire.data(), split, &used);
    if (ev == Event::kNeedMore) {
      ASSERT_EQ(used, split);
      size_t more = 0;
      ev = r.Feed(wire.data() + split, wire.size() - split, &more);
      used += more;
    }
    ASSERT_EQ(ev, Event::kReply) << split;
    EXPECT_EQ(r.summary().data, Encode(results)) << split;
    EXPECT_EQ(r.summary().data_count, 2u);
    size_t rest = 0;
    ASSERT_EQ(r.Feed(wire.data() + used, wire.size() - used, &rest), Event::kReply);
    EXPECT_TRUE(r.summary().data.empty());
  }
}

const std::vector<std::string>& Corpus() {
  static const std::vector<std::string> corpus = {
      OkResponse(1, A({})),
      OkResponse(UINT64_MAX, A({A({U(1), S(std::string(300, 'v')), Value::Double(2.5)})})),
      ErrorResponse(2, 3, "Duplicate key exists", true) + OkResponse(3, A({Value::Nil()})),
      Packet(M({{U(kRequestTypeKey), U(0)}, {U(kSyncKey), U(4)}}), nullptr),
  };
  return corpus;
}

TEST(IprotoReaderTest, EverySplitGivesTheSameResult) {
  for (Mode mode : {Mode::kFull, Mode::kSummary}) {
    for (const std::string& in : Corpus()) {
      Outcome whole = ExpectSplitInvariant(
          in, [mode] { return Reader(mode); }, [mode](Reader* r) { return DumpReader(r, mode); });
      EXPECT_FALSE(whole.failed) << Hex(in) << ": " << whole.error;
      EXPECT_FALSE(whole.replies.empty());
      EXPECT_EQ(whole.consumed, in.size());
    }
  }
}

struct BadInput {
  std::string in;
  std::string error;
};

TEST(IprotoReaderTest, MalformedInputsAreProtocolErrors) {
  const Value ok_header = M({{U(kRequestTypeKey), U(0)}, {U(kSyncKey), U(1)}});
  const Value bad_data = M({{U(kDataKey), U(1)}});
  const Value bad_error = M({{U(kError24Key), U(1)}});
  const Value bad_stack = M({{U(kErrorKey), M({{U(kErrorStack), U(1)}})}});
  const std::vector<BadInput> bad = {
      {"-ERR unknown command\r\n",
       "response starts with '-' (0x2d), not the 0xce length prefix of IPROTO, at byte 0"},
      {"Tarantool 2.6.0 (Binary)", "response starts with 'T' (0x54), not the 0xce"},
      {"\xce\x00\x00\x00\x00"s, "empty packet (length 0) at byte 0"},
      {"\xce\x7f\x00\x00\x00"s, "packet of 2130706432 bytes over the limit of 268435456"},
      {"\xce\x00\x00\x00\x01\x01"s, "header is not a MessagePack map at byte 5"},
      {"\xce\x00\x00\x00\x03\x81\xa1k"s, "header key is not an unsigned integer at byte 6"},
      {"\xce\x00\x00\x00\x03\x81\x00\xa0"s, "header value 0x0 is not an unsigned integer at byte 7"},
      {"\xce\x00\x00\x00\x03\x81\x01\x01"s, "header without IPROTO_REQUEST_TYPE at byte 5"},
      {"\xce\x00\x00\x00\x03\x82\x00\x00"s, "header is a truncated MessagePack map at byte 5"},
      {"\xce\x00\x00\x00\x04\x81\x07\xa5x"s, "bad header value for key 0x7 at byte 7"},
      {"\xce\x00\x00\x00\x07\x81\x00\xcf\x00\x00\x00\x01"s, "header value 0x0 is not"},
      {"\xce\x00\x00\x00\x0b\x81\x00\xcf\x00\x00\x00\x01\x00\x00\x00\x00"s,
       "response status 0x100000000 out of range"},
      {Packet(ok_header, nullptr) .substr(0, 5) + "\x82\x00\x00\x01\x01\x01"s.substr(0, 5), ""},
      {Packet(ok_header, &bad_data), "IPROTO_DATA is not an array at byte 12"},
      {Packet(ok_header, &bad_error), "IPROTO_ERROR_24 is not a string at byte 12"},
      {Packet(ok_header, &bad_stack), "MP_ERROR_STACK is not an array at byte 12"},
      {"\xce\x00\x00\x00\x06\x82\x00\x00\x01\x01\x05"s, "body is not a MessagePack map at byte 10"},
      {"\xce\x00\x00\x00\x07\x82\x00\x00\x01\x01\x80\x80"s, "1 bytes after the body at byte 11"},
      {"\xce\x00\x00\x00\x08\x82\x00\x00\x01\x01\x81\x30\xdd"s, "IPROTO_DATA is not an array at byte 12"},
      {"\xce\x00\x00\x00\x0c\x82\x00\x00\x01\x01\x81\x30\xdd\xff\xff\xff\xff"s,
       "IPROTO_DATA is not an array"},
      {"\xce\x00\x00\x00\x09\x82\x00\x00\x01\x01\x81\x30\x91\xc1"s, "bad MessagePack in IPROTO_DATA"},
      // A CALL's `nil, 'boom'` cut after the first value: the string is 2 bytes of 4.
      {"\xce\x00\x00\x00\x0c\x82\x00\x00\x01\x01\x81\x30\x92\xc0\xa4" "bo"s,
       "bad MessagePack in IPROTO_DATA at byte 12"},
      {"\xce\x00\x00\x00\x09\x82\x00\x00\x01\x01\x81\x30\x92\xc0"s, "IPROTO_DATA is not an array at byte 12"},
  };
  for (Mode mode : {Mode::kFull, Mode::kSummary}) {
    for (const BadInput& b : bad) {
      if (b.error.empty()) continue;
      Outcome whole = Parse(mode, {b.in});
      EXPECT_TRUE(whole.failed) << Hex(b.in);
      EXPECT_NE(whole.error.find(b.error), std::string::npos) << Hex(b.in) << " -> " << whole.error;
      EXPECT_EQ(Parse(mode, Bytewise(b.in)), whole) << Hex(b.in);
    }
  }
}

TEST(IprotoReaderTest, StaysFailedUntilReset) {
  Reader reader(Mode::kSummary);
  size_t used = 0;
  ASSERT_EQ(reader.Feed("x", 1, &used), Event::kProtocolError);
  const std::string ok = OkResponse(1, A({}));
  EXPECT_EQ(reader.Feed(ok.data(), ok.size(), &used), Event::kProtocolError);
  reader.Reset();
  ASSERT_EQ(reader.Feed(ok.data(), 7, &used), Event::kNeedMore);
  reader.Reset();
  ASSERT_EQ(reader.Feed(ok.data(), ok.size(), &used), Event::kReply);
  EXPECT_EQ(reader.summary().sync, 1u);
  EXPECT_EQ(used, ok.size());
}

TEST(IprotoReaderTest, MutationsAreSplitInvariant) {
  std::mt19937 rng(55);
  Reader::Limits limits;
  limits.max_packet = 1 << 16;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string in = Corpus()[rng() % Corpus().size()];
    for (int m = 0, n = 1 + static_cast<int>(rng() % 3); m < n; ++m) {
      in[rng() % in.size()] = static_cast<char>(rng());
    }
    const Mode mode = iter % 2 == 0 ? Mode::kFull : Mode::kSummary;
    const Outcome whole = Parse(mode, {in}, limits);
    ASSERT_EQ(Parse(mode, RandomChunks(in, 9, &rng), limits), whole)
        << "iteration " << iter << ": " << Hex(in);
  }
}

std::string GreetingOf(const std::string& line1, const std::string& line2) {
  std::string g = line1;
  g.resize(63, ' ');
  g += '\n';
  std::string l2 = line2;
  l2.resize(63, ' ');
  return g + l2 + '\n';
}

TEST(IprotoGreetingTest, ParsesAndScrambles) {
  const std::string salt64 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
  Result<Greeting> g = ParseGreeting(
      GreetingOf("Tarantool 2.6.0 (Binary) 7b2f3a6e-8c1d-4a2b-9f1e-0123456789ab", salt64));
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->version, "2.6.0");
  EXPECT_EQ(g->protocol, "Binary");
  EXPECT_EQ(g->uuid, "7b2f3a6e-8c1d-4a2b-9f1e-0123456789ab");
  ASSERT_EQ(g->salt.size(), 32u);
  // Computed independently: sha1("secret") XOR sha1(salt[0:20] + sha1(sha1("secret"))).
  EXPECT_EQ(Hex(ChapSha1Scramble("secret", g->salt)),
            Hex("\x21\xb3\xff\x40\x5f\x32\xcb\xe4\xaa\xff\xf2\x91\x39\x60\x46\xea\x29\xfa\x3a\x4d"s));
}

TEST(IprotoGreetingTest, RejectsOtherPeers) {
  auto error = [](const std::string& g) { return ParseGreeting(g).status().message(); };
  EXPECT_EQ(error(GreetingOf("-ERR unknown command", "x")).substr(0, 49),
            "not a Tarantool greeting: '-ERR unknown command  ");
  EXPECT_EQ(error(GreetingOf("Tarantool 2.6.0 (Lua console)", "")),
            "Tarantool port speaks 'Lua console', not the binary protocol (IPROTO)");
  EXPECT_EQ(error(GreetingOf("Tarantool 2.6.0 (Binary) u", "@@@@")),
            "Tarantool greeting with a bad salt '@@@@'");
  EXPECT_EQ(error(GreetingOf("Tarantool 2.6.0 (Binary) u", "AAEC")),
            "Tarantool greeting with a bad salt 'AAEC'");
  EXPECT_FALSE(ParseGreeting(std::string(128, 'x')).ok());
}

}  // namespace
}  // namespace memstand::iproto
