// The PostgreSQL codec: exact encoder bytes; the reader whole, byte by byte and at every
// two-part split; malformed and hostile inputs are protocol errors naming the fault.
#include "proto/pg/pg.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codec/feed_util.h"

namespace memstand::pg {
namespace {

using codec_test::ExpectFailsWholeAndBytewise;
using codec_test::ExpectSplitInvariant;
using codec_test::FeedChunks;
using codec_test::Outcome;

std::string Int32(uint32_t v) {
  std::string out;
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
  return out;
}

std::string Msg(char type, const std::string& body) { return std::string(1, type) + Int32(body.size() + 4) + body; }

std::string Row(const std::vector<std::string>& fields) {
  std::string body = {static_cast<char>(fields.size() >> 8), static_cast<char>(fields.size() & 0xff)};
  for (const std::string& f : fields) body += Int32(f.size()) + f;
  return Msg('D', body);
}

const std::string kReady = Msg('Z', "I");

std::string Dump(Reader* r) {
  Reply reply = r->TakeReply();
  std::string out = "tag=" + reply.tag + " messages=" + std::to_string(reply.messages);
  if (reply.has_error) out += " error=" + reply.error;
  for (const auto& row : reply.rows) {
    out += " [";
    for (const std::string& f : row) out += f + ";";
    out += "]";
  }
  return out;
}

Outcome Parse(Reader::Phase phase, const std::vector<std::string>& chunks) {
  Reader reader(phase);
  return FeedChunks(&reader, chunks, Dump);
}

TEST(PgCodecTest, EncodersWriteTheProtocolsBytes) {
  std::string out;
  AppendStartup(&out, "u", "d");
  EXPECT_EQ(out, Int32(4 + 4 + 5 + 2 + 9 + 2 + 1) + Int32(196608) + std::string("user\0u\0database\0d\0\0", 19));
  out.clear();
  AppendQuery(&out, "SELECT 1");
  EXPECT_EQ(out, std::string("Q") + Int32(13) + std::string("SELECT 1\0", 9));
  out.clear();
  AppendTerminate(&out);
  EXPECT_EQ(out, std::string("X") + Int32(4));
}

TEST(PgCodecTest, AQueryReplyParsesTheSameAtEverySplit) {
  const std::string reply = Msg('T', std::string("\x00\x02", 2) + "ignored") + Row({"7", "hammer"}) +
                            Msg('N', "SNOTICE") + Row({"8", ""}) +
                            Msg('D', std::string("\x00\x01", 2) + Int32(0xffffffffu)) +
                            Msg('C', std::string("SELECT 3") + '\0') + kReady;
  const Outcome o = ExpectSplitInvariant(reply, [] { return Reader(Reader::Phase::kQuery); }, Dump);
  ASSERT_FALSE(o.failed) << o.error;
  ASSERT_EQ(o.replies.size(), 1u);
  EXPECT_EQ(o.replies[0], "tag=SELECT 3 messages=7 [7;hammer;] [8;;] [;]");
  EXPECT_EQ(o.consumed, reply.size());
}

TEST(PgCodecTest, TheBytesAfterAReplyAreLeftForTheNext) {
  const std::string two = Msg('C', std::string("SELECT 0") + '\0') + kReady + Row({"1"}) + kReady;
  Reader reader(Reader::Phase::kQuery);
  size_t used = 0;
  ASSERT_EQ(reader.Feed(two.data(), two.size(), &used), Reader::Event::kReply);
  EXPECT_EQ(used, 14u + 6u);  // CommandComplete, ReadyForQuery
  EXPECT_EQ(reader.TakeReply().tag, "SELECT 0");
  size_t more = 0;
  ASSERT_EQ(reader.Feed(two.data() + used, two.size() - used, &more), Reader::Event::kReply);
  EXPECT_EQ(reader.TakeReply().rows.size(), 1u);
}

TEST(PgCodecTest, AnErrorIsPartOfTheReplyAndEndsAStartupAtOnce) {
  const Outcome q = Parse(Reader::Phase::kQuery, {Msg('E', std::string("SERROR\0Mno such table\0\0", 24)) + kReady});
  ASSERT_EQ(q.replies.size(), 1u);
  EXPECT_EQ(q.replies[0], "tag= messages=2 error=no such table");
  for (const std::string& body : {std::string(1, '\0'), std::string("SERROR"), std::string("Mno end")}) {
    EXPECT_EQ(ErrorText(body), "error without a message") << body;
  }
  // At the startup the server closes after an ErrorResponse: no ReadyForQuery follows.
  const Outcome s = Parse(Reader::Phase::kStartup, {Msg('E', std::string("Mrole \"x\" does not exist\0\0", 27))});
  ASSERT_EQ(s.replies.size(), 1u);
  EXPECT_EQ(s.replies[0], "tag= messages=1 error=role \"x\" does not exist");
  const Outcome ok = Parse(Reader::Phase::kStartup, {Msg('R', Int32(0)) + Msg('S', std::string("a\0b\0", 4)) +
                                                     Msg('K', Int32(1) + Int32(2)) + kReady});
  ASSERT_EQ(ok.replies.size(), 1u) << ok.error;
  EXPECT_EQ(ok.replies[0], "tag= messages=4");
}

TEST(PgCodecTest, MalformedAndHostileInputsAreProtocolErrors) {
  const std::pair<std::string, std::string> query_cases[] = {
      {std::string("D") + Int32(3), "a message of length 3"},
      {std::string("D") + Int32(0xffffffffu), "a message of length 4294967295"},
      {std::string("D") + Int32((1u << 30) + 1), "a message of length 1073741825"},
      {Msg('D', std::string(1, '\0')), "a DataRow without a column count"},
      {Msg('D', std::string("\xff\xff", 2)), "a DataRow cut short"},  // 65,535 columns, no data
      {Msg('D', std::string("\x00\x01", 2) + Int32(100) + "short"), "a DataRow cut short"},
      {Msg('D', std::string("\x00\x02", 2) + Int32(1) + "x" + "ab"), "a DataRow cut short"},
      {Msg('D', std::string("\x00\x01", 2) + Int32(1) + "xy"), "a DataRow with bytes after its last column"},
      {Msg('G', std::string(3, '\0')), "a COPY reply ('G') to a query that is not a COPY"},
      {Msg('H', std::string(3, '\0')), "a COPY reply ('H')"},
      {Msg('R', Int32(0)), "message 'R' in a query's reply"},
      {Msg('\x01', ""), "message 0x01 in a query's reply"},
      {Msg('Z', ""), "a ReadyForQuery of 0 bytes"},
  };
  for (const auto& [in, what] : query_cases) {
    ExpectFailsWholeAndBytewise(in, what, [](const std::vector<std::string>& c) { return Parse(Reader::Phase::kQuery, c); });
  }
  const std::pair<std::string, std::string> startup_cases[] = {
      {Msg('R', Int32(3)), "authentication method 3 (a password); memstand's client supports trust only"},
      {Msg('R', Int32(10) + "SCRAM-SHA-256"), "authentication method 10"},
      {Msg('R', "x"), "an Authentication message of 1 bytes"},
      {Msg('D', Int32(0)), "message 'D' during the startup"},
  };
  for (const auto& [in, what] : startup_cases) {
    ExpectFailsWholeAndBytewise(in, what,
                                [](const std::vector<std::string>& c) { return Parse(Reader::Phase::kStartup, c); });
  }
}

TEST(PgCodecTest, AFailedReaderStaysFailed) {
  Reader reader(Reader::Phase::kQuery);
  const std::string bad = std::string("D") + Int32(2);
  size_t used = 0;
  ASSERT_EQ(reader.Feed(bad.data(), bad.size(), &used), Reader::Event::kProtocolError);
  EXPECT_EQ(reader.Feed(kReady.data(), kReady.size(), &used), Reader::Event::kProtocolError);
  EXPECT_EQ(used, 0u);
}

}  // namespace
}  // namespace memstand::pg
