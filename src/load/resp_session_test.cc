// RespSession against a real redis-server: its set-up (an ACL user, SELECT; HELLO 3),
// pipelined requests and their replies, an error reply, RESP3 pushes, replies that
// answer nothing and bytes that are no reply; each server's bytes fed whole, one byte
// at a time and in every split.
#include "load/resp_session.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "client/redis_client.h"
#include "codec/server_suite.h"
#include "codec/session_util.h"
#include "load/cluster_map.h"
#include "load/command_spec.h"
#include "stand/local_redis.h"

namespace memstand {
namespace {

using codec_test::BlockingConn;
using codec_test::ExpectSessionSplitInvariant;
using codec_test::FeedSession;

class RespSessionTest : public codec_test::ServerSuiteTest<RespSessionTest, LocalRedis> {
 public:
  // A redis-server with the ACL user "bench" the set-up tests authenticate as.
  static Result<std::unique_ptr<LocalRedis>> StartServer() {
    auto server = LocalRedis::Start(LocalRedisOptions{});
    if (!server.ok()) return server.status();
    auto control = RedisClient::Connect("127.0.0.1", (*server)->port(), 5000);
    if (!control.ok()) return control.status();
    auto user = (*control)->Command({"ACL", "SETUSER", "bench", "on", ">secret", "~*", "&*", "+@all"});
    if (!user.ok()) return user.status();
    if (user->is_error()) return Status::Failed("ACL SETUSER bench: " + user->str);
    return server;
  }

 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(Connect());
    target_.host = "127.0.0.1";
    target_.port = server_->port();
    peer_ = "127.0.0.1:" + std::to_string(server_->port());
  }

  // The requests of these command templates, keys "k<index>".
  void UseCommands(const std::vector<std::string>& texts) {
    LoadOptions opt;
    opt.key_prefix = "k";
    for (const std::string& text : texts) {
      auto spec = MakeCommandSpec(Protocol::kResp, text, "k", KeyPatternSpec{}, 1, CommandLimits{});
      ASSERT_TRUE(spec.ok()) << spec.status().message();
      opt.commands.push_back(*spec);
    }
    requests_ = RespSession::MakeRequests(opt);
  }

  std::unique_ptr<RespSession> NewSession(int resp = 2) {
    SessionConfig c;
    c.target = &target_;
    c.peer = peer_;
    c.resp = resp;
    c.slots = 8;
    c.setup_counts = &setup_counts_;
    return std::make_unique<RespSession>(std::move(c));
  }

  // Appends request i with key index `key` and value `data`; returns its tag.
  uint64_t Append(RespSession* s, size_t i, uint64_t key, std::string_view data, Buffer* out) {
    Draw d;
    d.key = key;
    d.data = data;
    return s->Append(requests_[i], d, out).tag;
  }

  // Sends `out` and returns the bytes of the next `count` replies.
  std::string Exchange(const Buffer& out, size_t count) {
    EXPECT_TRUE(conn_->Send(out).ok());
    resp::Reader reader(resp::Reader::Mode::kSummary);
    auto raw = conn_->ReadRawReplies(&reader, count);
    EXPECT_TRUE(raw.ok()) << raw.status().message();
    return raw.ok() ? *raw : "";
  }

