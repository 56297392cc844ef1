#include "client/redis_client.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>

#include "client/redis_info.h"
#include "core/socket.h"
#include "peer/peer_util.h"
#include "stand/local_redis.h"

namespace memstand {
namespace {

using resp::Reply;
using resp::Type;

class RedisClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = LocalRedis::Start(LocalRedisOptions{});
    ASSERT_TRUE(server.ok()) << server.status().message();
    server_ = std::move(server.value());
  }
  void TearDown() override { server_.reset(); }

  RedisClientOptions Options() const {
    RedisClientOptions o;
    o.host = server_->host();
    o.port = server_->port();
    return o;
  }

  std::unique_ptr<RedisClient> MustConnect(const RedisClientOptions& options) {
    auto client = RedisClient::Connect(options);
    EXPECT_TRUE(client.ok()) << client.status().message();
    return client.ok() ? std::move(client.value()) : nullptr;
  }

  // Runs a command that must not fail at the transport level.
  static Reply Run(RedisClient* c, const std::vector<std::string>& args) {
    auto reply = c->Command(args);
    EXPECT_TRUE(reply.ok()) << args[0] << ": " << reply.status().message();
    return reply.ok() ? std::move(reply.value()) : Reply();
  }

  void AddAclUser() {
    auto admin = MustConnect(Options());
    ASSERT_NE(admin, nullptr);
    Reply r = Run(admin.get(), {"ACL", "SETUSER", "bench", "on", ">secret", "~*", "+@all"});
    ASSERT_EQ(r.str, "OK");
  }

  std::unique_ptr<LocalRedis> server_;
};

TEST_F(RedisClientTest, PingSetGet) {
  auto c = MustConnect(Options());
  ASSERT_NE(c, nullptr);
  Reply pong = Run(c.get(), {"PING"});
  EXPECT_EQ(pong.type, Type::kSimpleString);
  EXPECT_EQ(pong.str, "PONG");
  EXPECT_EQ(Run(c.get(), {"SET", "k", std::string("v\r\n\0", 4)}).str, "OK");
  Reply got = Run(c.get(), {"GET", "k"});
  EXPECT_EQ(got.type, Type::kBulkString);
  EXPECT_EQ(got.str, std::string("v\r\n\0", 4));
  EXPECT_TRUE(Run(c.get(), {"GET", "missing"}).is_null);
}

TEST_F(RedisClientTest, ErrorRepliesAreReplies) {
  auto c = MustConnect(Options());
  ASSERT_NE(c, nullptr);
  Reply r = Run(c.get(), {"NOSUCHCOMMAND", "x"});
  EXPECT_TRUE(r.is_error());
  EXPECT_EQ(r.str.rfind("ERR unknown command", 0), 0u) << r.str;
  EXPECT_EQ(Run(c.get(), {"PING"}).str, "PONG");  // the connection is still usable
}

TEST_F(RedisClientTest, Resp3HelloGivesAMap) {
  RedisClientOptions options = Options();
  options.resp = 3;
  auto c = MustConnect(options);
  ASSERT_NE(c, nullptr);
  Reply hello = Run(c.get(), {"HELLO", "3"});
  ASSERT_EQ(hello.type, Type::kMap);
  ASSERT_NE(hello.Find("proto"), nullptr);
  EXPECT_EQ(hello.Find("proto")->integer, 3);
  EXPECT_EQ(hello.Find("server")->str, "redis");
  Run(c.get(), {"HSET", "h", "f", "v"});
  EXPECT_EQ(Run(c.get(), {"HGETALL", "h"}).type, Type::kMap);
  EXPECT_EQ(Run(c.get(), {"GET", "missing"}).type, Type::kNull);
}

TEST_F(RedisClientTest, AuthWithAnAclUser) {
  AddAclUser();
  for (int resp : {2, 3}) {
    RedisClientOptions options = Options();
    options.resp = resp;
    options.user = "bench";
    options.password = "secret";
    auto c = MustConnect(options);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(Run(c.get(), {"ACL", "WHOAMI"}).str, "bench") << "RESP" << resp;
  }
}

TEST_F(RedisClientTest, WrongPasswordGivesTheServersText) {
  AddAclUser();
  for (int resp : {2, 3}) {
    RedisClientOptions options = Options();
    options.resp = resp;
    options.user = "bench";
    options.password = "wrong";
    auto c = RedisClient::Connect(options);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), Status::Code::kServer);
    EXPECT_EQ(c.status().message(),
              "WRONGPASS invalid username-password pair or user is disabled.");
  }
}

