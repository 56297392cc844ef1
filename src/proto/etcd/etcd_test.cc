#include "proto/etcd/etcd.h"

#include <gtest/gtest.h>

#include <string>

namespace memstand::etcd {
namespace {

// The body of a request (after the blank line), checking the Content-Length header.
std::string BodyOf(const Buffer& b, std::string* path = nullptr) {
  const std::string_view all = b.View();
  const size_t end = all.find("\r\n\r\n");
  EXPECT_NE(end, std::string_view::npos);
  const std::string_view head = all.substr(0, end);
  const std::string_view body = all.substr(end + 4);
  EXPECT_NE(head.find("\r\nContent-Length: " + std::to_string(body.size())), std::string_view::npos)
      << head;
  if (path != nullptr) *path = std::string(head.substr(5, head.find(' ', 5) - 5));
  return std::string(body);
}

TEST(EtcdEncoderTest, KvRequests) {
  Target t;
  Buffer b(8);
  AppendPut(&b, t, "foo", "bar");
  EXPECT_EQ(b.View(),
            "POST /v3/kv/put HTTP/1.1\r\nHost: 127.0.0.1:2379\r\nContent-Type: application/json\r\n"
            "Content-Length: 29\r\n\r\n"
            R"({"key":"Zm9v","value":"YmFy"})");
  std::string path;
  b.Clear();
  AppendPut(&b, t, std::string("\0\xff", 2), "", -7);
  EXPECT_EQ(BodyOf(b, &path), R"({"key":"AP8=","value":"","lease":-7})");
  b.Clear();
  AppendRange(&b, t, "foo");
  EXPECT_EQ(BodyOf(b, &path), R"({"key":"Zm9v"})");
  EXPECT_EQ(path, "/v3/kv/range");
  b.Clear();
  AppendRange(&b, t, "a", {.range_end = std::string_view("\0", 1), .limit = 10, .revision = 7,
                           .count_only = true, .keys_only = true, .serializable = true});
  EXPECT_EQ(BodyOf(b),
            R"({"key":"YQ==","range_end":"AA==","limit":10,"revision":7,"count_only":true,"keys_only":true,)"
            R"("serializable":true})");
  b.Clear();
  RangeOptions at_three;
  at_three.revision = 3;
  AppendRange(&b, t, "a", at_three);
  EXPECT_EQ(BodyOf(b), R"({"key":"YQ==","revision":3})");
  b.Clear();
  AppendDeleteRange(&b, t, "foo");
  EXPECT_EQ(BodyOf(b, &path), R"({"key":"Zm9v"})");
  EXPECT_EQ(path, "/v3/kv/deleterange");
  b.Clear();
  AppendDeleteRange(&b, t, "a", "b");
  EXPECT_EQ(BodyOf(b), R"({"key":"YQ==","range_end":"Yg=="})");
}

TEST(EtcdEncoderTest, MaintenanceRequests) {
  Target t{.host = "h:1", .prefix = "/v3beta"};
  Buffer b;
  std::string path;
  AppendStatus(&b, t);
  EXPECT_EQ(BodyOf(b, &path), "{}");
  EXPECT_EQ(path, "/v3beta/maintenance/status");
  EXPECT_NE(b.View().find("\r\nHost: h:1\r\n"), std::string_view::npos);
  b.Clear();
  AppendCompaction(&b, t, 12345);
  EXPECT_EQ(BodyOf(b, &path), R"({"revision":12345,"physical":true})");
  EXPECT_EQ(path, "/v3beta/kv/compaction");
  b.Clear();
  AppendCompaction(&b, t, 1, false);
  EXPECT_EQ(BodyOf(b), R"({"revision":1})");
  b.Clear();
  AppendDefragment(&b, t);
  EXPECT_EQ(BodyOf(b, &path), "{}");
  EXPECT_EQ(path, "/v3beta/maintenance/defragment");
  b.Clear();
  AppendAlarmList(&b, t);
  EXPECT_EQ(BodyOf(b, &path), R"({"action":"GET"})");
  EXPECT_EQ(path, "/v3beta/maintenance/alarm");
  b.Clear();
  AppendAlarmDisarm(&b, t, 10276657743932975437u, "NOSPACE");
  EXPECT_EQ(BodyOf(b), R"({"action":"DEACTIVATE","memberID":10276657743932975437,"alarm":"NOSPACE"})");
}

// Bodies captured from etcd 3.4.23's gateway.
TEST(EtcdReplyTest, DecodesRealReplies) {
  Result<Summary> put = DecodeReply(
      200,
      R"({"header":{"cluster_id":"14841639068965178418","member_id":"10276657743932975437","revision":"2","raft_term":"2"}})");
  ASSERT_TRUE(put.ok()) << put.status().message();
  EXPECT_TRUE(put->ok);
  EXPECT_EQ(put->revision, 2);
  EXPECT_EQ(put->member_id, 10276657743932975437u);
  EXPECT_EQ(put->cluster_id, 14841639068965178418u);

  Result<Summary> range = DecodeReply(
      200,
      R"({"header":{"revision":"2"},"kvs":[{"key":"Zm9v","create_revision":"2","mod_revision":"2","version":"1","value":"YmFy"}],"count":"1"})",
      true);
  ASSERT_TRUE(range.ok()) << range.status().message();
  EXPECT_EQ(range->count, 1);
  EXPECT_EQ(range->kvs, 1u);
  ASSERT_EQ(range->kv_list.size(), 1u);
  EXPECT_EQ(range->kv_list[0].key, "foo");
  EXPECT_EQ(range->kv_list[0].value, "bar");
  EXPECT_EQ(range->kv_list[0].mod_revision, 2);
  EXPECT_EQ(range->kv_list[0].version, 1);

  Result<Summary> miss = DecodeReply(200, R"({"header":{"revision":"3"}})");
  EXPECT_EQ(miss->count, 0);
  EXPECT_EQ(miss->kvs, 0u);

  Result<Summary> del = DecodeReply(200, R"({"header":{"revision":"3"},"deleted":"1"})");
  EXPECT_EQ(del->deleted, 1);

  Result<Summary> status = DecodeReply(
      200,
      R"({"header":{"revision":"3"},"version":"3.4.23","dbSize":"20480","leader":"10276657743932975437","raftIndex":"6","raftTerm":"2","raftAppliedIndex":"6","dbSizeInUse":"16384"})");
  EXPECT_EQ(status->version, "3.4.23");
  EXPECT_EQ(status->db_size, 20480);
  EXPECT_EQ(status->db_size_in_use, 16384);
  EXPECT_EQ(status->leader, 10276657743932975437u);

  Result<Summary> alarms = DecodeReply(
      200, R"({"header":{"revision":"9"},"alarms":[{"memberID":"10276657743932975437","alarm":"NOSPACE"},{"memberID":"5"}]})");
  ASSERT_EQ(alarms->alarms.size(), 2u);
  EXPECT_EQ(alarms->alarms[0].member_id, 10276657743932975437u);
  EXPECT_EQ(alarms->alarms[0].alarm, "NOSPACE");
  EXPECT_EQ(alarms->alarms[1].alarm, "NONE");
  EXPECT_TRUE(DecodeReply(200, "{}")->alarms.empty());
}

TEST(EtcdReplyTest, ErrorsKeepEtcdsTextAndCode) {
  Result<Summary> full = DecodeReply(
      429, R"({"error":"etcdserver: mvcc: database space exceeded","message":"etcdserver: mvcc: database space exceeded","code":8})");
  ASSERT_TRUE(full.ok());
  EXPECT_FALSE(full->ok);
  EXPECT_EQ(full->error, "etcdserver: mvcc: database space exceeded");
  EXPECT_EQ(full->code, 8);
  Result<Summary> message_only = DecodeReply(400, R"({"message":"bad","code":3})");
  EXPECT_EQ(message_only->error, "bad");
  Result<Summary> not_found = DecodeReply(404, "404 page not found\n");
  ASSERT_TRUE(not_found.ok());
  EXPECT_FALSE(not_found->ok);
  EXPECT_EQ(not_found->error, "HTTP 404: 404 page not found");
  EXPECT_EQ(DecodeReply(503, "{}")->error, "HTTP 503");
}

TEST(EtcdReplyTest, MalformedBodiesAreProtocolErrors) {
  EXPECT_EQ(DecodeReply(200, "not json").status().message(),
            "etcd reply is not a JSON object: 'not json'");
  EXPECT_FALSE(DecodeReply(200, "[1]").ok());
  EXPECT_FALSE(DecodeReply(200, R"({"header":{"revision":"x"}})").ok());
  EXPECT_FALSE(DecodeReply(200, R"({"header":{"revision":"99999999999999999999"}})").ok());
  EXPECT_FALSE(DecodeReply(200, R"({"header":[]})").ok());
  EXPECT_FALSE(DecodeReply(200, R"({"count":true})").ok());
  EXPECT_FALSE(DecodeReply(200, R"({"kvs":{}})").ok());
  EXPECT_FALSE(DecodeReply(200, R"({"kvs":[{"key":"***"}]})", true).ok());
  EXPECT_FALSE(DecodeReply(200, R"({"alarms":[1]})").ok());
  EXPECT_FALSE(DecodeReply(200, R"({"alarms":[{"memberID":"-1"}]})").ok());
  EXPECT_EQ(DecodeReply(200, R"({"header":{"revision":"-5"}})")->revision, -5);
  // Nested a million deep: refused before the recursive parser sees it, whatever the status.
  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');
  for (int status : {200, 500}) {
    auto r = DecodeReply(status, "{\"kvs\":" + deep + "}");
    ASSERT_FALSE(r.ok()) << status;
    EXPECT_NE(r.status().message().find("nested deeper than 64 levels (at kvs"), std::string::npos)
        << r.status().message();
  }
}

}  // namespace
}  // namespace memstand::etcd
