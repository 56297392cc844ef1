// ProtoControl against scripted loopback peers that misbehave in time or in order: the
// connect and its exchange share one deadline, and a connection that times out or gets
// a reply out of step is closed and never used again. (Real servers: the protocol e2e
// tests.)
#include "load/proto_control.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "peer/peer_util.h"
#include "proto/iproto/constants.h"
#include "proto/iproto/value.h"

namespace memstand {
namespace {

using peer_test::PeerConn;
using peer_test::ScriptedPeer;

RedisTarget TargetOf(const ScriptedPeer& peer, const std::string& scheme) {
  RedisTarget t;
  t.scheme = scheme;
  t.port = peer.port();
  return t;
}

// A Tarantool 2.11 greeting: two 64-byte lines.
std::string Greeting() {
  std::string line = "Tarantool 2.11.0 (Binary) 7b2f3a6e-8c1d-4a2b-9f1e-0123456789ab";
  std::string salt = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
  line.resize(63, ' ');
  salt.resize(63, ' ');
  return line + '\n' + salt + '\n';
}

// An IPROTO reply with `sync` whose data is [512] (a space id).
std::string SpaceIdReply(uint64_t sync) {
  using iproto::Value;
  const std::string payload =
      iproto::Encode(Value::Map({{Value::Uint(iproto::kRequestTypeKey), Value::Uint(0)},
                                 {Value::Uint(iproto::kSyncKey), Value::Uint(sync)},
                                 {Value::Uint(iproto::kSchemaVersionKey), Value::Uint(80)}})) +
      iproto::Encode(
          Value::Map({{Value::Uint(iproto::kDataKey), Value::Array({Value::Uint(512)})}}));
  std::string reply = "\xce";
  for (int shift = 24; shift >= 0; shift -= 8)
    reply += static_cast<char>((payload.size() >> shift) & 0xff);
  return reply + payload;
}

// memcached's "version" answered one byte every 200 ms: each byte is in time for a
// per-read timeout of 500 ms, the whole is not.
TEST(ProtoControlTest, DribbledMemcacheVersionTimesOut) {
  ScriptedPeer dribbler([](PeerConn& c) {
    if (c.ReadSome().empty()) return;
    c.Dribble("VERSION 1.6.21\r\n", 200);
  });
  auto control = ProtoControl::Connect(Protocol::kMemcache, TargetOf(dribbler, "memcache"), 500);
  ASSERT_FALSE(control.ok());
  EXPECT_NE(control.status().message().find(
                "version: no reply within 500 ms of connecting (the connect and the set-up "
                "exchange together)"),
            std::string::npos)
      << control.status().message();
}

// A Tarantool greeting (128 bytes) sent 16 bytes every 200 ms: the greeting, not each
// read, is bounded.
TEST(ProtoControlTest, DribbledTarantoolGreetingTimesOut) {
  const std::string greeting = Greeting();
  ScriptedPeer dribbler([&](PeerConn& c) { c.Dribble(greeting, 200, 16); });
  auto control = ProtoControl::Connect(Protocol::kIproto, TargetOf(dribbler, "tarantool"), 500);
  ASSERT_FALSE(control.ok());
  EXPECT_NE(control.status().message().find("no Tarantool greeting within 500 ms of connecting"),
            std::string::npos)
      << control.status().message();
}

// Answers memcached's "version"; then `stats` with `serve_stats`.
template <class ServeStats>
ScriptedPeer::Serve MemcacheThen(ServeStats serve_stats) {
  return [serve_stats](PeerConn& c) {
    if (c.ReadSome() != "version\r\n") return;
    c.Write("VERSION 1.6.21\r\n");
    serve_stats(c);
  };
}

// A reply to `stats` that is not STAT lines: out of step; the connection is closed and
// the next call fails without sending.
TEST(ProtoControlTest, WrongReplyToStatsClosesTheConnection) {
  std::atomic<bool> closed{false};
  std::atomic<size_t> after{1};
  ScriptedPeer peer(MemcacheThen([&](PeerConn& c) {
    c.ReadSome();
    c.Write("VERSION 1.6.21\r\n");
    size_t bytes = 0;
    closed = c.WaitClosed(&bytes);
    after = bytes;
  }));
  auto control = ProtoControl::Connect(Protocol::kMemcache, TargetOf(peer, "memcache"), 2000);
  ASSERT_TRUE(control.ok()) << control.status().message();
  auto counters = (*control)->Counters();
  ASSERT_FALSE(counters.ok());
  EXPECT_EQ(counters.status().code(), Status::Code::kProtocol);
  EXPECT_NE(counters.status().message().find(
                "the reply to stats is not STAT lines but '1.6.21' (replies out of step)"),
            std::string::npos)
      << counters.status().message();
  auto again = (*control)->Counters();
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("closed after an earlier error"), std::string::npos)
      << again.status().message();
  ASSERT_TRUE(peer.WaitServed(1));
  EXPECT_TRUE(closed.load());
  EXPECT_EQ(after.load(), 0u);
}

// `stats` answered after the timeout: the late reply is never taken as the answer to
// the next request (the connection was closed at the timeout).
TEST(ProtoControlTest, LateReplyIsNeverReadAsTheNextOne) {
  std::atomic<bool> closed{false};
  ScriptedPeer peer(MemcacheThen([&](PeerConn& c) {
    c.ReadSome();
    c.Sleep(600);
    c.Write("STAT cmd_get 7\r\nEND\r\n");
    closed = c.WaitClosed();
  }));
  auto control = ProtoControl::Connect(Protocol::kMemcache, TargetOf(peer, "memcache"), 300);
  ASSERT_TRUE(control.ok()) << control.status().message();
  auto late = (*control)->Counters();
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), Status::Code::kTimeout) << late.status().message();
  ASSERT_TRUE(peer.WaitServed(1));
  auto next = (*control)->Counters();
  ASSERT_FALSE(next.ok()) << "took the late reply: cmd_get " << next->at("cmd_get");
  EXPECT_EQ(next.status().code(), Status::Code::kTimeout);
  EXPECT_TRUE(closed.load());
}

