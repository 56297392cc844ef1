// Codecs pointed at a server that speaks another protocol. Where the server answers,
// the reader's protocol error quotes what came back; where it closes the connection
// (memcached on an HTTP request line) the caller sees the close, and must say so.
// (An IPROTO client waits for a greeting that a non-Tarantool server never sends: the
// caller bounds that wait; see docs/protocols.md.)
#include <gtest/gtest.h>

#include <string>

#include "codec/server_util.h"
#include "proto/etcd/http.h"
#include "proto/memcache/memcache.h"
#include "stand/local_redis.h"

namespace memstand {
namespace {

using codec_test::BlockingConn;

TEST(WrongServerTest, MemcacheAgainstRedis) {
  auto redis = LocalRedis::Start(LocalRedisOptions{});
  ASSERT_TRUE(redis.ok()) << redis.status().message();
  auto conn = BlockingConn::Connect((*redis)->port());
  ASSERT_TRUE(conn.ok());
  Buffer out;
  memcache::AppendStore(&out, memcache::StoreCommand::kSet, "k", 0, 0, "hello");
  ASSERT_TRUE((*conn)->Send(out).ok());
  memcache::Reader mc;
  Status s = (*conn)->ReadReply(&mc);
  EXPECT_EQ(s.code(), Status::Code::kProtocol);
  EXPECT_EQ(s.message().substr(0, 23), "unknown reply line '-ER") << s.message();

}

TEST(WrongServerTest, HttpAgainstMemcached) {
  auto mc = codec_test::StartMemcached();
  ASSERT_TRUE(mc.ok()) << mc.status().message();
  auto conn = BlockingConn::Connect((*mc)->port());
  ASSERT_TRUE(conn.ok());
  Buffer out;
  http::AppendPost(&out, "127.0.0.1", "/v3/kv/range", "{}");
  ASSERT_TRUE((*conn)->Send(out).ok());
  http::ResponseReader reader;
  Status s = (*conn)->ReadReply(&reader);
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_EQ(s.message(), "peer closed the connection");
  EXPECT_EQ((*conn)->bytes_read(), 0u);
}

}  // namespace
}  // namespace memstand