  RedisTarget target_;
  std::string peer_;
  std::vector<RespRequest> requests_;
  std::map<std::string, uint64_t> setup_counts_;
};

TEST_F(RespSessionTest, SetUpThenPipelinedRepliesInOrder) {
  target_.user = "bench";
  target_.password = "secret";
  target_.db = 3;
  UseCommands({"set __key__ __data__", "get __key__", "incr __key__"});
  // The requests of one pipelined write: SET k1 abc, GET k1, GET k2 (no such key),
  // INCR k1 (not a number: an error reply).
  auto append_all = [&](RespSession* s, Buffer* out) {
    EXPECT_EQ(Append(s, 0, 1, "abc", out), 0u);
    EXPECT_EQ(Append(s, 1, 1, "", out), 1u);
    EXPECT_EQ(Append(s, 1, 2, "", out), 2u);
    EXPECT_EQ(Append(s, 2, 1, "", out), 3u);
  };
  auto live = NewSession();
  Buffer out;
  EXPECT_FALSE(live->Start(&out));  // AUTH bench secret, SELECT 3: replies awaited
  EXPECT_EQ(std::string(out.View()),
            "*3\r\n$4\r\nAUTH\r\n$5\r\nbench\r\n$6\r\nsecret\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n");
  EXPECT_EQ(live->setup_in_flight(), 2u);
  EXPECT_EQ(setup_counts_, (std::map<std::string, uint64_t>{{"auth", 1}, {"select", 1}}));
  append_all(live.get(), &out);
  EXPECT_EQ(live->in_flight(), 4u);
  std::vector<uint64_t> tags;
  live->ForEachInFlight([&](uint64_t t) { tags.push_back(t); });
  EXPECT_EQ(tags, (std::vector<uint64_t>{0, 1, 2, 3}));

  const std::string replies = Exchange(out, 6);
  const std::vector<std::string> expected = {
      "ready",
      "reply 0 5B ok pos",   // +OK
      "reply 1 9B ok pos",   // $3 abc
      "reply 2 5B ok",       // $-1: a miss
      "reply 3 46B error [ERR] ERR value is not an integer or out of range",
  };
  EXPECT_EQ(FeedSession(live.get(), {replies}, &out), expected);
  EXPECT_EQ(live->in_flight(), 0u);
  EXPECT_EQ(live->setup_in_flight(), 0u);

  EXPECT_EQ(ExpectSessionSplitInvariant(replies,
                                        [&] {
                                          auto s = NewSession();
                                          Buffer ignored;
                                          s->Start(&ignored);
                                          append_all(s.get(), &ignored);
                                          return s;
                                        }),
            expected);
}

TEST_F(RespSessionTest, RefusedSetUpFailsNamingTheCommandAndTheServer) {
  target_.user = "bench";
  target_.password = "wrong";
  target_.db = 3;
  auto live = NewSession();
  Buffer out;
  EXPECT_FALSE(live->Start(&out));
  const std::string replies = Exchange(out, 2);  // the AUTH error, then SELECT's +OK
  const std::vector<std::string> events = FeedSession(live.get(), {replies}, &out);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0], "failed: auth failed: WRONGPASS invalid username-password pair or user is disabled. (" +
                           peer_ + ")");
  EXPECT_EQ(live->failure().code(), Status::Code::kServer);
  EXPECT_EQ(live->setup_in_flight(), 1u);  // SELECT's reply was not taken
}

TEST_F(RespSessionTest, Resp3PushesAnswerNoRequest) {
  UseCommands({"client tracking on", "get __key__", "set __key__ __data__"});
  // HELLO 3, then: tracking on, GET k5 (tracked), SET k5: the server pushes an
  // invalidation of k5 besides SET's +OK.
  auto append_all = [&](RespSession* s, Buffer* out) {
    Append(s, 0, 0, "", out);
    Append(s, 1, 5, "", out);
    Append(s, 2, 5, "v", out);
  };
  auto live = NewSession(3);
  Buffer out;
  EXPECT_FALSE(live->Start(&out));
  EXPECT_EQ(std::string(out.View()), "*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n");
  append_all(live.get(), &out);
  const std::string replies = Exchange(out, 5);  // HELLO's map, 3 replies, 1 push
  ASSERT_NE(replies.find(">2\r\n$10\r\ninvalidate\r\n"), std::string::npos) << replies;
  const std::vector<std::string> expected = {"ready", "reply 0 5B ok pos", "reply 1 3B ok", "reply 2 5B ok pos"};
  EXPECT_EQ(FeedSession(live.get(), {replies}, &out), expected);
  EXPECT_EQ(ExpectSessionSplitInvariant(replies,
                                        [&] {
                                          auto s = NewSession(3);
                                          Buffer ignored;
                                          s->Start(&ignored);
                                          append_all(s.get(), &ignored);
                                          return s;
                                        }),
            expected);
}

