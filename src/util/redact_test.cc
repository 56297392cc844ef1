#include "util/redact.h"

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
