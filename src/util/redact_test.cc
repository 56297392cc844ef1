#include "util/redact.h"

#include <utility>

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(RedactUrl, HidesThePasswordKeepsTheRest) {
  EXPECT_EQ(RedactUrl("redis://user:S3cretPW@127.0.0.1:1:bad"), "redis://user:***@127.0.0.1:1:bad");
  EXPECT_EQ(RedactUrl("redis://:pw@h:1/2"), "redis://:***@h:1/2");
  EXPECT_EQ(RedactUrl("redis://pw@h"), "redis://***@h");
  // A password holding '@', ':' and '/': up to the last '@', as the parser reads it.
  EXPECT_EQ(RedactUrl("tarantool://u:a@b:c/d@h:3301"), "tarantool://u:***@h:3301");
  EXPECT_EQ(RedactUrl("memcache://h:11211"), "memcache://h:11211");
  EXPECT_EQ(RedactUrl("no url@all"), "no url@all");
  EXPECT_EQ(RedactUrl("redis://[user:pass@]host:port"), "redis://[user:pass@]host:port");
  EXPECT_EQ(RedactUrl("redis://[u:pw@h:1"), "redis://[u:***@h:1");
}

// Issue #25 row 2: the same rule when the scheme is left out or mistyped, or the host.
TEST(RedactUrl, SchemeOrNotTheSameRule) {
  const std::pair<const char*, const char*> cases[] = {
      {"default:S3cret@127.0.0.1:6379", "default:***@127.0.0.1:6379"},
      {"redis//u:S3cret@127.0.0.1:6379", "redis//u:***@127.0.0.1:6379"},
      {"redis:/u:S3cret@h", "redis:***@h"},
      {"redis://default:S3cret", "redis://default:***"},
      {"redis://default:S3cret/0", "redis://default:***/0"},
      {"u:a@b:c@h:1", "u:***@h:1"},
      // Not credentials: a port, an IPv6 literal, user@host, a cluster node's ip:port@cport.
      {"redis://h:6379", "redis://h:6379"},
      {"redis://h:6379/2", "redis://h:6379/2"},
      {"redis://[::1]:6379", "redis://[::1]:6379"},
      {"redis://h", "redis://h"},
      {"bob@example.com", "bob@example.com"},
      {"127.0.0.1:30001@40001", "127.0.0.1:30001@40001"},
      {"127.0.0.1:6379", "127.0.0.1:6379"},
      {"redis+sentinel://h:26379,h:26380/m", "redis+sentinel://h:26379,h:26380/m"},
      {"redis+sentinel://u:S3cret@h:26379,h:26380/m", "redis+sentinel://u:***@h:26379,h:26380/m"},
  };
  for (const auto& [in, want] : cases) EXPECT_EQ(RedactUrl(in), want) << in;
}

TEST(RedactSecrets, SchemeLessTargetsInText) {
  EXPECT_EQ(RedactSecrets("invalid target 'default:Pr0be@127.0.0.1:16380': unknown scheme"),
            "invalid target 'default:***@127.0.0.1:16380': unknown scheme");
  EXPECT_EQ(RedactSecrets("--target redis//u:Pr0be@h:1 given"), "--target redis//u:***@h:1 given");
  EXPECT_EQ(RedactSecrets("node 127.0.0.1:30001@40001 master, mail bob@example.com at 10:00"),
            "node 127.0.0.1:30001@40001 master, mail bob@example.com at 10:00");
  // In free text "scheme://word:word" is usage, not a host-less credential (the argv's
  // own "redis://default:PASS" is registered, and so hidden, by RegisterArgvSecrets).
  EXPECT_EQ(RedactSecrets("expected memcache://host:port, etcd+tls://host:port)"),
            "expected memcache://host:port, etcd+tls://host:port)");
}