// An IPROTO reply carrying another request's sync is out of step.
TEST(ProtoControlTest, IprotoReplyWithAnotherSyncIsOutOfStep) {
  const std::string greeting = Greeting();
  const std::string reply = SpaceIdReply(77);
  ScriptedPeer peer([&](PeerConn& c) {
    c.Write(greeting);
    if (c.ReadSome().empty()) return;
    c.Write(reply);
    c.WaitClosed();
  });
  auto control = ProtoControl::Connect(Protocol::kIproto, TargetOf(peer, "tarantool"), 2000);
  ASSERT_TRUE(control.ok()) << control.status().message();
  auto id = (*control)->SpaceId("memstand");
  ASSERT_FALSE(id.ok()) << "took a reply with another sync: space id " << *id;
  EXPECT_EQ(id.status().code(), Status::Code::kProtocol);
  EXPECT_NE(id.status().message().find("a reply with sync 77 to the request with sync 1"),
            std::string::npos)
      << id.status().message();
}

// The byte counts are what crossed the socket: the greeting and the reply read, the
// request written (as the peer received it), and the kernel's TCP_INFO the same.
TEST(ProtoControlTest, BytesCountWhatCrossedTheSocket) {
  const std::string greeting = Greeting();
  const std::string reply = SpaceIdReply(1);
  std::atomic<size_t> received{0};
  ScriptedPeer peer([&](PeerConn& c) {
    c.Write(greeting);
    const std::string request = c.ReadSome();
    received = request.size();
    if (request.empty()) return;
    c.Write(reply);
    c.WaitClosed();
  });
  auto control = ProtoControl::Connect(Protocol::kIproto, TargetOf(peer, "tarantool"), 2000);
  ASSERT_TRUE(control.ok()) << control.status().message();
  EXPECT_EQ((*control)->bytes().read, greeting.size());
  EXPECT_EQ((*control)->bytes().written, 0u);
  auto before = (*control)->KernelBytes();
  ASSERT_TRUE(before.ok()) << before.status().message();
  auto id = (*control)->SpaceId("memstand");
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(*id, 512u);
  EXPECT_GT(received.load(), 0u);
  EXPECT_EQ((*control)->bytes().written, received.load());
  EXPECT_EQ((*control)->bytes().read, greeting.size() + reply.size());
  auto kernel = (*control)->KernelBytes();
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  EXPECT_EQ(kernel->received, greeting.size() + reply.size());
  EXPECT_EQ(kernel->acked - before->acked, received.load());  // over the request's window
}

}  // namespace
}  // namespace memstand
