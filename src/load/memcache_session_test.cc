// MemcacheSession against a real memcached: pipelined requests of every kind the
// engine sends and what each reply means (hit, miss, error), replies that answer
// nothing and bytes that are no reply; the server's bytes fed whole, one byte at a time
// and in every split.
#include "load/memcache_session.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "codec/server_suite.h"
#include "codec/session_util.h"

namespace memstand {
namespace {

using codec_test::BlockingConn;
using codec_test::ExpectSessionSplitInvariant;
using codec_test::FeedSession;
using codec_test::TestServer;

class MemcacheSessionTest : public codec_test::ServerSuiteTest<MemcacheSessionTest> {
 public:
  static Result<std::unique_ptr<TestServer>> StartServer() { return codec_test::StartMemcached(); }

 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(Connect());
    target_.scheme = "memcache";
    target_.port = server_->port();
    peer_ = "127.0.0.1:" + std::to_string(server_->port());
  }

  void UseCommands(const std::vector<std::string>& texts) {
    for (const std::string& text : texts) {
      auto r = MemcacheRequest::Parse(text, "mk");
      ASSERT_TRUE(r.ok()) << r.status().message();
      requests_.push_back(std::move(*r));
    }
  }

  std::unique_ptr<MemcacheSession> NewSession() {
    SessionConfig c;
    c.target = &target_;
    c.peer = peer_;
    c.slots = 16;
    return std::make_unique<MemcacheSession>(std::move(c));
  }

  uint64_t Append(MemcacheSession* s, size_t i, uint64_t key, std::string_view data, Buffer* out) {
    Draw d;
    d.key = key;
    d.data = data;
    return s->Append(requests_[i], d, out).tag;
  }

  std::string Exchange(const Buffer& out, size_t count) {
    EXPECT_TRUE(conn_->Send(out).ok());
    memcache::Reader reader(memcache::Reader::Mode::kSummary);
    auto raw = conn_->ReadRawReplies(&reader, count);
    EXPECT_TRUE(raw.ok()) << raw.status().message();
    return raw.ok() ? *raw : "";
  }

  RedisTarget target_;
  std::string peer_;
  std::vector<MemcacheRequest> requests_;
};

TEST_F(MemcacheSessionTest, PipelinedRepliesAndWhatEachMeans) {
  UseCommands({"set __key__ __data__", "get __key__", "gets __key__", "add __key__ __data__",
               "incr __key__ 1", "delete __key__", "touch __key__ 0"});
  // set mk1 abc; get mk1 (a hit); gets mk2 (a miss); add mk1 (NOT_STORED: a miss);
  // incr mk1 (not a number: CLIENT_ERROR); delete mk1 (DELETED: a hit); touch mk2
  // (NOT_FOUND: a miss).
  auto append_all = [&](MemcacheSession* s, Buffer* out) {
    EXPECT_EQ(Append(s, 0, 1, "abc", out), 0u);
    Append(s, 1, 1, "", out);
    Append(s, 2, 2, "", out);
    Append(s, 3, 1, "xyz", out);
    Append(s, 4, 1, "", out);
    Append(s, 5, 1, "", out);
    EXPECT_EQ(Append(s, 6, 2, "", out), 6u);
  };
  auto live = NewSession();
  Buffer out;
  EXPECT_TRUE(live->Start(&out));  // nothing to set up
  append_all(live.get(), &out);
  EXPECT_EQ(live->in_flight(), 7u);
  const std::string replies = Exchange(out, 7);
  const std::vector<std::string> expected = {
      "reply 0 8B ok pos",                        // STORED
      "reply 1 25B ok pos get",                   // VALUE mk1 0 3 / abc / END
      "reply 2 5B ok get",                        // END
      "reply 3 12B ok",                           // NOT_STORED
      "reply 4 62B error [client-error] cannot increment or decrement non-numeric value",
      "reply 5 9B ok pos",                        // DELETED
      "reply 6 11B ok",                           // NOT_FOUND
  };
  EXPECT_EQ(FeedSession(live.get(), {replies}, &out), expected);
  EXPECT_EQ(live->in_flight(), 0u);
  EXPECT_EQ(ExpectSessionSplitInvariant(replies,
                                        [&] {
                                          auto s = NewSession();
                                          Buffer ignored;
                                          append_all(s.get(), &ignored);
                                          return s;
                                        }),
            expected);
}

TEST_F(MemcacheSessionTest, AReplyToNothingAndBytesThatAreNoReplyAreProtocolErrors) {
  UseCommands({"get __key__"});
  Buffer get;
  Draw d;
  d.key = 9;
  ProtoArgs a{9, "", 0, nullptr, nullptr};
  std::string scratch, scratch2;
  a.scratch = &scratch;
  a.scratch2 = &scratch2;
  requests_[0].Append(&get, a);
  const std::string reply = Exchange(get, 1);
  auto s = NewSession();
  Buffer out;
  EXPECT_EQ(FeedSession(s.get(), {reply}, &out),
            std::vector<std::string>{"protocol error: a reply arrived with no request in flight"});

  auto t = NewSession();
  Append(t.get(), 0, 9, "", &out);
  const std::vector<std::string> bad = FeedSession(t.get(), {"BOGUS LINE\r\n"}, &out);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].rfind("protocol error: malformed reply from " + peer_ +
                             " (memcached (text protocol) expected): ",
                         0),
            0u)
      << bad[0];
  EXPECT_EQ(t->in_flight(), 1u);
  Sent sent{};
  EXPECT_FALSE(t->AppendRedirected(requests_[0], d, true, &out, nullptr, &sent));
  EXPECT_EQ(MemcacheSession::Slot(requests_[0], d), -1);
}

TEST_F(MemcacheSessionTest, ResetForgetsTheConnection) {
  UseCommands({"get __key__"});
  auto s = NewSession();
  Buffer out;
  Append(s.get(), 0, 3, "", &out);
  Append(s.get(), 0, 4, "", &out);
  const std::string replies = Exchange(out, 2);
  FeedSession(s.get(), {replies.substr(0, 7)}, &out);  // the first END and 2 bytes
  s->Reset();
  EXPECT_EQ(s->in_flight(), 0u);
  Buffer again;
  EXPECT_EQ(Append(s.get(), 0, 3, "", &again), 0u);
  EXPECT_EQ(Append(s.get(), 0, 4, "", &again), 1u);
  EXPECT_EQ(FeedSession(s.get(), {replies}, &out),
            (std::vector<std::string>{"reply 0 5B ok get", "reply 1 5B ok get"}));
}

}  // namespace
}  // namespace memstand
