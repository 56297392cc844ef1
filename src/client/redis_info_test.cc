#include "client/redis_info.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

// As redis-server 7.0 prints them (CRLF line ends).
constexpr std::string_view kInfo =
    "# Server\r\n"
    "redis_version:7.0.15\r\n"
    "redis_mode:standalone\r\n"
    "os:Linux 6.1.0 x86_64\r\n"
    "executable:/usr/bin/redis-server\r\n"
    "\r\n"
    "# Memory\r\n"
    "used_memory:1089520\r\n"
    "maxmemory_policy:noeviction\r\n"
    "\r\n"
    "# Keyspace\r\n"
    "db0:keys=1,expires=0,avg_ttl=0\r\n";

constexpr std::string_view kCommandStats =
    "# Commandstats\r\n"
    "cmdstat_set:calls=12,usec=3,usec_per_call=0.25,rejected_calls=1,failed_calls=2\r\n"
    "cmdstat_get:calls=1,usec=6,usec_per_call=6.00,rejected_calls=0,failed_calls=0\r\n"
    "cmdstat_client|setname:calls=1,usec=3,usec_per_call=3.00,rejected_calls=0,"
    "failed_calls=0\r\n";

TEST(ParseInfoTest, KeysAndValues) {
  auto info = ParseInfo(kInfo);
  EXPECT_EQ(info.size(), 7u);
  EXPECT_EQ(info["redis_version"], "7.0.15");
  EXPECT_EQ(info["os"], "Linux 6.1.0 x86_64");
  EXPECT_EQ(info["executable"], "/usr/bin/redis-server");  // only the first ':' splits
  EXPECT_EQ(info["used_memory"], "1089520");
  EXPECT_EQ(info["db0"], "keys=1,expires=0,avg_ttl=0");
  EXPECT_EQ(info.count("# Server"), 0u);
}

TEST(ParseInfoTest, LfLineEndsAndMalformedLines) {
  auto info = ParseInfo("# S\nno colon here\n:novalue\nempty:\n\r\nlast:1");
  EXPECT_EQ(info, (std::map<std::string, std::string>{{"empty", ""}, {"last", "1"}}));
  EXPECT_TRUE(ParseInfo("").empty());
}

TEST(ParseCommandStatsTest, Redis7Lines) {
  auto stats = ParseCommandStats(kCommandStats);
  ASSERT_EQ(stats.size(), 3u);
  EXPECT_EQ(stats["set"].calls, 12);
  EXPECT_EQ(stats["set"].rejected_calls, 1);
  EXPECT_EQ(stats["set"].failed_calls, 2);
  EXPECT_DOUBLE_EQ(stats["set"].usec, 3);
  EXPECT_EQ(stats["get"].calls, 1);
  ASSERT_EQ(stats.count("client|setname"), 1u);
  EXPECT_EQ(stats["client|setname"].calls, 1);
}

TEST(ParseCommandStatsTest, OlderServersWithoutRejectedAndFailed) {
  auto stats = ParseCommandStats("cmdstat_ping:calls=5,usec=10,usec_per_call=2.00\n");
  ASSERT_EQ(stats.count("ping"), 1u);
  EXPECT_EQ(stats["ping"].calls, 5);
  EXPECT_EQ(stats["ping"].rejected_calls, 0);
}

TEST(ParseCommandStatsTest, MalformedLinesAreSkipped) {
  const std::string_view text =
      "cmdstat_a:calls=x,usec=1\r\n"
      "cmdstat_b:usec=1\r\n"
      "cmdstat_c:calls=1\r\n"
      "cmdstat_d:calls=1,usec=1,garbage\r\n"
      "cmdstat_e:calls=-1,usec=1\r\n"
      "cmdstat_f:calls=1,usec=1,failed_calls=1.5\r\n"
      "cmdstat_:calls=1,usec=1\r\n"
      "cmdstat_g\r\n"
      "cmdstat_h:\r\n"
      "cmdstat_i:calls=99999999999999999999,usec=1\r\n"
      "cmdstat_j:calls=,usec=1\r\n"
      "used_memory:5\r\n"
      "cmdstat_ok:calls=3,usec=4,new_field=7\r\n";
  auto stats = ParseCommandStats(text);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats["ok"].calls, 3);
}

}  // namespace
}  // namespace memstand
