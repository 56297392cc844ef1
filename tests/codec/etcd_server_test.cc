// The etcd gateway codec against a real etcd (Debian's etcd-server), over one
// keep-alive loopback connection: kv calls with revisions checked, and the whole
// maintenance cycle of a full database (space exceeded -> NOSPACE alarm -> compact ->
// defragment -> disarm -> writable again).
#include <gtest/gtest.h>

#include <string>

#include "codec/server_util.h"
#include "proto/etcd/etcd.h"
#include "proto/etcd/http.h"

namespace memstand::etcd {
namespace {

using codec_test::BlockingConn;

class EtcdServerTest : public ::testing::Test {
 protected:
  void Start(const std::vector<std::string>& extra = {}) {
    auto server = codec_test::StartEtcd(extra);
    ASSERT_TRUE(server.ok()) << server.status().message();
    server_ = std::move(*server);
    target_.host = "127.0.0.1:" + std::to_string(server_->port());
    auto conn = BlockingConn::Connect(server_->port());
    ASSERT_TRUE(conn.ok()) << conn.status().message();
    conn_ = std::move(*conn);
  }

  // Sends what out_ holds on the same connection and decodes the reply.
  Summary RoundTrip(bool want_kvs = false) {
    EXPECT_TRUE(conn_->Send(out_).ok());
    out_.Clear();
    Status s = conn_->ReadReply(&reader_);
    EXPECT_TRUE(s.ok()) << s.message();
    if (!s.ok()) return Summary();
    EXPECT_TRUE(reader_.response().keep_alive);
    Result<Summary> r = DecodeReply(reader_.response().status, reader_.response().body, want_kvs);
    EXPECT_TRUE(r.ok()) << r.status().message() << ": " << reader_.response().body;
    return r.ok() ? *r : Summary();
  }

  std::unique_ptr<codec_test::TestServer> server_;
  std::unique_ptr<BlockingConn> conn_;
  Target target_;
  Buffer out_;
  http::ResponseReader reader_;
};

TEST_F(EtcdServerTest, KvCallsAndRevisions) {
  Start();
  AppendStatus(&out_, target_);
  const Summary status = RoundTrip();
  ASSERT_TRUE(status.ok) << status.error;
  EXPECT_EQ(status.version.substr(0, 2), "3.");
  EXPECT_GT(status.db_size, 0);
  EXPECT_NE(status.leader, 0u);
  const int64_t rev0 = status.revision;

  constexpr int kPuts = 50;
  for (int i = 0; i < kPuts; ++i) {
    AppendPut(&out_, target_, "key/" + std::to_string(i), std::string("v\0\xff", 3) + std::to_string(i));
    const Summary put = RoundTrip();
    ASSERT_TRUE(put.ok) << put.error;
    EXPECT_EQ(put.revision, rev0 + i + 1);  // each put is one revision
  }
  AppendRange(&out_, target_, "key/7");
  Summary one = RoundTrip(true);
  EXPECT_EQ(one.count, 1);
  ASSERT_EQ(one.kv_list.size(), 1u);
  EXPECT_EQ(one.kv_list[0].value, std::string("v\0\xff", 3) + "7");
  AppendRange(&out_, target_, "nokey");
  EXPECT_EQ(RoundTrip().count, 0);
  AppendRange(&out_, target_, "key/", {.range_end = "key0", .limit = 10});  // prefix "key/"
  Summary page = RoundTrip();
  EXPECT_EQ(page.count, kPuts);
  EXPECT_EQ(page.kvs, 10u);
  EXPECT_TRUE(page.more);
  AppendRange(&out_, target_, "key/", {.range_end = "key0", .count_only = true});
  EXPECT_EQ(RoundTrip().count, kPuts);
  AppendDeleteRange(&out_, target_, "key/1", "key/2");  // key/1, key/10..key/19
  Summary del = RoundTrip();
  EXPECT_EQ(del.deleted, 11);
  EXPECT_EQ(del.revision, rev0 + kPuts + 1);  // one delete, one revision

  // A wrong prefix: the gateway's plain-text 404, as a failed summary.
  Target wrong = target_;
  wrong.prefix = "/v9";
  AppendStatus(&out_, wrong);
  Summary not_found = RoundTrip();
  EXPECT_FALSE(not_found.ok);
  EXPECT_EQ(not_found.error, "HTTP 404: 404 page not found");
  // 3.4 still serves the 3.3 prefix.
  Target beta = target_;
  beta.prefix = "/v3beta";
  AppendRange(&out_, beta, "key/3");
  EXPECT_EQ(RoundTrip().count, 1);
  // Compacting past the current revision: etcd's error text and gRPC code.
  AppendCompaction(&out_, target_, del.revision + 100);
  Summary future = RoundTrip();
  EXPECT_FALSE(future.ok);
  EXPECT_EQ(future.error, "etcdserver: mvcc: required revision is a future revision");
  EXPECT_EQ(future.code, 11);  // OUT_OF_RANGE
}

TEST_F(EtcdServerTest, SpaceExceededAlarmAndRecovery) {
  // A 1 MiB quota fills after a few hundred KiB of 64 KiB values.
  Start({"--quota-backend-bytes", std::to_string(1024 * 1024)});
  const std::string value(64 * 1024, 'x');
  Summary put;
  int accepted = 0;
  for (int i = 0; i < 200; ++i) {
    AppendPut(&out_, target_, "big", value);
    put = RoundTrip();
    if (!put.ok) break;
    ++accepted;
  }
  ASSERT_FALSE(put.ok) << "the quota never filled";
  EXPECT_GT(accepted, 0);
  EXPECT_EQ(put.error, "etcdserver: mvcc: database space exceeded");
  EXPECT_EQ(put.code, 8);  // RESOURCE_EXHAUSTED

  AppendAlarmList(&out_, target_);
  Summary alarms = RoundTrip();
  ASSERT_EQ(alarms.alarms.size(), 1u);
  EXPECT_EQ(alarms.alarms[0].alarm, "NOSPACE");

  AppendStatus(&out_, target_);
  const Summary status = RoundTrip();
  AppendCompaction(&out_, target_, status.revision);
  Summary compacted = RoundTrip();
  EXPECT_TRUE(compacted.ok) << compacted.error;
  AppendDefragment(&out_, target_);
  Summary defrag = RoundTrip();
  EXPECT_TRUE(defrag.ok) << defrag.error;
  AppendStatus(&out_, target_);
  EXPECT_LT(RoundTrip().db_size, status.db_size);

  AppendAlarmDisarm(&out_, target_, alarms.alarms[0].member_id, "NOSPACE");
  EXPECT_TRUE(RoundTrip().ok);
  AppendAlarmList(&out_, target_);
  EXPECT_TRUE(RoundTrip().alarms.empty());
  AppendPut(&out_, target_, "small", "v");
  Summary after = RoundTrip();
  EXPECT_TRUE(after.ok) << after.error;
}

}  // namespace
}  // namespace memstand::etcd
