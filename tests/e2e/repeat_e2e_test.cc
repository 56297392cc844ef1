// memstand run --runs: the real binary against real redis-server instances.
#include <signal.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "e2e/e2e_util.h"
#include "stand/local_redis.h"

namespace memstand::e2e {
namespace {

int64_t ServerCalls(const LocalRedis& redis, const std::string& command) {
  RedisClientOptions o;
  o.host = redis.host();
  o.port = redis.port();
  auto c = RedisClient::Connect(o);
  if (!c.ok()) return -1;
  auto info = (*c)->Command({"INFO", "commandstats"});
  if (!info.ok()) return -1;
  return ParseCommandStats(info->str)[command].calls;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(RepeatE2E, ThreeRunsAgainstOneServer) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  std::string json = TempDir() + "/runs.json";
  Outcome out = RunMemstand({"run", "--target", Url(*redis), "--exclusive", "-n", "2000", "-c",
                             "4", "--runs", "3", "--json", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_EQ(Count(out.output, "=== run "), 3u) << out.output;
  EXPECT_NE(out.output.find("Total    ops/s"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("(N=3)"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("failed runs: 0 of 3"), std::string::npos) << out.output;
  EXPECT_EQ(out.output.find('\r'), std::string::npos) << "a progress line on a file";
  auto j = ReadJson(json);
  ASSERT_TRUE(j.is_object()) << out.output;
  ASSERT_EQ(j["runs"].size(), 3u);
  for (const auto& run : j["runs"]) EXPECT_EQ(run["totals"]["ops"], 2000) << run.dump();
  const auto& summary = j["summary"];
  EXPECT_EQ(summary["n"], 3);
  EXPECT_EQ(summary["failed"], 0);
  for (const char* key : {"ops_per_sec", "p50_us", "p99_us", "mean_us", "max_us"}) {
    const auto& range = summary["figures"]["Total"][key];
    EXPECT_EQ(range["n"], 3) << key;
    EXPECT_LE(range["min"].get<double>(), range["median"].get<double>()) << key;
    EXPECT_LE(range["median"].get<double>(), range["max"].get<double>()) << key;
  }
  EXPECT_EQ(summary["figures"]["client"]["cpu_us_per_request"]["n"], 3);
  // Three runs of 2000 requests went to the same server.
  EXPECT_EQ(ServerCalls(*redis, "set") + ServerCalls(*redis, "get"), 6000);
}

TEST(RepeatE2E, ServerGoneAfterTheFirstRunFailsTheSeries) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  std::string json = TempDir() + "/runs.json";
  auto run = Running::Start({"run", "--target", Url(*redis), "--duration", "1s", "--runs", "3",
                             "-c", "2", "--connect-timeout", "1s", "--json", json});
  ASSERT_NE(run, nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(redis->pid(), SIGKILL);  // during run 2 or between runs: run 3 cannot connect
  Outcome out = run->Wait(60);
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find("failed runs: "), std::string::npos) << out.output;
  auto j = ReadJson(json);
  ASSERT_TRUE(j.is_object()) << out.output;
  EXPECT_EQ(j["runs"].size(), 3u);
  const auto& s = j["summary"];
  EXPECT_GE(s["failed"].get<int>(), 1);
  EXPECT_EQ(s["n"].get<int>() + s["failed"].get<int>(), 3);
  EXPECT_EQ(s["failures"].size(), s["failed"].get<size_t>());
  EXPECT_NE(out.output.find("run 3: FAILED"), std::string::npos) << out.output;
  EXPECT_EQ(j["exit_code"], 1);
}

TEST(RepeatE2E, SigintStopsTheSeriesAndReportsWhatRan) {
  std::string json = TempDir() + "/runs.json";
  auto run = Running::Start({"run", "--duration", "1s", "--runs", "5", "-q", "--json", json});
  ASSERT_NE(run, nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  kill(run->pid(), SIGINT);
  Outcome out = run->Wait(30);
  EXPECT_EQ(out.exit_code, 130) << out.output;
  EXPECT_NE(out.output.find("INTERRUPTED"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("of 5 runs made"), std::string::npos) << out.output;
  auto j = ReadJson(json);
  ASSERT_TRUE(j.is_object()) << out.output;
  EXPECT_TRUE(j["interrupted"].get<bool>());
  EXPECT_LT(j["runs"].size(), 5u);
  const auto& s = j["summary"];
  EXPECT_EQ(s["runs"], j["runs"].size());
  EXPECT_EQ(s["n"].get<int>() + s["interrupted"].get<int>(), s["runs"].get<int>());
  pid_t pid = j["runs"][0]["server"]["pid"].get<pid_t>();
  EXPECT_FALSE(ProcessExists(pid)) << "redis-server " << pid << " survived SIGINT";
}

TEST(RepeatE2E, RunsBelowOneIsAUsageError) {
  for (const char* bad : {"0", "-1", "x"}) {
    Outcome out = RunMemstand({"run", "--runs", bad, "-n", "10"}, 20);
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find("--runs"), std::string::npos) << out.output;
  }
}

}  // namespace
}  // namespace memstand::e2e