TEST(RedactSecrets, UrlsInTextAndRegisteredSecrets) {
  EXPECT_EQ(RedactSecrets("invalid target 'etcd://u:pw@h:1': bad; see redis://x:y@z"),
            "invalid target 'etcd://u:***@h:1': bad; see redis://x:***@z");
  RegisterSecret("Hunter2Hunter2");
  RegisterSecret("ab");  // too short to match in free text
  EXPECT_EQ(RedactSecrets("AUTH Hunter2Hunter2 failed, ab"), "AUTH *** failed, ab");
  EXPECT_EQ(RedactSecrets("Hunter2Hunter2Hunter2Hunter2"), "******");
}

TEST(RedactSecrets, ArgvCredentials) {
  const char* argv[] = {"memstand", "run",          "--target", "redis://u:p w@h:1",
                        "-a",       "bob:Pa55word", "-aXyzzy1", "--authenticate=Plugh22"};
  RegisterArgvSecrets(8, argv);
  EXPECT_EQ(RedactSecrets("not expected: redis://u:p w@h:1"), "not expected: redis://u:***@h:1");
  EXPECT_EQ(RedactSecrets("Pa55word Xyzzy1 Plugh22"), "*** *** ***");
}

TEST(RedactSecrets, ArgvSchemeLessTargetsAndSecretSettings) {
  const char* argv[] = {"memstand", "memtier", "-u", "default:Zq9MemtierPw@127.0.0.1:6380",
                        "--target", "redis://default:Zq9NoHostPw",
                        "--config", "redis requirepass=Zq9ConfigPw maxmemory=8mb",
                        "--set", "masterauth=Zq9SetPw", "--set=requirepass=Zq9SetEqPw",
                        "--key-prefix", "user@"};
  RegisterArgvSecrets(13, argv);
  EXPECT_EQ(RedactSecrets("Zq9MemtierPw Zq9NoHostPw Zq9ConfigPw Zq9SetPw Zq9SetEqPw"),
            "*** *** *** *** ***");
  EXPECT_EQ(RedactSecrets("maxmemory 8mb, user@"), "maxmemory 8mb, user@");  // not secrets
}

TEST(MaskArgvSecrets, OverwritesThePasswordsInPlace) {
  std::string args[] = {"memstand", "--target", "redis://u:pw1@h:1", "-a", "bob:pw2",
                        "-apw3", "--authenticate=pw4", "--user", "u"};
  char* argv[9];
  for (int i = 0; i < 9; ++i) argv[i] = args[i].data();
  MaskArgvSecrets(9, argv);
  EXPECT_STREQ(argv[2], "redis://u:xxx@h:1");
  EXPECT_STREQ(argv[4], "xxxxxxx");
  EXPECT_STREQ(argv[5], "-axxx");
  EXPECT_STREQ(argv[6], "--authenticate=xxx");
  EXPECT_STREQ(argv[8], "u");
}

TEST(MaskArgvSecrets, SchemeLessTargetsAndSecretSettings) {
  std::string args[] = {"memstand", "default:pw1@h:1", "redis://u:pw2", "redis requirepass=pw3 maxmemory=8mb",
                        "--set=masterauth=pw4", "maxmemory=1mb"};
  char* argv[6];
  for (int i = 0; i < 6; ++i) argv[i] = args[i].data();
  MaskArgvSecrets(6, argv);
  EXPECT_STREQ(argv[1], "default:xxx@h:1");
  EXPECT_STREQ(argv[2], "redis://u:xxx");
  EXPECT_STREQ(argv[3], "redis requirepass=xxx maxmemory=8mb");
  EXPECT_STREQ(argv[4], "--set=masterauth=xxx");
  EXPECT_STREQ(argv[5], "maxmemory=1mb");
}

TEST(Abbreviate, CutsLongInputAndSaysHowLong) {
  EXPECT_EQ(Abbreviate("short"), "short");
  std::string long_text(120000, 'x');
  std::string cut = Abbreviate(long_text);
  EXPECT_EQ(cut, std::string(80, 'x') + "... (120000 bytes)");
  // Not inside a UTF-8 sequence.
  EXPECT_EQ(Abbreviate("ab\xc3\xa9zz", 3), "ab... (6 bytes)");
}

}  // namespace
}  // namespace memstand