TEST_F(RedisClientTest, SelectIsolatesDatabases) {
  RedisClientOptions options = Options();
  options.db = 3;
  auto db3 = MustConnect(options);
  auto db0 = MustConnect(Options());
  ASSERT_TRUE(db3 && db0);
  Run(db3.get(), {"SET", "a", "1"});
  Run(db3.get(), {"SET", "b", "2"});
  EXPECT_EQ(Run(db3.get(), {"DBSIZE"}).integer, 2);
  EXPECT_EQ(Run(db0.get(), {"DBSIZE"}).integer, 0);
  options.db = 99;
  auto bad = RedisClient::Connect(options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Status::Code::kServer);
  EXPECT_NE(bad.status().message().find("out of range"), std::string::npos);
}

TEST_F(RedisClientTest, SentByCommandMatchesTheServersCommandStats) {
  RedisClientOptions options = Options();
  options.resp = 3;
  options.db = 2;
  auto c = MustConnect(options);
  ASSERT_NE(c, nullptr);
  for (int i = 0; i < 3; ++i) Run(c.get(), {"Set", "k" + std::to_string(i), "v"});
  Run(c.get(), {"GET", "k1"});
  Run(c.get(), {"GET"});  // rejected: wrong number of arguments, still sent
  const std::map<std::string, int64_t> expected = {
      {"hello", 1}, {"select", 1}, {"set", 3}, {"get", 2}};
  EXPECT_EQ(c->sent_by_command(), expected);

  // The only other client so far was the fixture's readiness PING.
  Reply info = Run(c.get(), {"INFO", "commandstats"});
  ASSERT_EQ(info.type, Type::kVerbatim);
  auto stats = ParseCommandStats(info.str);
  for (const auto& [name, sent] : expected) {
    EXPECT_EQ(stats[name].calls + stats[name].rejected_calls, sent) << name;
  }
  EXPECT_EQ(stats["get"].rejected_calls, 1);
}

// SET and GET in one pipeline: both replies, in order, and both counted as sent.
TEST_F(RedisClientTest, PipelineAnswersEveryCommandInOrder) {
  auto c = MustConnect(Options());
  ASSERT_NE(c, nullptr);
  auto replies = c->Pipeline({{"SET", "p", "v1"}, {"GET", "p"}, {"WAIT", "0", "0"}});
  ASSERT_TRUE(replies.ok()) << replies.status().message();
  ASSERT_EQ(replies->size(), 3u);
  EXPECT_EQ((*replies)[0].str, "OK");
  EXPECT_EQ((*replies)[1].str, "v1");
  EXPECT_EQ((*replies)[2].type, Type::kInteger);
  EXPECT_EQ((*replies)[2].integer, 0);  // no replica
  EXPECT_EQ(c->sent_by_command().at("set"), 1);
  EXPECT_EQ(c->sent_by_command().at("wait"), 1);
  EXPECT_EQ(Run(c.get(), {"PING"}).str, "PONG");  // in step afterwards
  auto empty = c->Pipeline({});
  EXPECT_EQ(empty.status().code(), Status::Code::kInvalidArgument);
}

using peer_test::Bulk;
using peer_test::PeerConn;
using peer_test::ScriptedPeer;

RedisClientOptions PeerOptions(const ScriptedPeer& peer, int timeout_ms = 5000) {
  RedisClientOptions o;
  o.port = peer.port();
  o.timeout_ms = timeout_ms;
  return o;
}

TEST(RedisClientPeerTest, ClosedPortFailsWithAClearError) {
  auto port = PickFreePort();
  ASSERT_TRUE(port.ok());
  RedisClientOptions options;
  options.port = *port;
  auto c = RedisClient::Connect(options);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Status::Code::kIoError);
  EXPECT_NE(c.status().message().find("Connection refused"), std::string::npos)
      << c.status().message();
  EXPECT_NE(c.status().message().find(std::to_string(*port)), std::string::npos);
}

TEST(RedisClientPeerTest, HttpServerIsAProtocolError) {
  ScriptedPeer http([](PeerConn& c) {
    c.ReadSome();  // the PING
    c.Write("HTTP/1.1 400 Bad Request\r\n");
    c.WaitClosed();
  });
  auto c = RedisClient::Connect(PeerOptions(http));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Status::Code::kProtocol);
  EXPECT_NE(c.status().message().find("received \"HTTP/1.1 400 Bad Request\\r\\n\""),
            std::string::npos)
      << c.status().message();
}

