#include "load/target.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/socket.h"
#include "util/redact.h"

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
    // The input as shown, passwords hidden: "redis://h:12x" could be a user "h" whose
    // password is "12x" with the host left out, so it shows as "redis://h:***".
    EXPECT_NE(t.status().message().find(RedactUrl(bad)), std::string::npos) << t.status().message();
  }
  EXPECT_EQ(RedactUrl("redis://h:12x"), "redis://h:***");
  EXPECT_EQ(RedactUrl("redis://h:70000"), "redis://h:70000");
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

TEST(TargetUrl, RedissIsRespOverTls) {
  auto t = ParseTargetUrl("rediss://u:pw@cache.example:6380/2");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->scheme, "redis");
  EXPECT_TRUE(t->tls);
  EXPECT_EQ(t->host, "cache.example");
  EXPECT_EQ(t->port, 6380);
  EXPECT_EQ(t->db, 2);
  EXPECT_EQ(t->Display(), "rediss://u@cache.example:6380/2");
  t = ParseTargetUrl("rediss://[::1]");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->port, 6379);
  EXPECT_EQ(t->Display(), "rediss://[::1]:6379");
  EXPECT_FALSE(ParseTargetUrl("redis://h:1")->tls);
  auto unix_tls = ParseTargetUrl("rediss+unix:///run/r.sock");
  ASSERT_FALSE(unix_tls.ok());
  EXPECT_NE(unix_tls.status().message().find("not Unix sockets"), std::string::npos);
}

TEST(TargetUrl, MemcacheAndEtcdOverTlsArePlusTls) {
  auto t = ParseTargetUrl("memcache+tls://127.0.0.1:11212");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->scheme, "memcache");
  EXPECT_TRUE(t->tls);
  EXPECT_EQ(t->port, 11212);
  EXPECT_EQ(t->Display(), "memcache+tls://127.0.0.1:11212");
  t = ParseTargetUrl("etcd+tls://localhost");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->scheme, "etcd");
  EXPECT_TRUE(t->tls);
  EXPECT_EQ(t->port, 2379);
  EXPECT_EQ(t->Display(), "etcd+tls://localhost:2379");
  EXPECT_FALSE(ParseTargetUrl("memcache://h:1")->tls);
  EXPECT_FALSE(ParseTargetUrl("etcd+tls://u:p@h:1").ok());
  EXPECT_FALSE(ParseTargetUrl("tarantool+tls://h:1").ok());
  auto unix_tls = ParseTargetUrl("memcache+tls+unix:///run/m.sock");
  ASSERT_FALSE(unix_tls.ok());
  EXPECT_NE(unix_tls.status().message().find("not Unix sockets"), std::string::npos);
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

TEST(UnixUrl, Forms) {
  auto t = ParseTargetUrl("unix:///run/redis/redis.sock");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->scheme, "redis");
  EXPECT_EQ(t->unix_path, "/run/redis/redis.sock");
  EXPECT_EQ(t->Display(), "redis+unix:///run/redis/redis.sock");
  EXPECT_EQ(t->Address(), "/run/redis/redis.sock");
  t = ParseTargetUrl("redis+unix://bench:s3cret@/tmp/r.sock?db=3");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->user, "bench");
  EXPECT_EQ(t->password, "s3cret");
  EXPECT_EQ(t->db, 3);
  EXPECT_EQ(t->unix_path, "/tmp/r.sock");
  EXPECT_EQ(t->Display(), "redis+unix://bench@/tmp/r.sock?db=3");
  t = ParseTargetUrl("redis+unix://pw@/tmp/r.sock");  // a bare credential is the password
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->user, "");
  EXPECT_EQ(t->password, "pw");
  t = ParseTargetUrl("memcache+unix:///tmp/mc.sock");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->scheme, "memcache");
  EXPECT_EQ(t->unix_path, "/tmp/mc.sock");
  EXPECT_EQ(t->Display(), "memcache+unix:///tmp/mc.sock");
  const std::string longest = "/" + std::string(kMaxUnixPath - 1, 'a');
  t = ParseTargetUrl("unix://" + longest);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->unix_path.size(), kMaxUnixPath);
  EXPECT_TRUE(ParseTargetUrl("redis://h:1").ok());  // TCP targets have no path
  EXPECT_EQ(ParseTargetUrl("redis://h:1")->unix_path, "");
}

// A URL that must not parse, and a part of what its message must say.
struct BadUrl {
  std::string url;
  const char* says;
};

