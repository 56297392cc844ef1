// --wait-replicas against real redis-servers: a write followed by WAIT is one request
// (one tag, one reply) whose outcome WAIT's count decides: ok on a primary whose replica
// acknowledged it, unknown ("not replicated") on one with no replica; a failed write is
// the write's error; WAIT refused (on a replica) leaves the write unknown. Then a run
// through the engine: the cross-check counts the WAITs, and the history records each
// write once, ok.
#include <unistd.h>

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "client/redis_client.h"
#include "codec/server_util.h"
#include "codec/session_util.h"
#include "history/history_reader.h"
#include "load/command_spec.h"
#include "load/engine.h"
#include "load/resp_session.h"
#include "stand/local_redis.h"
#include "stand/temp_folder.h"

namespace memstand {
namespace {

using codec_test::BlockingConn;
using codec_test::ExpectSessionSplitInvariant;
using codec_test::FeedSession;

Result<std::unique_ptr<LocalRedis>> StartRedis() { return LocalRedis::Start(LocalRedisOptions{}); }

// INFO replication's field `name` on the server at port, "" when it has none.
std::string InfoField(int port, const std::string& name) {
  auto c = RedisClient::Connect("127.0.0.1", port, 5000);
  if (!c.ok()) return "";
  auto info = (*c)->Command({"INFO", "replication"});
  if (!info.ok()) return "";
  const std::string key = name + ":";
  const size_t at = info->str.find(key);
  if (at == std::string::npos) return "";
  const size_t end = info->str.find('\r', at);
  return info->str.substr(at + key.size(), end - at - key.size());
}

// Makes `replica` a replica of `primary` and waits until the primary counts it online
// (no time asserted: a bounded wait for a state, 20 s on a loaded machine).
Status Replicate(const LocalRedis& primary, const LocalRedis& replica) {
  auto c = RedisClient::Connect("127.0.0.1", replica.port(), 5000);
  if (!c.ok()) return c.status();
  auto r = (*c)->Command({"REPLICAOF", "127.0.0.1", std::to_string(primary.port())});
  if (!r.ok()) return r.status();
  if (r->is_error()) return Status::Failed("REPLICAOF: " + r->str);
  for (int i = 0; i < 2000; ++i) {
    if (InfoField(replica.port(), "master_link_status") == "up" &&
        InfoField(primary.port(), "connected_slaves") == "1") {
      return Status::OK();
    }
    usleep(10'000);
  }
  return Status::Failed("the replica did not come online");
}

class WaitReplicasTest : public ::testing::Test {
 protected:
  // Requests of `texts` (keys "k<index>") with WAIT n timeout_ms after the writes.
  void UseCommands(const std::vector<std::string>& texts, int n, int timeout_ms) {
    LoadOptions opt;
    opt.key_prefix = "k";
    opt.wait = {n, timeout_ms};
    for (const std::string& text : texts) {
      auto spec = MakeCommandSpec(Protocol::kResp, text, "k", KeyPatternSpec{}, 1, CommandLimits{});
      ASSERT_TRUE(spec.ok()) << spec.status().message();
      opt.commands.push_back(*spec);
    }
    requests_ = RespSession::MakeRequests(opt);
  }

  std::unique_ptr<RespSession> NewSession(const LocalRedis& server) {
    target_.host = "127.0.0.1";
    target_.port = server.port();
    SessionConfig c;
    c.target = &target_;
    c.peer = "127.0.0.1:" + std::to_string(server.port());
    c.slots = 8;
    return std::make_unique<RespSession>(std::move(c));
  }

  Sent Append(RespSession* s, size_t i, uint64_t key, std::string_view data, Buffer* out) {
    Draw d;
    d.key = key;
    d.data = data;
    return s->Append(requests_[i], d, out);
  }

  // Sends `out` to the server at port and returns the bytes of the next `count` replies.
  static std::string Exchange(int port, const Buffer& out, size_t count) {
    auto conn = BlockingConn::Connect(port);
    EXPECT_TRUE(conn.ok()) << conn.status().message();
    if (!conn.ok()) return "";
    EXPECT_TRUE((*conn)->Send(out).ok());
    resp::Reader reader(resp::Reader::Mode::kSummary);
    auto raw = (*conn)->ReadRawReplies(&reader, count);
    EXPECT_TRUE(raw.ok()) << raw.status().message();
    return raw.ok() ? *raw : "";
  }

  RedisTarget target_;
  std::vector<RespRequest> requests_;
};

TEST_F(WaitReplicasTest, AWriteAndItsWaitAreOneRequestOkWhenTheReplicaAcknowledged) {
  auto primary = StartRedis();
  ASSERT_TRUE(primary.ok()) << primary.status().message();
  auto replica = StartRedis();
  ASSERT_TRUE(replica.ok()) << replica.status().message();
  ASSERT_TRUE(Replicate(**primary, **replica).ok());
  UseCommands({"set __key__ __data__", "get __key__"}, 1, 5000);
  ASSERT_TRUE(requests_[1].wait.empty());  // a read: no WAIT after it
  // SET k1 abc + WAIT, GET k1, SET k2 defg + WAIT: three requests, five replies.
  auto append_all = [&](RespSession* s, Buffer* out) {
    const Sent first = Append(s, 0, 1, "abc", out);
    EXPECT_EQ(first.tag, 0u);
    EXPECT_EQ(first.bytes, out->Readable());  // the WAIT is the request's
    EXPECT_EQ(std::string(RespSession::WrittenValue(requests_[0], out, 3), 3), "abc");
    EXPECT_EQ(Append(s, 1, 1, "", out).tag, 1u);
    EXPECT_EQ(Append(s, 0, 2, "defg", out).tag, 2u);
    EXPECT_EQ(std::string(RespSession::WrittenValue(requests_[0], out, 4), 4), "defg");
  };
  auto live = NewSession(**primary);
  Buffer out;
  EXPECT_TRUE(live->Start(&out));
  append_all(live.get(), &out);
  const std::string wait = "*3\r\n$4\r\nWAIT\r\n$1\r\n1\r\n$4\r\n5000\r\n";
  EXPECT_EQ(std::string(out.View()), "*3\r\n$3\r\nset\r\n$2\r\nk1\r\n$3\r\nabc\r\n" + wait +
                                         "*2\r\n$3\r\nget\r\n$2\r\nk1\r\n"
                                         "*3\r\n$3\r\nset\r\n$2\r\nk2\r\n$4\r\ndefg\r\n" + wait);
  EXPECT_EQ(live->in_flight(), 3u);
  const std::string replies = Exchange((*primary)->port(), out, 5);
  const std::vector<std::string> expected = {
      "reply 0 9B ok pos",  // +OK, :1
      "reply 1 9B ok pos",  // $3 abc
      "reply 2 9B ok pos",  // +OK, :1
  };
  EXPECT_EQ(FeedSession(live.get(), {replies}, &out), expected);
  EXPECT_EQ(live->in_flight(), 0u);
  EXPECT_EQ(ExpectSessionSplitInvariant(replies,
                                        [&] {
                                          auto s = NewSession(**primary);
                                          Buffer ignored;
                                          s->Start(&ignored);
                                          append_all(s.get(), &ignored);
                                          return s;
                                        }),
            expected);

  // On the replica: the write refused (READONLY: fail, its own error), and a command
  // that runs there (PING) whose WAIT is refused: unknown, WAIT's error.
  UseCommands({"set __key__ __data__", "ping"}, 1, 5000);
  auto on_replica = NewSession(**replica);
  Buffer out2;
  on_replica->Start(&out2);
  Append(on_replica.get(), 0, 1, "abc", &out2);
  Append(on_replica.get(), 1, 0, "", &out2);
  const std::string refused = Exchange((*replica)->port(), out2, 4);
  std::vector<ReplyView> views;
  size_t off = 0;
  while (off < refused.size()) {
    ReplyView r;
    size_t used = 0;
    if (on_replica->Feed(refused.data() + off, refused.size() - off, &used, &out2, &r) == SessionEvent::kReply) {
      EXPECT_EQ(r.tag, views.size());
      ASSERT_TRUE(r.is_error);
      if (views.empty()) {
        EXPECT_EQ(r.error_kind, "READONLY");
        EXPECT_FALSE(r.indefinite);
      } else {
        EXPECT_EQ(r.error_kind, "WAIT");
        EXPECT_TRUE(r.error.starts_with("WAIT: ERR WAIT cannot be used with replica instances")) << r.error;
        EXPECT_TRUE(r.indefinite);
      }
      views.push_back(r);
    }
    off += used;
  }
  EXPECT_EQ(views.size(), 2u);
  EXPECT_TRUE((*replica)->Stop().ok());
  EXPECT_TRUE((*primary)->Stop().ok());
}

TEST_F(WaitReplicasTest, WithNoReplicaAWriteEndsUnknownAndAFailedWriteWithItsError) {
  auto primary = StartRedis();
  ASSERT_TRUE(primary.ok()) << primary.status().message();
  UseCommands({"set __key__ __data__", "incr __key__"}, 1, 20);
  auto live = NewSession(**primary);
  Buffer out;
  live->Start(&out);
  Append(live.get(), 0, 1, "abc", &out);
  Append(live.get(), 1, 1, "", &out);  // INCR of "abc": an error, then its WAIT
  const std::string replies = Exchange((*primary)->port(), out, 4);
  const std::vector<std::string> expected = {
      "reply 0 9B error [not replicated] WAIT answered 0: fewer replicas than 1 acknowledged the write within "
      "its timeout",
      "reply 1 50B error [ERR] ERR value is not an integer or out of range",
  };
  EXPECT_EQ(FeedSession(live.get(), {replies}, &out), expected);
  auto again = NewSession(**primary);
  Buffer ignored;
  again->Start(&ignored);
  Append(again.get(), 0, 1, "abc", &ignored);
  ReplyView r;
  size_t used = 0;
  ASSERT_EQ(again->Feed(replies.data(), replies.size(), &used, &ignored, &r), SessionEvent::kReply);
  EXPECT_TRUE(r.is_error);
  EXPECT_TRUE(r.indefinite);  // the primary applied it: unknown, not fail
  EXPECT_FALSE(r.positive);
  EXPECT_EQ(ExpectSessionSplitInvariant(replies,
                                        [&] {
                                          auto s = NewSession(**primary);
                                          Buffer b;
                                          s->Start(&b);
                                          Append(s.get(), 0, 1, "abc", &b);
                                          Append(s.get(), 1, 1, "", &b);
                                          return s;
                                        }),
            expected);
  // Reset forgets the WAIT awaited with the connection.
  again->Reset();
  EXPECT_EQ(again->in_flight(), 0u);
  EXPECT_TRUE((*primary)->Stop().ok());
}

TEST_F(WaitReplicasTest, ARunCountsItsWaitsAndRecordsEachWriteOnceInItsHistory) {
  auto primary = StartRedis();
  ASSERT_TRUE(primary.ok()) << primary.status().message();
  auto replica = StartRedis();
  ASSERT_TRUE(replica.ok()) << replica.status().message();
  ASSERT_TRUE(Replicate(**primary, **replica).ok());
  auto folder = MakeTempFolder("redis");
  ASSERT_TRUE(folder.ok()) << folder.status().message();
  RemovedOnExit remove(*folder);
  LoadOptions opt;
  opt.target.host = "127.0.0.1";
  opt.target.port = (*primary)->port();
  opt.clients = 4;
  opt.pipeline = 2;
  opt.requests = 400;
  opt.key_max = 49;
  opt.exclusive_server = true;
  opt.history_path = *folder + "/run.hist";
  opt.wait = {1, 5000};
  for (const char* text : {"SET __key__ __data__", "GET __key__"}) {
    auto spec = MakeCommandSpec(Protocol::kResp, text, opt.key_prefix, KeyPatternSpec{}, 1, CommandLimits{});
    ASSERT_TRUE(spec.ok()) << spec.status().message();
    opt.commands.push_back(*spec);
  }
  auto result = RunLoad(opt, nullptr, nullptr);
  ASSERT_TRUE(result.ok()) << result.status().message();
  ASSERT_TRUE(result->failure.ok()) << result->failure.message();
  const uint64_t writes = result->totals.sent_by_command[0];
  EXPECT_GT(writes, 0u);
  EXPECT_EQ(result->totals.commands[0].errors, 0u);  // every write acknowledged by the replica
  ASSERT_TRUE(result->cross_check.available) << result->cross_check.unavailable_reason;
  EXPECT_FALSE(result->cross_check.mismatch);
  bool waits = false;
  for (const CrossCheckRow& row : result->cross_check.rows) {
    if (row.command != "wait") continue;
    waits = true;
    EXPECT_EQ(row.memstand, static_cast<int64_t>(writes));
    EXPECT_EQ(row.server, row.memstand);
  }
  EXPECT_TRUE(waits);
  auto h = history::ReadHistoryFile(opt.history_path);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->records.size(), result->totals.sent_total);  // one record per operation, the WAIT none
  uint64_t recorded_writes = 0;
  std::set<std::pair<uint32_t, uint32_t>> ids;
  for (const history::Record& rec : h->records) {
    EXPECT_TRUE(ids.insert({rec.client, rec.seq}).second);
    if (rec.f != history::Op::kWrite) continue;
    ++recorded_writes;
    EXPECT_EQ(rec.outcome, history::Outcome::kOk);
  }
  EXPECT_EQ(recorded_writes, writes);
  EXPECT_TRUE((*replica)->Stop().ok());
  EXPECT_TRUE((*primary)->Stop().ok());
}

}  // namespace
}  // namespace memstand
