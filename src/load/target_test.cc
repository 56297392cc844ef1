#include "load/target.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(RedisUrl, Full) {
  auto t = ParseRedisUrl("redis://bench:s3cret@10.1.2.3:7000/5");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->host, "10.1.2.3");
  EXPECT_EQ(t->port, 7000);
  EXPECT_EQ(t->user, "bench");
  EXPECT_EQ(t->password, "s3cret");
  EXPECT_EQ(t->db, 5);
  EXPECT_EQ(t->Display(), "redis://bench@10.1.2.3:7000/5");
}

TEST(RedisUrl, DefaultsAndForms) {
  auto t = ParseRedisUrl("redis://localhost");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->port, 6379);
  EXPECT_EQ(t->db, 0);
  t = ParseRedisUrl("redis://:pw@h:1/");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->user, "");
  EXPECT_EQ(t->password, "pw");
  t = ParseRedisUrl("redis://[::1]:6380");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->host, "::1");
  EXPECT_EQ(t->port, 6380);
  EXPECT_EQ(t->Display(), "redis://[::1]:6380");
}

TEST(RedisUrl, Errors) {
  for (const char* bad : {"http://h:1", "redis://", "redis://h:0", "redis://h:70000",
                          "redis://h:12x", "redis://h:1/abc", "redis://[::1:5", "h:6379"}) {
    auto t = ParseRedisUrl(bad);
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_EQ(t.status().code(), Status::Code::kInvalidArgument);
    EXPECT_NE(t.status().message().find(bad), std::string::npos) << t.status().message();
  }
}

TEST(TargetUrl, OtherSchemes) {
  auto t = ParseTargetUrl("memcache://10.0.0.1");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->scheme, "memcache");
  EXPECT_EQ(t->port, 11211);
  EXPECT_EQ(t->Display(), "memcache://10.0.0.1:11211");
  t = ParseTargetUrl("tarantool://bench:secret@h:3302");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->user, "bench");
  EXPECT_EQ(t->password, "secret");
  EXPECT_EQ(t->Display(), "tarantool://bench@h:3302");
  t = ParseTargetUrl("tarantool://guest@h");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->user, "guest");
  EXPECT_EQ(t->port, 3301);
  t = ParseTargetUrl("etcd://h:2379");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->scheme, "etcd");
  EXPECT_FALSE(ParseTargetUrl("etcd://u:p@h:2379").ok());
  EXPECT_FALSE(ParseTargetUrl("memcache://h:1/3").ok());
  EXPECT_FALSE(ParseTargetUrl("http://h:1").ok());
  EXPECT_FALSE(ParseRedisUrl("memcache://h:1").ok());  // the redis-only parser stays strict
}

TEST(TargetUrl, ErrorsNeverQuoteThePassword) {
  for (const char* bad :
       {"redis://user:S3cretPW@127.0.0.1:1:bad", "redis://S3cretPW@h:0",
        "memcache://user:S3cretPW@127.0.0.1:1", "etcd://u:S3cretPW@h:1",
        "tarantool://user:S3cretPW@127.0.0.1:1:bad", "redis://u:S3cretPW@h:1/x"}) {
    auto t = ParseTargetUrl(bad);
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_EQ(t.status().message().find("S3cretPW"), std::string::npos) << t.status().message();
    EXPECT_NE(t.status().message().find("***@"), std::string::npos) << t.status().message();
  }
}

}  // namespace
}  // namespace memstand
