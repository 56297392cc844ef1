// IprotoSession against a real Tarantool: the greeting and AUTH (accepted, refused),
// pipelined requests answered out of order and matched by sync, an error response,
// box.session.push messages, a response with a sync nobody sent and a greeting that is
// not Tarantool's, call replies that say nil, err in each --call-errors mode, a call
// reply cut short; the server's bytes fed whole, one byte at a time and in every split.
#include "load/iproto_session.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codec/server_suite.h"
#include "codec/session_util.h"
#include "proto/iproto/greeting.h"

namespace memstand {
namespace {

using codec_test::BlockingConn;
using codec_test::ExpectSessionSplitInvariant;
using codec_test::FeedSession;
using codec_test::TestServer;

class IprotoSessionTest : public codec_test::ServerSuiteTest<IprotoSessionTest> {
 public:
  static Result<std::unique_ptr<TestServer>> StartServer() {
    return codec_test::StartTarantool(R"(
box.cfg{memtx_memory = 64 * 1024 * 1024, wal_mode = 'none', log_level = 4}
local s = box.schema.space.create('test', {id = 512})
s:create_index('pk', {type = 'tree', parts = {1, 'string'}})
box.schema.user.create('bench', {password = 'secret'})
box.schema.user.grant('bench', 'read,write,execute', 'universe')
function pushy() box.session.push('first') box.session.push('second') return 1 end
function slow() require('fiber').sleep(0.3) return 2 end
function boom() return nil, 'boom' end
box.cfg{listen = '127.0.0.1:{PORT}'}
)");
  }

 protected:
  void SetUp() override {
    ASSERT_NE(server_, nullptr);
    target_.scheme = "tarantool";
    target_.port = server_->port();
    peer_ = "127.0.0.1:" + std::to_string(server_->port());
  }

  void UseCommands(const std::vector<std::string>& texts) {
    for (const std::string& text : texts) {
      auto r = IprotoRequest::Parse(text, "ik");
      ASSERT_TRUE(r.ok()) << r.status().message();
      requests_.push_back(std::move(*r));
    }
  }

  std::unique_ptr<IprotoSession> NewSession() {
    SessionConfig c;
    c.target = &target_;
    c.peer = peer_;
    c.slots = 8;
    c.setup_counts = &setup_counts_;
    return std::make_unique<IprotoSession>(std::move(c));
  }

  uint64_t Append(IprotoSession* s, size_t i, uint64_t key, std::string_view data, Buffer* out) {
    Draw d;
    d.key = key;
    d.data = data;
    d.rng = &rng_;
    return s->Append(requests_[i], d, out).tag;
  }

  std::string Exchange(const Buffer& out, size_t count) {
    EXPECT_TRUE(conn_->Send(out).ok());
    iproto::Reader reader(iproto::Reader::Mode::kSummary);
    auto raw = conn_->ReadRawReplies(&reader, count);
    EXPECT_TRUE(raw.ok()) << raw.status().message();
    return raw.ok() ? *raw : "";
  }

  // The events of `in` fed whole, byte by byte and in every split, each time to a fresh
  // session that appended as append_all(session, out) does; the same every time.
  template <class AppendAll>
  std::vector<std::string> SplitInvariant(const std::string& in, AppendAll append_all) {
    return ExpectSessionSplitInvariant(in, [&] {
      auto s = NewSession();
      Buffer ignored;
      s->Start(&ignored);
      append_all(s.get(), &ignored);
      return s;
    });
  }

  std::string Greeting() {
    auto g = conn_->ReadExactly(iproto::kGreetingSize);
    EXPECT_TRUE(g.ok()) << g.status().message();
    return g.ok() ? *g : "";
  }

