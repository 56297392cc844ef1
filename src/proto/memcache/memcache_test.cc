#include "proto/memcache/memcache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "codec/feed_util.h"

namespace memstand::memcache {
namespace {

using codec_test::Bytewise;
using codec_test::ExpectFailsWholeAndBytewise;
using codec_test::ExpectSplitInvariant;
using codec_test::FeedChunks;
using codec_test::Outcome;
using codec_test::RandomChunks;
using Mode = Reader::Mode;
using Event = Reader::Event;

std::string Dump(const Summary& s) {
  std::string out = KindName(s.kind);
  if (s.is_error) out += " error='" + s.error + "'";
  if (s.kind == Kind::kValues || s.kind == Kind::kStats) out += " n=" + std::to_string(s.values);
  if (s.value_bytes > 0) out += " data=" + std::to_string(s.value_bytes);
  if (s.kind == Kind::kNumber) out += " " + std::to_string(s.number);
  return out + " bytes=" + std::to_string(s.wire_bytes);
}

std::string Dump(const Reply& r) {
  std::string out = KindName(r.kind);
  for (const Value& v : r.values) {
    out += " {" + v.key + " " + std::to_string(v.flags) + " '" + v.data + "'";
    if (v.has_cas) out += " cas=" + std::to_string(v.cas);
    out += "}";
  }
  for (const auto& [k, v] : r.stats) out += " " + k + "=" + v;
  if (!r.text.empty()) out += " '" + r.text + "'";
  if (r.kind == Kind::kNumber) out += " " + std::to_string(r.number);
  return out;
}

std::string DumpReader(Reader* r, Mode mode) {
  std::string s = Dump(r->summary());
  if (mode == Mode::kFull) s += " | " + Dump(r->TakeReply());
  return s;
}

Outcome Parse(Mode mode, const std::vector<std::string>& chunks, Reader::Limits limits = {}) {
  Reader reader(mode, limits);
  return FeedChunks(&reader, chunks, [mode](Reader* r) { return DumpReader(r, mode); });
}

Outcome SplitInvariant(Mode mode, const std::string& in) {
  return ExpectSplitInvariant(
      in, [mode] { return Reader(mode); }, [mode](Reader* r) { return DumpReader(r, mode); });
}

Reply ParseOne(const std::string& in) { return codec_test::FullReplyOf<Reader>(in); }
Summary SummaryOf(const std::string& in) { return codec_test::SummaryOf<Reader>(in); }

TEST(MemcacheReaderTest, SingleLineReplies) {
  EXPECT_EQ(Dump(ParseOne("STORED\r\n")), "stored");
  EXPECT_EQ(Dump(ParseOne("NOT_STORED\r\n")), "not-stored");
  EXPECT_EQ(Dump(ParseOne("EXISTS\r\n")), "exists");
  EXPECT_EQ(Dump(ParseOne("NOT_FOUND\r\n")), "not-found");
  EXPECT_EQ(Dump(ParseOne("DELETED\r\n")), "deleted");
  EXPECT_EQ(Dump(ParseOne("TOUCHED\r\n")), "touched");
  EXPECT_EQ(Dump(ParseOne("OK\r\n")), "ok");
  EXPECT_EQ(Dump(ParseOne("VERSION 1.6.18\r\n")), "version '1.6.18'");
  EXPECT_EQ(Dump(ParseOne("18446744073709551615\r\n")), "number 18446744073709551615");
  EXPECT_EQ(Dump(ParseOne("0\r\n")), "number 0");
}

TEST(MemcacheReaderTest, Errors) {
  Summary e = SummaryOf("ERROR\r\n");
  EXPECT_TRUE(e.is_error);
  EXPECT_EQ(e.kind, Kind::kError);
  EXPECT_EQ(e.error, "ERROR");
  Summary c = SummaryOf("CLIENT_ERROR bad data chunk\r\n");
  EXPECT_EQ(c.kind, Kind::kClientError);
  EXPECT_EQ(c.error, "bad data chunk");
  Summary s = SummaryOf("SERVER_ERROR out of memory storing object\r\n");
  EXPECT_EQ(s.kind, Kind::kServerError);
  EXPECT_EQ(s.error, "out of memory storing object");
  EXPECT_EQ(s.wire_bytes, 43u);
  EXPECT_EQ(Dump(ParseOne("CLIENT_ERROR line too long\r\n")), "client-error 'line too long'");
  EXPECT_EQ(SummaryOf("SERVER_ERROR " + std::string(1000, 'x') + "\r\n").error.size(), 256u);
}

TEST(MemcacheReaderTest, GetHitAndMiss) {
  Summary miss = SummaryOf("END\r\n");
  EXPECT_EQ(miss.kind, Kind::kValues);
  EXPECT_FALSE(miss.hit());
  EXPECT_EQ(miss.wire_bytes, 5u);

  const std::string hit_wire = "VALUE key:1 0 5\r\nhello\r\nEND\r\n";
  Summary hit = SummaryOf(hit_wire);
  EXPECT_TRUE(hit.hit());
  EXPECT_EQ(hit.values, 1u);
  EXPECT_EQ(hit.value_bytes, 5u);
  EXPECT_EQ(hit.wire_bytes, hit_wire.size());
  EXPECT_EQ(Dump(ParseOne(hit_wire)), "values {key:1 0 'hello'}");
}

TEST(MemcacheReaderTest, MultiGetWithCasAndBinaryData) {
  Reply r = ParseOne(
      "VALUE a 42 3 7\r\nx\r\n\r\nVALUE b 4294967295 0 18446744073709551615\r\n\r\nEND\r\n");
  ASSERT_EQ(r.kind, Kind::kValues);
  ASSERT_EQ(r.values.size(), 2u);
  EXPECT_EQ(r.values[0].key, "a");
  EXPECT_EQ(r.values[0].flags, 42u);
  EXPECT_EQ(r.values[0].data, "x\r\n");
  EXPECT_TRUE(r.values[0].has_cas);
  EXPECT_EQ(r.values[0].cas, 7u);
  EXPECT_EQ(r.values[1].flags, 4294967295u);
  EXPECT_EQ(r.values[1].data, "");
  EXPECT_EQ(r.values[1].cas, 18446744073709551615u);
}

TEST(MemcacheReaderTest, StatsBlockIntoAMap) {
  const std::string wire =
      "STAT pid 1234\r\nSTAT version 1.6.18\r\nSTAT cmd_get 10\r\nSTAT libevent 2.1.12-stable\r\n"
      "STAT rusage_user 0.012 345\r\nEND\r\n";
  Reply r = ParseOne(wire);
  ASSERT_EQ(r.kind, Kind::kStats);
  auto stats = StatsMap(r);
  EXPECT_EQ(stats.size(), 5u);
  EXPECT_EQ(stats["cmd_get"], "10");
  EXPECT_EQ(stats["version"], "1.6.18");
  EXPECT_EQ(stats["rusage_user"], "0.012 345");
  Summary s = SummaryOf(wire);
  EXPECT_EQ(s.kind, Kind::kStats);
  EXPECT_EQ(s.values, 5u);
  EXPECT_EQ(s.wire_bytes, wire.size());
}

TEST(MemcacheReaderTest, ErrorInsideAValueListEndsTheReply) {
  Outcome o = Parse(Mode::kFull, {"VALUE a 0 1\r\nx\r\nSERVER_ERROR out of memory\r\nSTORED\r\n"});
  ASSERT_FALSE(o.failed) << o.error;
  ASSERT_EQ(o.replies.size(), 2u);
  EXPECT_EQ(o.replies[0], "server-error error='out of memory' bytes=44 | server-error 'out of memory'");
  EXPECT_EQ(o.replies[1], "stored bytes=8 | stored");
}

TEST(MemcacheReaderTest, SeveralRepliesInOneBuffer) {
  Outcome o = Parse(Mode::kSummary, {"STORED\r\nEND\r\nVALUE k 1 2\r\nab\r\nEND\r\n5\r\nDELETED\r\n"});
  ASSERT_FALSE(o.failed) << o.error;
  EXPECT_EQ(o.replies, (std::vector<std::string>{"stored bytes=8", "values n=0 bytes=5",
                                                 "values n=1 data=2 bytes=22", "number 5 bytes=3",
                                                 "deleted bytes=9"}));
}

const std::vector<std::string>& Corpus() {
  static const std::vector<std::string> corpus = {
      "STORED\r\n",
      "END\r\n",
      "VALUE key:000001 0 10\r\n0123\r\n6789\r\nEND\r\n",
      "VALUE a 1 1 99\r\nA\r\nVALUE bb 2 2 100\r\nBB\r\nEND\r\nNOT_FOUND\r\n",
      "STAT pid 1\r\nSTAT uptime 5\r\nSTAT version 1.6.18\r\nEND\r\n",
      "12345\r\nVERSION 1.6.18\r\nTOUCHED\r\nEXISTS\r\nNOT_STORED\r\nOK\r\n",
      "ERROR\r\nCLIENT_ERROR bad command line format\r\nSERVER_ERROR object too large for cache\r\n",
      "VALUE big 0 300\r\n" + std::string(300, 'v') + "\r\nEND\r\n",
  };
  return corpus;
}

TEST(MemcacheReaderTest, EverySplitGivesTheSameResult) {
  for (Mode mode : {Mode::kFull, Mode::kSummary}) {
    for (const std::string& in : Corpus()) {
      Outcome whole = SplitInvariant(mode, in);
      EXPECT_FALSE(whole.failed) << in << ": " << whole.error;
      EXPECT_FALSE(whole.replies.empty());
      EXPECT_EQ(whole.consumed, in.size());
    }
  }
}

struct BadInput {
  std::string in;
  std::string error;  // a substring of Reader::error()
};

TEST(MemcacheReaderTest, MalformedInputsAreProtocolErrors) {
  const std::vector<BadInput> bad = {
      {"-ERR unknown command 'get'\r\n", "unknown reply line '-ERR unknown command 'get'' at byte 0"},
      {"+PONG\r\n", "unknown reply line '+PONG'"},
      {"HTTP/1.1 400 Bad Request\r\n", "unknown reply line 'HTTP/1.1 400 Bad Request'"},
      {"\x80\x01\r\n", "unknown reply line '\\x80\\x01'"},
      {"STORED\n", "line not terminated by CRLF at byte 6"},
      {"\n", "line not terminated by CRLF at byte 0"},
      {"STORED \r\n", "unknown reply line 'STORED '"},
      {"stored\r\n", "unknown reply line 'stored'"},
      {"ERROR x\r\n", "unknown reply line 'ERROR x'"},
      {"VERSION\r\n", "unknown reply line 'VERSION'"},
      {"99999999999999999999\r\n", "number '99999999999999999999' over 2^64"},
      {"-1\r\n", "unknown reply line '-1'"},
      {"END \r\n", "bad END line"},
      {"VALUE a 0\r\n", "bad VALUE line 'VALUE a 0'"},
      {"VALUE a x 1\r\n", "bad VALUE line"},
      {"VALUE a 4294967296 1\r\n", "bad VALUE line"},
      {"VALUE a 0 -1\r\n", "bad VALUE line"},
      {"VALUE a 0 1 2 3\r\n", "bad VALUE line"},
      {"VALUE a 0 1 z\r\n", "bad VALUE line"},
      {"VALUE  0 1\r\n", "bad VALUE line"},
      {"VALUE a 0 3\r\nabcd\r\n", "value of 3 bytes not followed by CRLF at byte 16"},
      {"VALUE a 0 3\r\nabc\rX", "not followed by CRLF at byte 17"},
      {"VALUE a 0 1\r\nx\r\nSTORED\r\n", "unexpected 'STORED' inside a values reply at byte 16"},
      {"VALUE a 0 1\r\nx\r\nSTAT a b\r\n", "unexpected 'STAT a b' inside a values reply"},
      {"STAT a b\r\nVALUE a 0 1\r\n", "unexpected 'VALUE a 0 1' inside a stats reply at byte 10"},
      {"STAT a\r\n", "bad STAT line 'STAT a'"},
      {"STAT  b\r\n", "bad STAT line"},
      {"VALUE a 0 200000000\r\n", "value of 200000000 bytes over the limit of 134217728"},
      {std::string(9000, 'A'), "line longer than 8192 bytes at byte 0"},
  };
  for (Mode mode : {Mode::kFull, Mode::kSummary}) {
    for (const BadInput& b : bad) {
      Outcome whole = Parse(mode, {b.in});
      const std::string shown = b.in.substr(0, 60);
      EXPECT_TRUE(whole.failed) << shown;
      EXPECT_NE(whole.error.find(b.error), std::string::npos) << shown << " -> " << whole.error;
      EXPECT_EQ(Parse(mode, Bytewise(b.in)), whole) << shown;
    }
  }
}

TEST(MemcacheReaderTest, StaysFailedUntilReset) {
  Reader reader(Mode::kFull);
  size_t used = 0;
  ASSERT_EQ(reader.Feed("?\r\n", 3, &used), Event::kProtocolError);
  EXPECT_EQ(reader.Feed("STORED\r\n", 8, &used), Event::kProtocolError);
  EXPECT_EQ(used, 0u);
  reader.Reset();
  EXPECT_TRUE(reader.error().empty());
  ASSERT_EQ(reader.Feed("VALUE a 0 2\r\nab", 15, &used), Event::kNeedMore);
  reader.Reset();
  ASSERT_EQ(reader.Feed("STORED\r\n", 8, &used), Event::kReply);
  EXPECT_EQ(reader.TakeReply().kind, Kind::kStored);
  EXPECT_EQ(reader.summary().wire_bytes, 8u);
}

// KeepHead: the first VALUE's first n bytes, whole or cut, however the bytes are split;
// a second VALUE of the same reply and the next reply's VALUE do not mix in.
TEST(MemcacheReaderTest, KeepHeadKeepsTheFirstValuesHeadAcrossSplits) {
  const std::string two = "VALUE a 0 10\r\n0123456789\r\nVALUE b 0 3\r\nxyz\r\nEND\r\n";
  const std::string one = "VALUE c 0 2\r\nqr\r\nEND\r\n";
  for (size_t piece = 1; piece <= two.size(); ++piece) {
    SCOPED_TRACE(piece);
    Reader reader;
    reader.KeepHead(4);
    const std::string both = two + one;
    std::vector<std::string> heads;
    size_t at = 0;
    while (at < both.size()) {
      const size_t n = std::min(piece, both.size() - at);
      size_t used = 0;
      const Event ev = reader.Feed(both.data() + at, n, &used);
      ASSERT_NE(ev, Event::kProtocolError) << reader.error();
      at += used;
      if (ev == Event::kReply) heads.push_back(reader.summary().head);
    }
    EXPECT_EQ(heads, (std::vector<std::string>{"0123", "qr"}));
  }
  Reader off;  // without KeepHead nothing is kept
  size_t used = 0;
  ASSERT_EQ(off.Feed(one.data(), one.size(), &used), Event::kReply);
  EXPECT_TRUE(off.summary().head.empty());
}

TEST(MemcacheReaderTest, Limits) {
  Reader::Limits limits;
  limits.max_line = 12;
  limits.max_value = 4;
  limits.max_values = 2;
  auto fails = [&](const std::string& in, const std::string& what) {
    for (Mode mode : {Mode::kFull, Mode::kSummary}) {
      ExpectFailsWholeAndBytewise(in, what, [&](const auto& c) { return Parse(mode, c, limits); });
    }
  };
  auto passes = [&](const std::string& in) {
    Outcome o = Parse(Mode::kFull, {in}, limits);
    EXPECT_FALSE(o.failed) << in << " -> " << o.error;
  };
  passes("VALUE a 0 4\r\nabcd\r\nEND\r\n");
  passes("VERSION 1234\r\n");
  fails("VERSION 12345\r\n", "line longer than 12 bytes");
  fails("VALUE a 0 5\r\n", "value of 5 bytes over the limit of 4");
  passes("STAT a 1\r\nSTAT b 2\r\nEND\r\n");
  fails("STAT a 1\r\nSTAT b 2\r\nSTAT c 3\r\n", "more than 2 lines in one reply at byte 20");
}

// Random mutations of valid replies fed in random chunks: never a crash, and the same
// outcome however the input is split.
TEST(MemcacheReaderTest, MutationsAreSplitInvariant) {
  std::mt19937 rng(5);
  const std::string alphabet = "VALUESTORDN_ \r\n0123456789-x";
  Reader::Limits limits;
  limits.max_value = 4096;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string in = Corpus()[rng() % Corpus().size()];
    for (int m = 0, n = 1 + static_cast<int>(rng() % 4); m < n && !in.empty(); ++m) {
      const size_t at = rng() % in.size();
      switch (rng() % 3) {
        case 0:
          in[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          in.erase(at, 1 + rng() % 3);
          break;
        default:
          in.insert(at, 1, static_cast<char>(rng()));
          break;
      }
    }
    const Mode mode = iter % 2 == 0 ? Mode::kFull : Mode::kSummary;
    const Outcome whole = Parse(mode, {in}, limits);
    ASSERT_EQ(Parse(mode, RandomChunks(in, 7, &rng), limits), whole) << "iteration " << iter;
  }
}

TEST(MemcacheEncoderTest, Retrieval) {
  Buffer b(4);
  AppendGet(&b, "key:1");
  std::vector<std::string_view> keys = {"a", "bb", "ccc"};
  AppendGet(&b, keys, true);
  EXPECT_EQ(b.View(), "get key:1\r\ngets a bb ccc\r\n");
}

TEST(MemcacheEncoderTest, Storage) {
  Buffer b(4);
  AppendStore(&b, StoreCommand::kSet, "k", 0, 0, "hello");
  AppendStore(&b, StoreCommand::kAdd, "k", 4294967295u, -1, "");
  AppendStore(&b, StoreCommand::kReplace, "k", 1, 3600, "a\r\nb", true);
  AppendStore(&b, StoreCommand::kAppend, "k", 0, 0, "x");
  AppendStore(&b, StoreCommand::kPrepend, "k", 0, 0, "y", true);
  AppendCas(&b, "k", 7, 10, "v", 18446744073709551615u);
  AppendCas(&b, "k", 0, 0, "", 1, true);
  EXPECT_EQ(b.View(),
            "set k 0 0 5\r\nhello\r\n"
            "add k 4294967295 -1 0\r\n\r\n"
            "replace k 1 3600 4 noreply\r\na\r\nb\r\n"
            "append k 0 0 1\r\nx\r\n"
            "prepend k 0 0 1 noreply\r\ny\r\n"
            "cas k 7 10 1 18446744073709551615\r\nv\r\n"
            "cas k 0 0 0 1 noreply\r\n\r\n");
}

TEST(MemcacheEncoderTest, OtherCommands) {
  Buffer b(4);
  AppendDelete(&b, "k");
  AppendDelete(&b, "k", true);
  AppendIncr(&b, "n", 1);
  AppendDecr(&b, "n", 18446744073709551615u, true);
  AppendTouch(&b, "k", 60);
  AppendTouch(&b, "k", -1, true);
  AppendVersion(&b);
  AppendStats(&b);
  AppendStats(&b, "settings");
  EXPECT_EQ(b.View(),
            "delete k\r\ndelete k noreply\r\nincr n 1\r\n"
            "decr n 18446744073709551615 noreply\r\ntouch k 60\r\ntouch k -1 noreply\r\n"
            "version\r\nstats\r\nstats settings\r\n");
}

TEST(MemcacheEncoderTest, KeyRule) {
  EXPECT_TRUE(IsValidKey("key:0001"));
  EXPECT_TRUE(IsValidKey(std::string(250, 'k')));
  EXPECT_FALSE(IsValidKey(std::string(251, 'k')));
  EXPECT_FALSE(IsValidKey(""));
  EXPECT_FALSE(IsValidKey("a b"));
  EXPECT_FALSE(IsValidKey("a\r\n"));
  EXPECT_FALSE(IsValidKey("a\x7f"));
  EXPECT_TRUE(IsValidKey("ключ"));  // UTF-8 bytes are allowed
}

}  // namespace
}  // namespace memstand::memcache