// `url` does not parse: InvalidArgument, its message saying `says`.
void ExpectRefused(const std::string& url, const char* says) {
  auto t = ParseTargetUrl(url);
  ASSERT_FALSE(t.ok()) << url;
  EXPECT_EQ(t.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(t.status().message().find(says), std::string::npos) << t.status().message();
}

TEST(UnixUrl, Errors) {
  const std::string too_long = "unix:///" + std::string(kMaxUnixPath, 'a');
  const BadUrl kBad[] = {
      {"unix://", "missing the socket's path"},
      {"unix://localhost/tmp/r.sock", "no host ('localhost')"},
      {"redis+unix://h:6379/tmp/r.sock", "no host ('h:6379')"},
      {"unix://relative.sock", "no host"},
      {"unix:///tmp/dir/", "names a directory"},
      {"unix:///", "names a directory"},
      {too_long, "at most 107"},
      {"unix:///tmp/r.sock?db=x", "db=N"},
      {"unix:///tmp/r.sock?select=1", "db=N"},
      {"memcache+unix://u:p@/tmp/m.sock", "takes no user or password"},
      {"memcache+unix:///tmp/m.sock?db=1", "takes no query"},
      {"tarantool+unix:///tmp/t.sock", "Redis (RESP) and memcached"},
      {"etcd+unix:///tmp/e.sock", "Redis (RESP) and memcached"},
      {"unix:/tmp/r.sock", "unknown scheme"},
  };
  for (const auto& bad : kBad) ExpectRefused(bad.url, bad.says);
  auto t = ParseTargetUrl("redis+unix://u:S3cretPW@/tmp/r.sock?db=x");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message().find("S3cretPW"), std::string::npos) << t.status().message();
}

TEST(SentinelUrl, Forms) {
  auto t = ParseTargetUrl("redis+sentinel://bench:s3cret@10.0.0.1:26380,10.0.0.2,[::1]:26381/mymaster");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_TRUE(t->sentinel());
  EXPECT_EQ(t->scheme, "redis");
  EXPECT_FALSE(t->tls);
  EXPECT_EQ(t->master_name, "mymaster");
  const std::vector<std::pair<std::string, int>> want = {{"10.0.0.1", 26380}, {"10.0.0.2", 26379}, {"::1", 26381}};
  EXPECT_EQ(t->sentinels, want);
  EXPECT_EQ(t->user, "bench");  // the data nodes' credentials, as redis-py's
  EXPECT_EQ(t->password, "s3cret");
  EXPECT_EQ(t->db, 0);
  EXPECT_EQ(t->Display(), "redis+sentinel://bench@10.0.0.1:26380,10.0.0.2:26379,[::1]:26381/mymaster");
  t = ParseTargetUrl("rediss+sentinel://pw@h:1/cache?db=4");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_TRUE(t->tls);
  EXPECT_EQ(t->password, "pw");
  EXPECT_EQ(t->user, "");
  EXPECT_EQ(t->db, 4);
  EXPECT_EQ(t->Display(), "rediss+sentinel://h:1/cache?db=4");
  EXPECT_FALSE(ParseTargetUrl("redis://h:1")->sentinel());
}

TEST(SentinelUrl, Errors) {
  const BadUrl kBad[] = {
      {"redis+sentinel://", "no Sentinel"},
      {"redis+sentinel:///mymaster", "no Sentinel"},
      {"redis+sentinel://h:26379", "missing the master name"},
      {"redis+sentinel://h:26379/", "missing the master name"},
      {"redis+sentinel://h:26379/?db=1", "missing the master name"},
      {"redis+sentinel://h:0/m", "port must be 1..65535"},
      {"redis+sentinel://h:1,h:70000/m", "port must be 1..65535"},
      {"redis+sentinel://h:1,h:x/m", "port must be 1..65535"},
      {"redis+sentinel://h:1,,h:2/m", "an empty Sentinel"},
      {"redis+sentinel://h:1,/m", "an empty Sentinel"},
      {"redis+sentinel://:1/m", "missing host"},
      {"redis+sentinel://[::1/m", "unbalanced ["},
      {"redis+sentinel://h:1/m/2", "one path segment"},
      {"redis+sentinel://h:1/m?db=x", "db=N"},
      {"redis+sentinel://h:1/m?select=1", "db=N"},
  };
  for (const auto& bad : kBad) {
    ExpectRefused(bad.url, bad.says);
    EXPECT_NE(ParseTargetUrl(bad.url).status().message().find(bad.url), std::string::npos) << bad.url;
  }
  auto t = ParseTargetUrl("redis+sentinel://u:S3cretPW@h:1,h:0/m");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message().find("S3cretPW"), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find("redis+sentinel://u:***@h:1,h:0/m"), std::string::npos)
      << t.status().message();
}