  RedisTarget target_;
  std::string peer_;
  std::vector<IprotoRequest> requests_;
  std::map<std::string, uint64_t> setup_counts_;
  Rng rng_{1};
};

TEST_F(IprotoSessionTest, GreetingAuthAndRepliesMatchedBySync) {
  target_.user = "bench";
  target_.password = "secret";
  UseCommands({"call slow", "ping", "replace 512 [__key__, __data__]", "select 512 0 [__key__]",
               "insert 512 [__key__, 'x']", "call pushy"});
  // slow sleeps, so the ones after it are answered first; ik2 is never written (a
  // miss); the insert of ik1 finds it (ER_TUPLE_FOUND); pushy pushes twice first.
  auto append_all = [&](IprotoSession* s, Buffer* out) {
    std::vector<uint64_t> tags;
    tags.push_back(Append(s, 0, 0, "", out));
    tags.push_back(Append(s, 1, 0, "", out));
    tags.push_back(Append(s, 2, 1, "abc", out));
    tags.push_back(Append(s, 3, 1, "", out));
    tags.push_back(Append(s, 3, 2, "", out));
    tags.push_back(Append(s, 4, 1, "", out));
    tags.push_back(Append(s, 5, 0, "", out));
    // (sequence << 3) | slot, slots taken lowest first.
    EXPECT_EQ(tags, (std::vector<uint64_t>{8, 17, 26, 35, 44, 53, 62}));
  };
  Connect();
  auto live = NewSession();
  Buffer out;
  EXPECT_FALSE(live->Start(&out));  // the server speaks first
  EXPECT_EQ(out.Readable(), 0u);
  const std::string greeting = Greeting();
  EXPECT_TRUE(FeedSession(live.get(), {greeting}, &out).empty());
  EXPECT_GT(out.Readable(), 0u);  // AUTH, with the greeting's salt
  EXPECT_EQ(live->setup_in_flight(), 1u);
  EXPECT_EQ(setup_counts_["auth"], 1u);
  const std::string auth_reply = Exchange(out, 1);
  out.Clear();
  EXPECT_EQ(FeedSession(live.get(), {auth_reply}, &out), std::vector<std::string>{"ready"});
  EXPECT_EQ(live->setup_in_flight(), 0u);

  append_all(live.get(), &out);
  EXPECT_EQ(live->in_flight(), 7u);
  const std::string replies = Exchange(out, 9);  // 7 responses, 2 pushes
  const std::vector<std::string> events = FeedSession(live.get(), {replies}, &out);
  ASSERT_EQ(events.size(), 7u);
  EXPECT_EQ(events[0].rfind("reply 17 ", 0), 0u) << events[0];  // ping, before slow's
  EXPECT_EQ(events.back().rfind("reply 8 ", 0), 0u) << events.back();
  auto has = [&](const std::string& prefix, const std::string& rest) {
    for (const std::string& e : events) {
      if (e.rfind(prefix, 0) == 0) return e.substr(e.find('B') + 1) == rest;
    }
    return false;
  };
  EXPECT_TRUE(has("reply 17 ", " ok"));        // ping: no data
  EXPECT_TRUE(has("reply 26 ", " ok pos"));    // replace: the tuple
  EXPECT_TRUE(has("reply 35 ", " ok pos"));    // select ik1: a hit
  EXPECT_TRUE(has("reply 44 ", " ok"));        // select ik2: a miss
  EXPECT_NE(std::find(events.begin(), events.end(),
                      "reply 53 199B error [ER_TUPLE_FOUND (3)] Duplicate key exists in unique index 'pk' "
                      "in space 'test'"),
            events.end())
      << ::testing::PrintToString(events);
  EXPECT_TRUE(has("reply 62 ", " ok pos"));    // pushy: after its pushes
  EXPECT_TRUE(has("reply 8 ", " ok pos"));     // slow
  EXPECT_EQ(live->in_flight(), 0u);

  // The same bytes, whole, byte by byte and in every split, to sessions that sent the
  // same requests: the same events.
  const std::vector<std::string> expected = [&] {
    std::vector<std::string> e = {"ready"};
    e.insert(e.end(), events.begin(), events.end());
    return e;
  }();
  EXPECT_EQ(SplitInvariant(greeting + auth_reply + replies, append_all), expected);
}

// Each request reads its replies in the --call-errors mode it was appended with; only
// call and eval are read (a select of two tuples is not, even in second-value).
TEST_F(IprotoSessionTest, CallRepliesOfNilAndAnErrorAreErrorsOfKindCall) {
  UseCommands({"call boom", "eval 'return 1, 2'", "replace 512 [__key__, __data__]", "select 512 0 all []"});
  auto append_all = [&](IprotoSession* s, Buffer* out) {
    std::vector<uint64_t> tags;
    auto append = [&](size_t i, iproto::CallErrors mode, uint64_t key) {
      requests_[i].set_call_errors(mode);
      tags.push_back(Append(s, i, key, "v", out));
    };
    append(2, iproto::CallErrors::kAuto, 1);         // 8: two tuples at least for the select
    append(2, iproto::CallErrors::kAuto, 2);         // 17
    append(0, iproto::CallErrors::kAuto, 0);         // 26: boom
    append(1, iproto::CallErrors::kAuto, 0);         // 35: 1, 2
    append(1, iproto::CallErrors::kSecondValue, 0);  // 44: 1, 2
    append(3, iproto::CallErrors::kSecondValue, 0);  // 53: the tuples
    append(0, iproto::CallErrors::kNone, 0);         // 62: boom
    EXPECT_EQ(tags, (std::vector<uint64_t>{8, 17, 26, 35, 44, 53, 62}));
  };
  target_.user = "bench";  // guest may not write 'test'
  target_.password = "secret";
  Connect();
  const std::string greeting = Greeting();
  auto live = NewSession();
  Buffer out;
  live->Start(&out);
  EXPECT_TRUE(FeedSession(live.get(), {greeting}, &out).empty());
  const std::string auth_reply = Exchange(out, 1);
  out.Clear();
  ASSERT_EQ(FeedSession(live.get(), {auth_reply}, &out), std::vector<std::string>{"ready"});
  append_all(live.get(), &out);
  const std::string replies = Exchange(out, 7);
  const std::vector<std::string> events = FeedSession(live.get(), {replies}, &out);
  std::map<uint64_t, std::string> by_tag;  // what follows the size
  for (const std::string& e : events) {
    by_tag[std::stoull(e.substr(6))] = e.substr(e.find('B') + 1);
  }
  EXPECT_EQ(by_tag, (std::map<uint64_t, std::string>{{8, " ok pos"},
                                                     {17, " ok pos"},
                                                     {26, " error [call: boom] boom"},
                                                     {35, " ok pos"},
                                                     {44, " error [call: uint] an error value of type uint"},
                                                     {53, " ok pos"},
                                                     {62, " ok pos"}}))
      << ::testing::PrintToString(events);
  std::vector<std::string> expected = {"ready"};
  expected.insert(expected.end(), events.begin(), events.end());
  EXPECT_EQ(SplitInvariant(greeting + auth_reply + replies, append_all), expected);
}

// A call's reply whose results stop after the first value is malformed, not an error
// reply: the connection fails as for any malformed reply.
TEST_F(IprotoSessionTest, ACallReplyCutAfterTheFirstValueIsAProtocolError) {
  UseCommands({"call boom"});
  Connect();
  const std::string greeting = Greeting();
  auto s = NewSession();
  Buffer out;
  s->Start(&out);
  ASSERT_EQ(Append(s.get(), 0, 0, "", &out), 8u);
  // {REQUEST_TYPE: 0, SYNC: 8} {IPROTO_DATA: [nil, 'boom' with 2 bytes of its 4]}
  const std::string cut("\xce\x00\x00\x00\x0c\x82\x00\x00\x01\x08\x81\x30\x92\xc0\xa4" "bo", 17);
  const std::vector<std::string> events = FeedSession(s.get(), {greeting + cut}, &out);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1], "protocol error: malformed reply from " + peer_ +
                           " (Tarantool (IPROTO) expected): bad MessagePack in IPROTO_DATA at byte 12 of "
                           "the response");
  EXPECT_EQ(s->in_flight(), 1u);
}

