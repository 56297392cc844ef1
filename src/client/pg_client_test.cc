// PgClient against a scripted peer on loopback: malformed and hostile server replies are
// Protocol/Server/IoError/Timeout values that close the connection, never a crash, a
// hang past the deadline or a wrong row; a valid reply parses whole and byte by byte.
#include "client/pg_client.h"

#include <gtest/gtest.h>

#include <string>

#include "peer/peer_util.h"

namespace memstand {
namespace {

using memstand::peer_test::PeerConn;
using memstand::peer_test::ScriptedPeer;

std::string Int32(uint32_t v) {
  std::string out;
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
  return out;
}

std::string Msg(char type, const std::string& body) { return std::string(1, type) + Int32(body.size() + 4) + body; }

const std::string kReady = Msg('R', Int32(0)) + Msg('Z', "I");

std::string Row(const std::vector<std::string>& fields) {
  std::string body = {static_cast<char>(fields.size() >> 8), static_cast<char>(fields.size() & 0xff)};
  for (const std::string& f : fields) body += Int32(f.size()) + f;
  return Msg('D', body);
}

// A peer that answers the startup with `startup` and the first query with `reply`,
// `chunk` bytes at a time (0: at once), then waits for the client to close (or, with
// `close_after`, closes at once).
ScriptedPeer Peer(std::string startup, std::string reply, size_t chunk = 0, bool close_after = false) {
  return ScriptedPeer([=](PeerConn& c) {
    if (c.ReadSome().empty()) return;
    if (!c.Write(startup)) return;
    if (reply.empty() || c.ReadSome().empty()) return;
    if (chunk == 0) {
      c.Write(reply);
    } else {
      c.Dribble(reply, 0, chunk);
    }
    if (!close_after) c.WaitClosed();
  });
}

Result<PgResult> QueryOnce(ScriptedPeer& peer, int timeout_ms = 2000) {
  auto c = PgClient::Connect("127.0.0.1", peer.port(), "u", "d", timeout_ms);
  if (!c.ok()) return c.status();
  auto first = (*c)->Query("SELECT 1");
  if (!first.ok() && first.status().code() != Status::Code::kServer) {
    // A broken connection is never reused: the next query fails without a reply.
    auto again = (*c)->Query("SELECT 1");
    EXPECT_FALSE(again.ok());
  }
  return first;
}

TEST(PgClientTest, AValidReplyParsesWholeAndByteByByte) {
  const std::string reply = Row({"7", "hammer"}) + Row({"8", ""}) + Msg('C', std::string("SELECT 2") + '\0') +
                            Msg('Z', "I");
  for (size_t chunk : {size_t{0}, size_t{1}}) {
    ScriptedPeer peer = Peer(kReady, reply, chunk);
    auto r = QueryOnce(peer);
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->rows.size(), 2u);
    EXPECT_EQ(r->rows[0][1], "hammer");
    EXPECT_EQ(r->rows[1][1], "");
    EXPECT_EQ(r->tag, "SELECT 2");
  }
}

TEST(PgClientTest, MalformedRepliesAreErrorsThatCloseTheConnection) {
  const std::pair<std::string, std::string> cases[] = {
      {std::string("D") + Int32(3), "a message of length 3"},
      {std::string("D") + Int32(0xffffffffu), "a message of length 4294967295"},
      {Msg('D', std::string(1, '\0')), "a DataRow without a column count"},
      {Msg('D', std::string("\xff\xff", 2)), "a DataRow cut short"},
      {Msg('D', std::string("\x00\x01", 2) + Int32(100) + "short"), "a DataRow cut short"},
      {Msg('D', std::string("\x00\x01", 2) + Int32(0x7fffffffu)), "a DataRow cut short"},
      {Msg('G', std::string(3, '\0')), "a COPY reply ('G') to a query that is not a COPY"},
      {Msg('D', std::string("\x00\x01", 2) + Int32(1) + "xy"), "a DataRow with bytes after its last column"},
      {Msg('?', ""), "message '?' in a query's reply"},
  };
  for (const auto& [reply, message] : cases) {
    ScriptedPeer peer = Peer(kReady, reply);
    auto r = QueryOnce(peer);
    ASSERT_FALSE(r.ok()) << message;
    EXPECT_EQ(r.status().code(), Status::Code::kProtocol) << r.status().message();
    EXPECT_NE(r.status().message().find(message), std::string::npos) << r.status().message();
  }
}

TEST(PgClientTest, AnErrorWithoutAMessageOrFieldsEndIsStillAServerError) {
  for (const std::string& body : {std::string(1, '\0'), std::string("SERROR"), std::string("Mno end")}) {
    ScriptedPeer peer = Peer(kReady, Msg('E', body) + Msg('Z', "I"));
    auto r = QueryOnce(peer);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Status::Code::kServer);
    EXPECT_NE(r.status().message().find("error without a message"), std::string::npos) << r.status().message();
  }
}

TEST(PgClientTest, AClosedOrSilentServerEndsWithinTheDeadline) {
  ScriptedPeer closes = Peer(kReady, std::string("D") + Int32(100) + "cut", 0, true);
  auto r = QueryOnce(closes);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("closed the connection"), std::string::npos) << r.status().message();
  // A header announcing 1 GiB that never comes: the deadline ends the wait.
  ScriptedPeer silent = Peer(kReady, std::string("D") + Int32(1u << 30));
  auto t = QueryOnce(silent, 300);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Status::Code::kTimeout) << t.status().message();
}

TEST(PgClientTest, APasswordRequestIsRefusedClearly) {
  ScriptedPeer peer = Peer(Msg('R', Int32(3)), "");  // AuthenticationCleartextPassword
  auto c = PgClient::Connect("127.0.0.1", peer.port(), "u", "d", 2000);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("supports trust only"), std::string::npos) << c.status().message();
  ScriptedPeer short_auth = Peer(Msg('R', "x"), "");
  EXPECT_FALSE(PgClient::Connect("127.0.0.1", short_auth.port(), "u", "d", 2000).ok());
}

}  // namespace
}  // namespace memstand
