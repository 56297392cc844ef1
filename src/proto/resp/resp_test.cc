#include "proto/resp/resp.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "codec/feed_util.h"

namespace memstand::resp {
namespace {

using codec_test::Bytewise;
using codec_test::ExpectFailsWholeAndBytewise;
using codec_test::RandomChunks;
using Mode = Reader::Mode;
using Event = Reader::Event;

// A readable, comparable rendering of a reply tree.
std::string Dump(const Reply& r) {
  std::string out = TypeName(r.type);
  if (r.is_null) out += "(nil)";
  if (!r.str.empty()) out += "'" + r.str + "'";
  if (r.type == Type::kInteger || r.type == Type::kBoolean) out += ":" + std::to_string(r.integer);
  if (!r.elements.empty()) {
    out += "[";
    for (const Reply& e : r.elements) out += Dump(e) + ",";
    out += "]";
  }
  return out;
}

std::string Dump(const Summary& s) {
  return std::string(TypeName(s.type)) + (s.is_null ? " null" : "") +
         (s.is_error ? " error='" + s.error + "'" : "") + " int=" + std::to_string(s.integer) +
         " bytes=" + std::to_string(s.wire_bytes);
}

// Everything a reader produced from a sequence of chunks.
struct Outcome {
  std::vector<std::string> replies;  // Dump(Reply) in kFull, Dump(Summary) in kSummary
  std::vector<std::string> summaries;
  bool failed = false;
  std::string error;
  size_t consumed = 0;