TEST_F(IprotoSessionTest, RefusedAuthFailsWithTarantoolsMessage) {
  target_.user = "bench";
  target_.password = "wrong";
  Connect();
  auto s = NewSession();
  Buffer out;
  s->Start(&out);
  EXPECT_TRUE(FeedSession(s.get(), {Greeting()}, &out).empty());
  const std::string reply = Exchange(out, 1);
  const std::vector<std::string> events = FeedSession(s.get(), {reply}, &out);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].rfind("failed: AUTH as 'bench' failed: ", 0), 0u) << events[0];
  EXPECT_NE(events[0].find("(" + peer_ + ")"), std::string::npos) << events[0];
  EXPECT_EQ(s->failure().code(), Status::Code::kServer);
  EXPECT_EQ(s->setup_in_flight(), 0u);
}

TEST_F(IprotoSessionTest, ASyncNobodySentAndAGreetingThatIsNotTarantoolsFail) {
  UseCommands({"ping"});
  Connect();
  const std::string greeting = Greeting();
  // A ping with sync 8, answered; then fed to a session that sent nothing.
  auto sender = NewSession();
  Buffer out;
  sender->Start(&out);
  FeedSession(sender.get(), {greeting}, &out);
  EXPECT_EQ(Append(sender.get(), 0, 0, "", &out), 8u);
  const std::string reply = Exchange(out, 1);
  auto s = NewSession();
  s->Start(&out);
  EXPECT_EQ(FeedSession(s.get(), {greeting + reply}, &out),
            (std::vector<std::string>{"ready", "protocol error: a reply with sync 8 that no request in flight has"}));

  auto t = NewSession();
  t->Start(&out);
  const std::vector<std::string> wrong = FeedSession(t.get(), {std::string(128, 'R')}, &out);
  ASSERT_EQ(wrong.size(), 1u);
  EXPECT_EQ(wrong[0].rfind("failed: ", 0), 0u) << wrong[0];
  EXPECT_NE(wrong[0].find(peer_), std::string::npos) << wrong[0];

  auto u = NewSession();
  u->Start(&out);
  Append(u.get(), 0, 0, "", &out);
  const std::vector<std::string> bad = FeedSession(u.get(), {greeting + std::string("\xce\x00\x00\x00\x01\xc1", 6)}, &out);
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_EQ(bad[1].rfind("protocol error: malformed reply from " + peer_ + " (Tarantool (IPROTO) expected): ", 0),
            0u)
      << bad[1];
  EXPECT_EQ(u->in_flight(), 1u);
  Sent sent{};
  EXPECT_FALSE(u->AppendRedirected(requests_[0], Draw{}, true, &out, nullptr, &sent));
}

TEST_F(IprotoSessionTest, ResetForgetsTheConnection) {
  UseCommands({"ping"});
  Connect();
  const std::string greeting = Greeting();
  auto s = NewSession();
  Buffer out;
  s->Start(&out);
  FeedSession(s.get(), {greeting}, &out);
  Append(s.get(), 0, 0, "", &out);
  Append(s.get(), 0, 0, "", &out);
  const std::string replies = Exchange(out, 2);
  FeedSession(s.get(), {replies.substr(0, 10)}, &out);
  s->Reset();
  EXPECT_EQ(s->in_flight(), 0u);
  Buffer again;
  EXPECT_FALSE(s->Start(&again));
  std::vector<uint64_t> tags = {Append(s.get(), 0, 0, "", &again), Append(s.get(), 0, 0, "", &again)};
  EXPECT_EQ(tags, (std::vector<uint64_t>{8, 17}));
  const std::vector<std::string> events = FeedSession(s.get(), {greeting + replies}, &out);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0], "ready");
  EXPECT_EQ(events[1].rfind("reply 8 ", 0), 0u);
  EXPECT_EQ(events[2].rfind("reply 17 ", 0), 0u);
}

}  // namespace
}  // namespace memstand