TEST_F(RespSessionTest, AReplyToNothingAndBytesThatAreNoReplyAreProtocolErrors) {
  Buffer ping;
  resp::AppendCommand(&ping, std::vector<std::string_view>{"PING"});
  resp::AppendCommand(&ping, std::vector<std::string_view>{"NOSUCHCOMMAND"});
  const std::string replies = Exchange(ping, 2);
  auto s = NewSession();
  Buffer out;
  EXPECT_TRUE(s->Start(&out));  // no password, db 0, RESP2: nothing to set up
  EXPECT_EQ(out.Readable(), 0u);
  EXPECT_EQ(FeedSession(s.get(), {replies}, &out),
            std::vector<std::string>{"protocol error: a reply arrived with no request in flight"});
  const std::string error_reply = replies.substr(replies.find('-'));
  auto t = NewSession();
  t->Start(&out);
  const std::vector<std::string> events = FeedSession(t.get(), {error_reply}, &out);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].rfind("protocol error: a reply arrived with no request in flight: 'ERR unknown command", 0), 0u)
      << events[0];

  auto u = NewSession();
  u->Start(&out);
  UseCommands({"get __key__"});
  Append(u.get(), 0, 1, "", &out);
  const std::vector<std::string> bad = FeedSession(u.get(), {"?what\r\n"}, &out);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].rfind("protocol error: malformed reply from " + peer_ + ": ", 0), 0u) << bad[0];
  EXPECT_EQ(u->failure().code(), Status::Code::kProtocol);
  EXPECT_EQ(u->in_flight(), 1u);  // a failed Feed takes no request
}

TEST_F(RespSessionTest, RedirectedAfterAskingAndSlotsForTheCluster) {
  UseCommands({"get __key__"});
  auto s = NewSession();
  Buffer out;
  s->Start(&out);
  Draw d;
  d.key = 7;
  uint64_t asking_tag = 99;
  Sent sent{};
  EXPECT_TRUE(s->AppendRedirected(requests_[0], d, /*asking=*/true, &out, &asking_tag, &sent));
  EXPECT_EQ(asking_tag, 0u);
  EXPECT_EQ(sent.tag, 1u);
  EXPECT_EQ(std::string(out.View()), "*1\r\n$6\r\nASKING\r\n*2\r\n$3\r\nget\r\n$2\r\nk7\r\n");  // as typed
  EXPECT_EQ(sent.bytes, out.Readable() - 16);
  EXPECT_TRUE(s->AppendRedirected(requests_[0], d, /*asking=*/false, &out, &asking_tag, &sent));
  EXPECT_EQ(sent.tag, 2u);
  EXPECT_EQ(RespSession::Slot(requests_[0], d), KeySlot("k7"));
  // A server without cluster support refuses ASKING: a reply like any other.
  const std::string replies = Exchange(out, 3);
  EXPECT_EQ(FeedSession(s.get(), {replies}, &out),
            (std::vector<std::string>{"reply 0 49B error [ERR] ERR This instance has cluster support disabled",
                                      "reply 1 5B ok", "reply 2 5B ok"}));
}

TEST_F(RespSessionTest, ResetForgetsTheConnection) {
  target_.db = 4;
  UseCommands({"get __key__"});
  auto s = NewSession();
  Buffer out;
  EXPECT_FALSE(s->Start(&out));
  Append(s.get(), 0, 1, "", &out);
  const std::string replies = Exchange(out, 2);
  const std::vector<std::string> expected = {"ready", "reply 0 5B ok"};
  // Half of the replies, then the connection is gone.
  FeedSession(s.get(), {replies.substr(0, replies.size() - 2)}, &out);
  EXPECT_EQ(s->in_flight(), 1u);
  s->Reset();
  EXPECT_EQ(s->in_flight(), 0u);
  EXPECT_EQ(s->setup_in_flight(), 0u);
  Buffer again;
  EXPECT_FALSE(s->Start(&again));  // the set-up again, for the new connection
  EXPECT_EQ(std::string(again.View()), "*2\r\n$6\r\nSELECT\r\n$1\r\n4\r\n");
  EXPECT_EQ(setup_counts_["select"], 2u);
  EXPECT_EQ(Append(s.get(), 0, 1, "", &again), 0u);  // tags start again
  EXPECT_EQ(FeedSession(s.get(), {replies}, &out), expected);
}

}  // namespace
}  // namespace memstand