TEST(RedisClientPeerTest, PeerThatClosesIsAnIoError) {
  ScriptedPeer closer([](PeerConn& c) { c.ReadSome(); });
  auto c = RedisClient::Connect(PeerOptions(closer));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Status::Code::kIoError);
  EXPECT_NE(c.status().message().find("closed"), std::string::npos) << c.status().message();
}

TEST(RedisClientPeerTest, SilentPeerTimesOut) {
  ScriptedPeer silent([](PeerConn& c) { c.WaitClosed(); });
  auto c = RedisClient::Connect(PeerOptions(silent, 100));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Status::Code::kTimeout) << c.status().message();
  EXPECT_NE(c.status().message().find("no reply within 100 ms"), std::string::npos);
}

// Answers PING at once, then serves each later command with `answer`.
ScriptedPeer::Serve PongThen(
    std::function<void(PeerConn&, const std::vector<std::string>&)> answer) {
  return [answer](PeerConn& c) {
    for (auto cmd = c.NextCommand(); cmd; cmd = c.NextCommand()) {
      if ((*cmd)[0] == "PING") {
        c.Write("+PONG\r\n");
      } else {
        answer(c, *cmd);
      }
    }
  };
}

// A peer that dribbles a valid reply one byte every 200 ms: the set-up (connect +
// PING) has one deadline, not a fresh timeout per read (each byte would meet that).
TEST(RedisClientPeerTest, DribbledSetUpIsBoundedAsAWhole) {
  ScriptedPeer dribbler([](PeerConn& c) {
    while (c.NextCommand()) c.Dribble("+PONG\r\n", 200);
  });
  auto c = RedisClient::Connect(PeerOptions(dribbler, 500));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Status::Code::kTimeout) << c.status().message();
  EXPECT_NE(c.status().message().find("PING: no reply within 500 ms of connecting"),
            std::string::npos)
      << c.status().message();
}

// A command's whole reply has one deadline; after the timeout (in the middle of the
// reply) the connection is closed, and the rest of the reply is never read as the
// answer to a later command.
TEST(RedisClientPeerTest, DribbledReplyTimesOutMidReplyAndCloses) {
  std::atomic<bool> closed{false};
  std::atomic<size_t> after{0};
  ScriptedPeer dribbler(PongThen([&](PeerConn& c, const auto&) {
    c.Dribble(Bulk("redis_version:7.0.0"), 200);
    size_t bytes = 0;
    closed = c.WaitClosed(&bytes);
    after = bytes;
  }));
  auto c = RedisClient::Connect(PeerOptions(dribbler, 500));
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto info = (*c)->Command({"INFO", "server"});
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), Status::Code::kTimeout);
  EXPECT_EQ(info.status().message(), "no reply within 500 ms");
  auto again = (*c)->Command({"PING"});
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("connection closed after an earlier error"),
            std::string::npos)
      << again.status().message();
  ASSERT_TRUE(dribbler.WaitServed(1));
  EXPECT_TRUE(closed.load());
  EXPECT_EQ(after.load(), 0u);  // the PING after the timeout was never sent
}

// +PONG where INFO's reply belongs: replies out of step, a Protocol error naming both,
// and the connection closed (the peer sees its end, and no further command).
TEST(RedisClientPeerTest, PongForInfoIsAProtocolErrorAndCloses) {
  std::atomic<bool> closed{false};
  std::atomic<size_t> after{1};
  ScriptedPeer peer(PongThen([&](PeerConn& c, const auto&) {
    c.Write("+PONG\r\n");
    size_t bytes = 0;
    closed = c.WaitClosed(&bytes);
    after = bytes;
  }));
  {
    auto c = RedisClient::Connect(PeerOptions(peer));
    ASSERT_TRUE(c.ok()) << c.status().message();
    auto info = (*c)->Command({"INFO", "all"});
    ASSERT_FALSE(info.ok());
    EXPECT_EQ(info.status().code(), Status::Code::kProtocol);
    EXPECT_EQ(info.status().message(),
              "the reply to INFO must be bulk-string or verbatim-string, not simple-string "
              "\"+PONG\\r\\n\" (replies out of step); connection closed");
    EXPECT_FALSE((*c)->Command({"INFO", "all"}).ok());
    EXPECT_EQ((*c)->sent_by_command().at("info"), 1);
  }
  ASSERT_TRUE(peer.WaitServed(1));
  EXPECT_TRUE(closed.load());
  EXPECT_EQ(after.load(), 0u);
}

