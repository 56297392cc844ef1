// EtcdSession against a real etcd's JSON gateway: pipelined puts, ranges and deletes
// and what each response means for the request it answers (a hit, an applied write),
// an error response, a response that closes the connection, responses that answer
// nothing and bodies that are not etcd's; the server's bytes fed whole, one byte at a
// time and in every split.
#include "load/etcd_session.h"

#include <gtest/gtest.h>

#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "codec/server_suite.h"
#include "codec/session_util.h"
#include "proto/etcd/etcd.h"
#include "proto/etcd/http.h"

namespace memstand {
namespace {

using codec_test::BlockingConn;
using codec_test::ExpectSessionSplitInvariant;
using codec_test::FeedSession;
using codec_test::TestServer;

// etcd's responses carry a date, revisions and ids: their sizes vary from run to run.
std::vector<std::string> WithoutSizes(std::vector<std::string> events) {
  for (std::string& e : events) e = std::regex_replace(e, std::regex(" [0-9]+B"), "");
  return events;
}

class EtcdSessionTest : public codec_test::ServerSuiteTest<EtcdSessionTest> {
 public:
  static Result<std::unique_ptr<TestServer>> StartServer() { return codec_test::StartEtcd(); }

 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(Connect());
    target_.scheme = "etcd";
    target_.port = server_->port();
    peer_ = "127.0.0.1:" + std::to_string(server_->port());
    etcd_.host = peer_;
  }

  void UseCommands(const std::vector<std::string>& texts) {
    for (const std::string& text : texts) {
      auto r = EtcdRequest::Parse(text, "ek");
      ASSERT_TRUE(r.ok()) << r.status().message();
      r->set_etcd_target(etcd_);
      requests_.push_back(std::move(*r));
    }
  }

  std::unique_ptr<EtcdSession> NewSession() {
    SessionConfig c;
    c.target = &target_;
    c.peer = peer_;
    c.slots = 16;
    return std::make_unique<EtcdSession>(std::move(c));
  }

  uint64_t Append(EtcdSession* s, size_t i, uint64_t key, std::string_view data, Buffer* out) {
    Draw d;
    d.key = key;
    d.data = data;
    return s->Append(requests_[i], d, out).tag;
  }

  std::string Exchange(const Buffer& out, size_t count) {
    EXPECT_TRUE(conn_->Send(out).ok());
    http::ResponseReader reader;
    auto raw = conn_->ReadRawReplies(&reader, count);
    EXPECT_TRUE(raw.ok()) << raw.status().message();
    return raw.ok() ? *raw : "";
  }

  RedisTarget target_;
  std::string peer_;
  etcd::Target etcd_;
  std::vector<EtcdRequest> requests_;
};

TEST_F(EtcdSessionTest, PipelinedResponsesMeanWhatTheirRequestDid) {
  UseCommands({"put __key__ __data__", "range __key__", "delete __key__"});
  // put ek1; range ek1 (a hit); range ek2 (a miss); delete ek1 (deleted: a hit and a
  // new revision); delete ek2 (nothing deleted); then a put whose key is empty on the
  // wire (etcd refuses it), and a range that asks the server to close.
  auto append_all = [&](EtcdSession* s, Buffer* out, Buffer* not_sent) {
    Append(s, 0, 1, "abc", out);
    Append(s, 1, 1, "", out);
    Append(s, 1, 2, "", out);
    Append(s, 2, 1, "", out);
    Append(s, 2, 2, "", out);
    Append(s, 0, 3, "abc", not_sent);
    EXPECT_EQ(Append(s, 1, 1, "", not_sent), 6u);
  };
  auto live = NewSession();
  Buffer out, not_sent;
  EXPECT_TRUE(live->Start(&out));
  append_all(live.get(), &out, &not_sent);
  etcd::AppendPut(&out, etcd_, "", "abc");
  Buffer closing;
  etcd::AppendRange(&closing, etcd_, "ek1");
  std::string close_request(closing.View());
  close_request.insert(close_request.find("\r\n") + 2, "Connection: close\r\n");
  out.Append(close_request);
  const std::string replies = Exchange(out, 7);
  const std::vector<std::string> expected = {
      "reply 0 ok pos applied",
      "reply 1 ok pos",
      "reply 2 ok",
      "reply 3 ok pos applied",
      "reply 4 ok",
      "reply 5 error [etcdserver: key is not provided (code 3)] etcdserver: key is not provided",
      "reply 6 ok closes",  // ek1 was deleted: a miss
  };
  EXPECT_EQ(WithoutSizes(FeedSession(live.get(), {replies}, &out)), expected);
  EXPECT_EQ(live->in_flight(), 0u);
  const std::vector<std::string> split = ExpectSessionSplitInvariant(replies, [&] {
    auto s = NewSession();
    Buffer ignored;
    append_all(s.get(), &ignored, &ignored);
    return s;
  });
  EXPECT_EQ(WithoutSizes(split), expected);
  // Every response's bytes are counted once.
  size_t total = 0;
  for (const std::string& e : split) total += std::stoul(e.substr(e.find(' ', 6) + 1));
  EXPECT_EQ(total, replies.size());
}

TEST_F(EtcdSessionTest, AResponseToNothingAndBodiesThatAreNotEtcdsAreProtocolErrors) {
  UseCommands({"range __key__"});
  Buffer range;
  etcd::AppendRange(&range, etcd_, "ek9");
  const std::string reply = Exchange(range, 1);
  auto s = NewSession();
  Buffer out;
  EXPECT_EQ(FeedSession(s.get(), {reply}, &out),
            std::vector<std::string>{"protocol error: a reply arrived with no request in flight"});

  auto t = NewSession();
  Append(t.get(), 0, 9, "", &out);
  const std::vector<std::string> not_json =
      FeedSession(t.get(), {"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nnope!"}, &out);
  ASSERT_EQ(not_json.size(), 1u);
  EXPECT_NE(not_json[0].find("reply from " + peer_), std::string::npos) << not_json[0];
  EXPECT_EQ(t->in_flight(), 1u);  // a failed Feed takes no request
  Sent sent{};
  EXPECT_FALSE(t->AppendRedirected(requests_[0], Draw{}, false, &out, nullptr, &sent));
  EXPECT_EQ(EtcdSession::Slot(requests_[0], Draw{}), -1);

  auto u = NewSession();
  Append(u.get(), 0, 9, "", &out);
  const std::vector<std::string> not_http = FeedSession(u.get(), {"SSH-2.0-OpenSSH\r\n"}, &out);
  ASSERT_EQ(not_http.size(), 1u);
  EXPECT_EQ(not_http[0].rfind("protocol error: malformed reply from " + peer_ +
                                  " (etcd (v3 JSON gateway) expected): ",
                              0),
            0u)
      << not_http[0];
}

TEST_F(EtcdSessionTest, ResetForgetsTheConnection) {
  UseCommands({"range __key__"});
  auto s = NewSession();
  Buffer out;
  Append(s.get(), 0, 1, "", &out);
  const std::string reply = Exchange(out, 1);
  FeedSession(s.get(), {reply.substr(0, 20)}, &out);
  s->Reset();
  EXPECT_EQ(s->in_flight(), 0u);
  Buffer again;
  EXPECT_EQ(Append(s.get(), 0, 1, "", &again), 0u);
  const std::vector<std::string> events = FeedSession(s.get(), {reply}, &out);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].rfind("reply 0 ", 0), 0u) << events[0];
}

}  // namespace
}  // namespace memstand