  bool operator==(const Outcome&) const = default;
};

Outcome FeedChunks(Reader* reader, Mode mode, const std::vector<std::string>& chunks) {
  Outcome out;
  for (const std::string& chunk : chunks) {
    size_t off = 0;
    while (off < chunk.size() && !out.failed) {
      size_t used = 0;
      Event ev = reader->Feed(chunk.data() + off, chunk.size() - off, &used);
      EXPECT_LE(used, chunk.size() - off);
      off += used;
      if (ev == Event::kNeedMore) {
        EXPECT_EQ(off, chunk.size());
      }
      if (ev == Event::kProtocolError) {
        out.failed = true;
        out.error = reader->error();
      }
      if (ev != Event::kReply) continue;
      out.summaries.push_back(Dump(reader->summary()));
      if (mode == Mode::kFull) out.replies.push_back(Dump(reader->TakeReply()));
    }
    out.consumed += off;
    if (out.failed) break;
  }
  return out;
}

Outcome Parse(Mode mode, const std::vector<std::string>& chunks, Reader::Limits limits = {}) {
  Reader reader(mode, limits);
  return FeedChunks(&reader, mode, chunks);
}

Outcome ParseWhole(Mode mode, const std::string& in) { return Parse(mode, {in}); }

Reply ParseOne(const std::string& in) { return codec_test::FullReplyOf<Reader>(in); }
Summary SummaryOf(const std::string& in) { return codec_test::SummaryOf<Reader>(in); }

TEST(RespReaderTest, Resp2Scalars) {
  EXPECT_EQ(Dump(ParseOne("+OK\r\n")), "simple-string'OK'");
  EXPECT_EQ(Dump(ParseOne("-ERR unknown command\r\n")), "error'ERR unknown command'");
  EXPECT_EQ(Dump(ParseOne(":42\r\n")), "integer:42");
  EXPECT_EQ(Dump(ParseOne(":-9223372036854775808\r\n")), "integer:-9223372036854775808");
  EXPECT_EQ(Dump(ParseOne("$5\r\nhel\rl\r\n")), "bulk-string'hel\rl'");
  EXPECT_EQ(Dump(ParseOne("$0\r\n\r\n")), "bulk-string");
  EXPECT_EQ(Dump(ParseOne("$-1\r\n")), "null(nil)");
  EXPECT_EQ(Dump(ParseOne("*-1\r\n")), "null(nil)");
  EXPECT_EQ(Dump(ParseOne("*0\r\n")), "array");
  EXPECT_EQ(Dump(ParseOne("+\r\n")), "simple-string");
}

TEST(RespReaderTest, Resp2Array) {
  Reply r = ParseOne("*3\r\n$3\r\nfoo\r\n:7\r\n$-1\r\n");
  ASSERT_EQ(r.type, Type::kArray);
  ASSERT_EQ(r.elements.size(), 3u);
  EXPECT_EQ(r.elements[0].str, "foo");
  EXPECT_EQ(r.elements[1].integer, 7);
  EXPECT_TRUE(r.elements[2].is_null);
}

TEST(RespReaderTest, Resp3Scalars) {
  EXPECT_EQ(Dump(ParseOne("_\r\n")), "null(nil)");
  EXPECT_EQ(Dump(ParseOne(",3.14\r\n")), "double'3.14'");
  EXPECT_EQ(Dump(ParseOne(",-inf\r\n")), "double'-inf'");
  EXPECT_EQ(Dump(ParseOne(",1e-5\r\n")), "double'1e-5'");
  EXPECT_EQ(Dump(ParseOne("#t\r\n")), "boolean:1");
  EXPECT_EQ(Dump(ParseOne("#f\r\n")), "boolean:0");
  EXPECT_EQ(Dump(ParseOne("(3492890328409238509324850943850943825024385\r\n")),
            "big-number'3492890328409238509324850943850943825024385'");
  EXPECT_EQ(Dump(ParseOne("!21\r\nSYNTAX invalid syntax\r\n")),
            "blob-error'SYNTAX invalid syntax'");
  EXPECT_EQ(Dump(ParseOne("=15\r\ntxt:Some string\r\n")), "verbatim-string'Some string'");
}

TEST(RespReaderTest, Resp3Aggregates) {
  Reply m = ParseOne("%2\r\n+first\r\n:1\r\n$6\r\nsecond\r\n#t\r\n");
  ASSERT_EQ(m.type, Type::kMap);
  ASSERT_EQ(m.elements.size(), 4u);
  ASSERT_NE(m.Find("second"), nullptr);
  EXPECT_EQ(m.Find("second")->integer, 1);
  EXPECT_EQ(m.Find("first")->integer, 1);
  EXPECT_EQ(m.Find("third"), nullptr);
  EXPECT_EQ(Dump(ParseOne("~2\r\n+a\r\n+b\r\n")), "set[simple-string'a',simple-string'b',]");
  EXPECT_EQ(Dump(ParseOne(">3\r\n+message\r\n+chan\r\n$2\r\nhi\r\n")),
            "push[simple-string'message',simple-string'chan',bulk-string'hi',]");
  EXPECT_EQ(Dump(ParseOne("%0\r\n")), "map");
}

TEST(RespReaderTest, AttributesAreDropped) {
  const std::string attr = "|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.19\r\n";
  Reply r = ParseOne(attr + "*2\r\n:2\r\n" + attr + ":3\r\n");
  EXPECT_EQ(Dump(r), "array[integer:2,integer:3,]");
  Summary s = SummaryOf(attr + "+OK\r\n");
  EXPECT_EQ(s.type, Type::kSimpleString);
  EXPECT_EQ(s.wire_bytes, attr.size() + 5);
  EXPECT_EQ(Dump(ParseOne("|0\r\n:5\r\n")), "integer:5");
}

TEST(RespReaderTest, NestedAggregates) {
  Reply r = ParseOne("*2\r\n*2\r\n:1\r\n*1\r\n%1\r\n+k\r\n~1\r\n_\r\n*0\r\n");
  EXPECT_EQ(Dump(r),
            "array[array[integer:1,array[map[simple-string'k',set[null(nil),],],],],array,]");
}

TEST(RespReaderTest, SummaryFields) {
  Summary ok = SummaryOf("+OK\r\n");
  EXPECT_EQ(ok.type, Type::kSimpleString);
  EXPECT_EQ(ok.wire_bytes, 5u);
  EXPECT_FALSE(ok.is_error);

  Summary get = SummaryOf("$100\r\n" + std::string(100, 'v') + "\r\n");
  EXPECT_EQ(get.type, Type::kBulkString);
  EXPECT_EQ(get.wire_bytes, 108u);

  Summary miss = SummaryOf("$-1\r\n");
  EXPECT_TRUE(miss.is_null);
  EXPECT_EQ(miss.type, Type::kNull);

  Summary n = SummaryOf(":-12\r\n");
  EXPECT_EQ(n.integer, -12);

  Summary err = SummaryOf("-OOM command not allowed\r\n");
  EXPECT_TRUE(err.is_error);
  EXPECT_EQ(err.error, "OOM command not allowed");

  Summary blob = SummaryOf("!5\r\nERR x\r\n");
  EXPECT_TRUE(blob.is_error);
  EXPECT_EQ(blob.error, "ERR x");

  Summary nested = SummaryOf("*2\r\n-ERR a\r\n:1\r\n");
  EXPECT_EQ(nested.type, Type::kArray);
  EXPECT_FALSE(nested.is_error);
}

TEST(RespReaderTest, SummaryErrorTextIsCapped) {
  const std::string text(1000, 'e');
  EXPECT_EQ(SummaryOf("-" + text + "\r\n").error.size(), 256u);
  EXPECT_EQ(SummaryOf("!1000\r\n" + text + "\r\n").error.size(), 256u);
}

// Found by fuzz/resp_fuzz.cc: the one-pass path (std::from_chars) took leading zeros
// past 19 characters, the incremental path refused them, so the outcome depended on
// how the input was split.
TEST(RespReaderTest, LeadingZerosParseTheSameWholeOrSplit) {
  const std::string in = ":0000000000001367604570247286253\r\n";
  for (Mode mode : {Mode::kFull, Mode::kSummary}) {
    const Outcome whole = ParseWhole(mode, in);
    ASSERT_FALSE(whole.failed) << whole.error;
    EXPECT_EQ(Parse(mode, Bytewise(in)), whole);
  }
  EXPECT_EQ(SummaryOf(in).integer, 1367604570247286253);
  EXPECT_EQ(Dump(ParseOne("$00000000000000000003\r\nabc\r\n")), "bulk-string'abc'");
  EXPECT_EQ(ParseWhole(Mode::kFull, ":00000000000000000009223372036854775808\r\n").failed, true);
}

// Found by fuzz/resp_fuzz.cc under UBSan: a 19-digit bulk length overflowed int64 in
// the one-pass path.
TEST(RespReaderTest, HugeBulkLengthIsAnErrorNotAnOverflow) {
  const std::string in = "$9999999999999999999\r\n";
  for (Mode mode : {Mode::kFull, Mode::kSummary}) {
    const Outcome whole = ParseWhole(mode, in);
    EXPECT_TRUE(whole.failed);
    EXPECT_NE(whole.error.find("bad bulk-string length"), std::string::npos) << whole.error;
    EXPECT_EQ(Parse(mode, Bytewise(in)), whole);
  }
}

TEST(RespReaderTest, SeveralRepliesInOneBuffer) {
  const std::string in = "+OK\r\n$3\r\nabc\r\n:1\r\n*1\r\n$-1\r\n-ERR no\r\n";
  Outcome full = ParseWhole(Mode::kFull, in);
  EXPECT_FALSE(full.failed);
  EXPECT_EQ(full.consumed, in.size());
  EXPECT_EQ(full.replies,
            (std::vector<std::string>{"simple-string'OK'", "bulk-string'abc'", "integer:1",
                                      "array[null(nil),]", "error'ERR no'"}));
  Outcome summary = ParseWhole(Mode::kSummary, in);
  ASSERT_EQ(summary.summaries.size(), 5u);
  EXPECT_EQ(summary.summaries[1], "bulk-string int=0 bytes=9");
  EXPECT_EQ(summary.summaries[4], "error error='ERR no' int=0 bytes=9");
}

// "+OK\r\n" after another reply takes Feed's in-line path: its summary must be the one
// the general parser gives, whatever the reply before it left in the summary.
TEST(RespReaderTest, OkAfterEveryKindOfReplyHasAFreshSummary) {
  const std::vector<std::string> before = {"+OK\r\n", "-ERR bad\r\n", ":42\r\n", "$-1\r\n",
                                           "$3\r\nabc\r\n", "*1\r\n-ERR in\r\n", "+OKAY\r\n"};
  for (const auto& first : before) {
    const std::string in = first + "+OK\r\n+OK\r\n";
    Outcome whole = ParseWhole(Mode::kSummary, in);
    ASSERT_EQ(whole.summaries.size(), 3u) << first;
    EXPECT_EQ(whole.summaries[1], "simple-string int=0 bytes=5") << first;
    EXPECT_EQ(whole.summaries[2], "simple-string int=0 bytes=5") << first;
    Reader r(Mode::kSummary);
    size_t used = 0;
    ASSERT_EQ(r.Feed(first.data(), first.size(), &used), Reader::Event::kReply);
    ASSERT_EQ(r.Feed("+OK\r\n", 5, &used), Reader::Event::kReply);
    EXPECT_FALSE(r.summary().is_error);
    EXPECT_TRUE(r.summary().error.empty()) << first;
    EXPECT_FALSE(r.summary().is_null);
    EXPECT_EQ(r.summary().integer, 0);
    EXPECT_EQ(r.summary().wire_bytes, 5u);
  }
}

TEST(RespReaderTest, FeedStopsAfterEachReply) {
  const std::string in = "+A\r\n+B\r\n";
  Reader reader(Mode::kSummary);
  size_t used = 0;
  ASSERT_EQ(reader.Feed(in.data(), in.size(), &used), Event::kReply);
  EXPECT_EQ(used, 4u);
  ASSERT_EQ(reader.Feed(in.data() + 4, 4, &used), Event::kReply);
  EXPECT_EQ(used, 4u);
  EXPECT_EQ(reader.Feed(in.data(), 0, &used), Event::kNeedMore);
  EXPECT_EQ(used, 0u);
}

// Inputs that cover every type, nesting, attributes and several replies.
const std::vector<std::string>& Corpus() {
  static const std::vector<std::string> corpus = {
      "+OK\r\n",
      "-ERR wrong number of arguments\r\n",
      ":123456789\r\n",
      "$10\r\n0123\r\n6789\r\n",
      "$-1\r\n*-1\r\n*0\r\n$0\r\n\r\n",
      "*3\r\n$3\r\nfoo\r\n:-1\r\n*2\r\n+a\r\n-b\r\n",
      "_\r\n,2.5\r\n#t\r\n(-123\r\n!3\r\nERR\r\n=7\r\ntxt:abc\r\n",
      "%2\r\n+a\r\n~2\r\n:1\r\n:2\r\n$1\r\nb\r\n>2\r\n+x\r\n_\r\n",
      "|1\r\n+ttl\r\n:3\r\n*2\r\n|1\r\n+a\r\n+b\r\n:1\r\n:2\r\n",
      "!300\r\n" + std::string(300, 'x') + "\r\n",
  };
  return corpus;
}

TEST(RespReaderTest, EverySplitGivesTheSameResult) {
  for (Mode mode : {Mode::kFull, Mode::kSummary}) {
    for (const std::string& in : Corpus()) {
      const Outcome whole = ParseWhole(mode, in);
      ASSERT_FALSE(whole.failed) << in << ": " << whole.error;
      ASSERT_FALSE(whole.summaries.empty());
      EXPECT_EQ(Parse(mode, Bytewise(in)), whole) << in;
      for (size_t i = 1; i < in.size(); ++i) {
        EXPECT_EQ(Parse(mode, {in.substr(0, i), in.substr(i)}), whole) << in << " split at " << i;
      }
    }
  }
}

struct BadInput {
  std::string in;
  std::string error;  // a substring of Reader::error()
};

const std::vector<BadInput>& BadInputs() {
  static const std::vector<BadInput> bad = {
      {"?x\r\n", "unknown type byte '?' at byte 0"},
      {"HTTP/1.1 400 Bad Request\r\n", "unknown type byte 'H'"},
      {"*2\r\n:1\r\nX\r\n", "unknown type byte 'X' at byte 8"},
      {"*1\r\n\x01", "unknown type byte '\\x01' at byte 4"},
      {"$abc\r\n", "bad bulk-string length 'abc'"},
      {"$\r\n", "bad bulk-string length"},
      {"$-2\r\n", "bad bulk-string length '-2'"},
      {"$+3\r\nabc\r\n", "bad bulk-string length"},
      {"*-5\r\n", "bad array length '-5'"},
      {"%-1\r\n", "bad map length"},
      {"!-1\r\n", "bad blob-error length"},
      {"$3\r\nabcX\r\n", "bulk string of 3 bytes not followed by CRLF at byte 7"},
      {"$3\r\nabc\rX", "not followed by CRLF at byte 8"},
      {":12a\r\n", "bad integer '12a'"},
      {":\r\n", "bad integer"},
      {":99999999999999999999\r\n", "bad integer"},
      {":9223372036854775808\r\n", "bad integer"},
      {"#x\r\n", "bad boolean 'x'"},
      {"#\r\n", "bad boolean"},
      {"#tt\r\n", "bad boolean"},
      {"_x\r\n", "null with a payload"},
      {",abc\r\n", "bad double 'abc'"},
      {",\r\n", "bad double"},
      {"(12a\r\n", "bad big number"},
      {"+OK\n", "line not terminated by CRLF at byte 3"},
      {"$?\r\n;4\r\nabcd\r\n;0\r\n", "streamed RESP3 types are not supported"},
      {"*?\r\n", "streamed RESP3 types are not supported"},
      {";4\r\nabcd\r\n", "streamed RESP3 types are not supported"},
      {"=3\r\nabc\r\n", "verbatim string without"},
      {"=5\r\ntxt!a\r\n", "verbatim string without"},
  };
  return bad;
}

TEST(RespReaderTest, MalformedInputsAreProtocolErrors) {
  for (Mode mode : {Mode::kFull, Mode::kSummary}) {
    for (const BadInput& b : BadInputs()) {
      Outcome whole = ParseWhole(mode, b.in);
      EXPECT_TRUE(whole.failed) << b.in;
      EXPECT_NE(whole.error.find(b.error), std::string::npos) << b.in << " -> " << whole.error;
      EXPECT_EQ(Parse(mode, Bytewise(b.in)), whole) << b.in;
    }
  }
}

TEST(RespReaderTest, StaysFailedUntilReset) {
  Reader reader(Mode::kFull);
  size_t used = 0;
  ASSERT_EQ(reader.Feed("?\r\n", 3, &used), Event::kProtocolError);
  EXPECT_EQ(reader.Feed("+OK\r\n", 5, &used), Event::kProtocolError);
  EXPECT_EQ(used, 0u);
  reader.Reset();
  EXPECT_TRUE(reader.error().empty());
  ASSERT_EQ(reader.Feed("+OK\r\n", 5, &used), Event::kReply);
  EXPECT_EQ(reader.TakeReply().str, "OK");
}

TEST(RespReaderTest, ResetDropsAPartialReply) {
  Reader reader(Mode::kFull);
  size_t used = 0;
  ASSERT_EQ(reader.Feed("*2\r\n$5\r\nab", 10, &used), Event::kNeedMore);
  reader.Reset();
  ASSERT_EQ(reader.Feed(":1\r\n", 4, &used), Event::kReply);
  EXPECT_EQ(Dump(reader.TakeReply()), "integer:1");
  EXPECT_EQ(reader.summary().wire_bytes, 4u);
}

TEST(RespReaderTest, Limits) {
  Reader::Limits limits;
  limits.max_line = 8;
  limits.max_bulk = 10;
  limits.max_elements = 3;
  limits.max_depth = 2;
  auto fails = [&](const std::string& in, const std::string& what) {
    for (Mode mode : {Mode::kFull, Mode::kSummary}) {
      ExpectFailsWholeAndBytewise(in, what, [&](const auto& c) { return Parse(mode, c, limits); });
    }
  };
  auto passes = [&](const std::string& in) {
    Outcome o = Parse(Mode::kFull, {in}, limits);
    EXPECT_FALSE(o.failed) << in << " -> " << o.error;
    EXPECT_EQ(o.replies.size(), 1u) << in;
  };
  passes("+12345678\r\n");
  fails("+123456789\r\n", "line longer than 8 bytes");
  fails("+" + std::string(100, 'a'), "line longer than 8 bytes");  // no CRLF ever comes
  passes("$10\r\n0123456789\r\n");
  fails("$11\r\n", "bulk length 11 over the limit of 10");
  passes("*3\r\n:1\r\n:2\r\n:3\r\n");
  fails("*4\r\n", "array of 4 elements over the limit of 3");
  passes("*1\r\n*1\r\n:1\r\n");
  fails("*1\r\n*1\r\n*1\r\n:1\r\n", "nesting deeper than 2");
}

// Random mutations of valid replies and random bytes, fed in random chunks: the reader
// must never crash, and must give the same outcome however the input is split.
TEST(RespReaderTest, FuzzNeverCrashesAndIsSplitInvariant) {
  std::mt19937 rng(20240611);
  const std::string alphabet = "+-:$*_,#(!=%~|>\r\n0123456789-?tfx.";
  Reader::Limits limits;
  limits.max_bulk = 4096;
  limits.max_elements = 4096;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string in = Corpus()[rng() % Corpus().size()];
    int mutations = 1 + static_cast<int>(rng() % 4);
    for (int m = 0; m < mutations && !in.empty(); ++m) {
      size_t at = rng() % in.size();
      switch (rng() % 4) {
        case 0:
          in[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          in[at] = static_cast<char>(rng());
          break;
        case 2:
          in.erase(at, 1 + rng() % 3);
          break;
        default:
          in.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
      }
    }
    const Mode mode = iter % 2 == 0 ? Mode::kFull : Mode::kSummary;
    const Outcome whole = Parse(mode, {in}, limits);
    ASSERT_EQ(Parse(mode, RandomChunks(in, 7, &rng), limits), whole) << "iteration " << iter;
  }
}

TEST(RespEncoderTest, EncodeCommand) {
  EXPECT_EQ(EncodeCommand({"SET", "key", "value"}),
            "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n");
  EXPECT_EQ(EncodeCommand({"PING"}), "*1\r\n$4\r\nPING\r\n");
  EXPECT_EQ(EncodeCommand({"GET", ""}), "*2\r\n$3\r\nGET\r\n$0\r\n\r\n");
}

TEST(RespEncoderTest, AppendToBuffer) {
  Buffer buf(8);  // small, so every append has to grow it
  AppendArrayHeader(&buf, 0);
  AppendArrayHeader(&buf, 1234567890);
  AppendBulk(&buf, "a\r\nb");
  std::vector<std::string_view> args = {"HSET", "h", "f", std::string_view("\0v", 2)};
  AppendCommand(&buf, args);
  using namespace std::string_view_literals;
  EXPECT_EQ(buf.View(),
            "*0\r\n*1234567890\r\n$4\r\na\r\nb\r\n"
            "*4\r\n$4\r\nHSET\r\n$1\r\nh\r\n$1\r\nf\r\n$2\r\n\0v\r\n"sv);
}

TEST(RespEncoderTest, RoundTripThroughTheReader) {
  const std::string big(123456, 'z');
  std::vector<std::string_view> args = {"SET", "key:12345", big, "",
                                        std::string_view("bin\r\n\0x", 7)};
  Buffer buf;
  AppendCommand(&buf, args);
  const std::string wire(buf.View());
  for (const auto& chunks : {std::vector<std::string>{wire}, Bytewise(wire)}) {
    Reader reader(Mode::kFull);
    Outcome o = FeedChunks(&reader, Mode::kFull, chunks);
    ASSERT_FALSE(o.failed) << o.error;
    ASSERT_EQ(o.summaries.size(), 1u);
  }
  Reply r = ParseOne(wire);
  ASSERT_EQ(r.elements.size(), args.size());
  for (size_t i = 0; i < args.size(); ++i) EXPECT_EQ(r.elements[i].str, args[i]) << i;
}

TEST(RespTypeNameTest, NamesEveryType) {
  EXPECT_STREQ(TypeName(Type::kVerbatim), "verbatim-string");
  EXPECT_STREQ(TypeName(Type::kPush), "push");
}

// KeepHead: the first bytes of a top-level bulk string, whole or split anywhere, fast
// path or not; nothing of a nested one or of an error.
TEST(RespReaderTest, KeepHeadKeepsTheFirstBytesOfABulkStringHoweverItArrives) {
  const std::string wire = "$10\r\n0123456789\r\n$3\r\nabc\r\n*1\r\n$4\r\nzzzz\r\n$0\r\n\r\n";
  const std::vector<std::string> want = {"012345", "abc", "", ""};
  for (size_t chunk : {wire.size(), size_t{1}, size_t{3}, size_t{7}}) {
    Reader r(Reader::Mode::kSummary);
    r.KeepHead(6);
    std::vector<std::string> heads;
    size_t off = 0;
    while (off < wire.size()) {
      const size_t n = std::min(chunk, wire.size() - off);
      size_t used = 0;
      const auto ev = r.Feed(wire.data() + off, n, &used);
      ASSERT_NE(ev, Reader::Event::kProtocolError);
      off += used;
      if (ev == Reader::Event::kReply) {
        const auto& s = r.summary();
        heads.push_back(s.type == Type::kBulkString ? s.head : "");
      }
    }
    EXPECT_EQ(heads, want) << "chunk " << chunk;
  }
}

}  // namespace
}  // namespace memstand::resp