// Two replies to one command: the second is out of step, found before the next command
// is sent rather than taken as its reply.
TEST(RedisClientPeerTest, ASecondReplyIsOutOfStep) {
  ScriptedPeer peer([](PeerConn& c) {
    for (auto cmd = c.NextCommand(); cmd; cmd = c.NextCommand()) c.Write("+PONG\r\n+PONG\r\n");
  });
  auto c = RedisClient::Connect(PeerOptions(peer));
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto again = (*c)->Command({"PING"});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), Status::Code::kProtocol);
  EXPECT_EQ(again.status().message(),
            "bytes with no command in flight came before PING: \"+PONG\\r\\n\" (replies out of "
            "step); connection closed");
}

// A pipeline sends every command before it reads a reply: this peer answers only once
// both commands have arrived (one at a time, the client would wait for the first reply
// until its timeout).
TEST(RedisClientPeerTest, PipelineSendsEveryCommandBeforeReading) {
  std::atomic<int> seen{0};
  ScriptedPeer peer([&](PeerConn& c) {
    if (!c.NextCommand()) return;  // the handshake's PING
    c.Write("+PONG\r\n");
    if (!c.NextCommand() || !c.NextCommand()) return;
    seen = 2;
    c.Write("+OK\r\n:1\r\n");
    c.WaitClosed();
  });
  auto c = RedisClient::Connect(PeerOptions(peer, 2000));
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto replies = (*c)->Pipeline({{"SET", "k", "v"}, {"WAIT", "1", "100"}});
  ASSERT_TRUE(replies.ok()) << replies.status().message();
  EXPECT_EQ(seen.load(), 2);
  ASSERT_EQ(replies->size(), 2u);
  EXPECT_EQ((*replies)[0].str, "OK");
  EXPECT_EQ((*replies)[1].integer, 1);
}

// A peer that answers the first command of a pipeline and closes: an error, and the
// connection is not used again.
TEST(RedisClientPeerTest, PipelineCutShortIsAnErrorAndCloses) {
  ScriptedPeer peer([](PeerConn& c) {
    if (!c.NextCommand()) return;
    c.Write("+PONG\r\n");
    if (!c.NextCommand()) return;
    c.Write("+OK\r\n");
  });
  auto c = RedisClient::Connect(PeerOptions(peer));
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto replies = (*c)->Pipeline({{"SET", "k", "v"}, {"WAIT", "1", "100"}});
  ASSERT_FALSE(replies.ok());
  EXPECT_EQ(replies.status().code(), Status::Code::kIoError);
  EXPECT_NE(replies.status().message().find("connection closed by the server"), std::string::npos)
      << replies.status().message();
  EXPECT_FALSE((*c)->Command({"PING"}).ok());
}

// The byte counts are what crossed the socket: the client's own count of what it wrote
// and read, and the kernel's (TCP_INFO), against traffic of known size.
TEST(RedisClientPeerTest, BytesCountWhatCrossedTheSocket) {
  ScriptedPeer peer([](PeerConn& c) {
    if (!c.NextCommand()) return;  // the handshake's PING
    c.Write("+PONG\r\n");
    if (!c.NextCommand()) return;  // GET k
    c.Write("$5\r\nhello\r\n");
    c.WaitClosed();
  });
  auto c = RedisClient::Connect(PeerOptions(peer));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ((*c)->bytes().written, std::string("*1\r\n$4\r\nPING\r\n").size());
  EXPECT_EQ((*c)->bytes().read, std::string("+PONG\r\n").size());
  auto before = (*c)->KernelBytes();
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_EQ(before->received, (*c)->bytes().read);
  auto reply = (*c)->Command({"GET", "k"});
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_EQ(reply->str, "hello");
  const size_t written = std::string("*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n").size();
  const size_t read = std::string("+PONG\r\n$5\r\nhello\r\n").size();
  EXPECT_EQ((*c)->bytes().written, written);
  EXPECT_EQ((*c)->bytes().read, read);
  auto kernel = (*c)->KernelBytes();
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  EXPECT_EQ(kernel->received, read);
  // Over the window of the command (the reply carried the acknowledgement).
  EXPECT_EQ(kernel->acked - before->acked, std::string("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n").size());
}

TEST(RedisClientPeerTest, BadOptionsAreInvalidArguments) {
  RedisClientOptions options;
  options.resp = 4;
  EXPECT_EQ(RedisClient::Connect(options).status().code(), Status::Code::kInvalidArgument);
}

}  // namespace
}  // namespace memstand