TEST(UnixPath, Checked) {
  EXPECT_TRUE(CheckUnixPath("/tmp/r.sock").ok());
  EXPECT_FALSE(CheckUnixPath("").ok());
  EXPECT_NE(CheckUnixPath("r.sock").message().find("absolute"), std::string::npos);
  EXPECT_NE(CheckUnixPath("/tmp/").message().find("directory"), std::string::npos);
  EXPECT_NE(CheckUnixPath("/" + std::string(kMaxUnixPath, 'a')).message().find("108 bytes"),
            std::string::npos);
}

// A missing socket file is an I/O error naming the path (exit 1 in the CLI), not a
// bad argument; the TCP form keeps naming host:port.
TEST(ConnectNode, ErrorsNameTheAddress) {
  RedisTarget t;
  t.unix_path = "/nonexistent-memstand-dir/r.sock";
  auto fd = ConnectNode(t, t.host, t.port, 1000, true);
  ASSERT_FALSE(fd.ok());
  EXPECT_EQ(fd.status().code(), Status::Code::kIoError);
  EXPECT_NE(fd.status().message().find("connecting to Unix socket: /nonexistent-memstand-dir/r.sock"),
            std::string::npos) << fd.status().message();
  EXPECT_NE(fd.status().message().find("No such file"), std::string::npos) << fd.status().message();
}

TEST(RwPoolUrl, Forms) {
  auto t = ParseTargetUrl("tarantool+rw://bench:s3cret@10.0.0.1:3302,10.0.0.2,[::1]:3303");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_TRUE(t->rw_pool());
  EXPECT_TRUE(t->follows_primary());
  EXPECT_FALSE(t->sentinel());
  EXPECT_EQ(t->scheme, "tarantool");
  const std::vector<std::pair<std::string, int>> want = {{"10.0.0.1", 3302}, {"10.0.0.2", 3301}, {"::1", 3303}};
  EXPECT_EQ(t->rw_members, want);
  EXPECT_EQ(t->user, "bench");
  EXPECT_EQ(t->password, "s3cret");
  EXPECT_EQ(t->Display(), "tarantool+rw://bench@10.0.0.1:3302,10.0.0.2:3301,[::1]:3303");
  t = ParseTargetUrl("tarantool+rw://admin@h:1");  // one word alone is the user, as tarantool://
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->user, "admin");
  EXPECT_EQ(t->password, "");
  EXPECT_EQ(t->rw_members.size(), 1u);
  EXPECT_FALSE(ParseTargetUrl("tarantool://h:1")->rw_pool());
  EXPECT_FALSE(ParseTargetUrl("tarantool://h:1")->follows_primary());
  EXPECT_TRUE(ParseTargetUrl("redis+sentinel://h:1/m")->follows_primary());
}

TEST(RwPoolUrl, Errors) {
  const BadUrl kBad[] = {
      {"tarantool+rw://", "no member"},
      {"tarantool+rw://u@", "no member"},
      {"tarantool+rw://h:0", "port must be 1..65535"},
      {"tarantool+rw://h:1,h:70000", "port must be 1..65535"},
      {"tarantool+rw://h:1,h:x", "port must be 1..65535"},
      {"tarantool+rw://h:1,,h:2", "an empty member"},
      {"tarantool+rw://h:1,", "an empty member"},
      {"tarantool+rw://,h:1", "an empty member"},
      {"tarantool+rw://:1", "missing host"},
      {"tarantool+rw://[::1:3301", "unbalanced ["},
      {"tarantool+rw://h:1/space", "no path or query"},
      {"tarantool+rw://h:1?x=1", "no path or query"},
  };
  for (const auto& bad : kBad) {
    ExpectRefused(bad.url, bad.says);
    // The URL is quoted redacted: util/redact.h takes "h:1,h:2" (no '@', a port that is
    // not a number) for user:password and hides it, so only the scheme is sure to show.
    EXPECT_NE(ParseTargetUrl(bad.url).status().message().find("invalid target 'tarantool+rw://"), std::string::npos)
        << bad.url;
  }
  auto t = ParseTargetUrl("tarantool+rw://u:S3cretPW@h:1,h:0");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message().find("S3cretPW"), std::string::npos) << t.status().message();
}

}  // namespace
}  // namespace memstand
