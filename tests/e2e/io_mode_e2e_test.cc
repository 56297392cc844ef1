// `memstand run --io epoll|uring|auto` end to end, each I/O path alike: the same counts
// as the servers' own, for every protocol, in both loops; batches larger than a socket
// buffer; a server killed mid-run; bad --io values.
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "core/uring.h"
#include "e2e/e2e_util.h"
#include "stand/local_redis.h"

namespace memstand::e2e {
namespace {

void ExpectCrossCheckHolds(const nlohmann::json& j) {
  EXPECT_EQ(j["cross_check"]["available"], true) << j["cross_check"].dump();
  EXPECT_EQ(j["cross_check"]["mismatch"], false) << j["cross_check"].dump();
  for (const auto& row : j["cross_check"]["commands"]) {
    EXPECT_EQ(row["memstand"], row["server"]) << row.dump();
  }
}

class IoModeE2E : public IoModeTest {};

TEST_P(IoModeE2E, CountsEqualInfoCommandstatsOverTwoThreads) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  nlohmann::json j = RunOk({"--target", Url(*redis), "--io", Io(), "--exclusive", "-n",
                            "7777", "-c", "8", "--pipeline", "4", "--threads", "2", "--ratio",
                            "1:3"});
  EXPECT_EQ(j["options"]["io"], Io());
  EXPECT_EQ(j["totals"]["ops"], 7777);
  ExpectCrossCheckHolds(j);
  auto client = Connect(*redis);
  ASSERT_NE(client, nullptr);
  auto info = client->Command({"INFO", "commandstats"});
  ASSERT_TRUE(info.ok());
  auto stats = ParseCommandStats(info->str);
  EXPECT_EQ(stats["set"].calls, CommandOps(j, "SET"));
  EXPECT_EQ(stats["get"].calls, CommandOps(j, "GET"));
}

// 256 KiB values at pipeline 8: a connection's batch (2 MiB) is more than a loopback
// socket takes at once; the send must carry it whole and in order, while the next
// requests gather in the connection's other buffer.
TEST_P(IoModeE2E, BatchesLargerThanTheSocketBufferArriveWhole) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  nlohmann::json j = RunOk({"--target", Url(*redis), "--io", Io(), "--exclusive", "--command",
                            "set __key__ __data__", "--key-pattern", "S", "--key-minimum", "1",
                            "--key-maximum", "200", "-n", "200", "-c", "2", "--pipeline", "8",
                            "-d", "262144"});
  EXPECT_EQ(j["totals"]["ops"], 200);
  EXPECT_EQ(j["totals"]["errors"], 0);
  ExpectCrossCheckHolds(j);
  auto client = Connect(*redis);
  ASSERT_NE(client, nullptr);
  auto dbsize = client->Command({"DBSIZE"});
  ASSERT_TRUE(dbsize.ok());
  EXPECT_EQ(dbsize->integer, 200);
  for (const char* key : {"memtier-1", "memtier-100", "memtier-200"}) {
    auto len = client->Command({"STRLEN", key});
    ASSERT_TRUE(len.ok());
    EXPECT_EQ(len->integer, 262144) << key;
  }
}

TEST_P(IoModeE2E, OpenLoopSendsEveryRequest) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  nlohmann::json j = RunOk({"--target", Url(*redis), "--io", Io(), "--exclusive", "--rate",
                            "4000", "-n", "2000", "-c", "4"});
  EXPECT_EQ(j["totals"]["ops"], 2000);
  EXPECT_EQ(j["options"]["loop"], "open");
  // Each second with sends says their lag.
  int with_lag = 0;
  for (const auto& p : j["series"]["Total"]) {
    if (!p.contains("send_lag_p99_us")) continue;
    ++with_lag;
    EXPECT_LE(p["send_lag_p99_us"].get<double>(), p["send_lag_max_us"].get<double>()) << p.dump();
  }
  EXPECT_GE(with_lag, 1) << j["series"]["Total"].dump();
  ExpectCrossCheckHolds(j);
}

TEST_P(IoModeE2E, OtherProtocolsCountWhatTheServersCount) {
  nlohmann::json mc = RunOk({"--protocol", "memcache", "--io", Io(), "-n", "3000", "-c", "4",
                             "--pipeline", "4", "--key-maximum", "200"});
  EXPECT_EQ(mc["options"]["io"], Io());
  EXPECT_EQ(mc["totals"]["ops"], 3000);
  ExpectCrossCheckHolds(mc);
  nlohmann::json ip = RunOk({"--protocol", "iproto", "--io", Io(), "-n", "4000", "-c", "4",
                             "--pipeline", "16", "--key-maximum", "300"});
  EXPECT_EQ(ip["totals"]["ops"], 4000);
  ExpectCrossCheckHolds(ip);
  nlohmann::json etcd = RunOk({"--protocol", "etcd", "--io", Io(), "-n", "400", "-c", "4",
                               "--command", "put __key__ __data__"});
  EXPECT_EQ(etcd["totals"]["ops"], 400);
  ExpectCrossCheckHolds(etcd);
}

TEST_P(IoModeE2E, ServerKilledMidRunEndsTheRun) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  std::string json = TempDir() + "/run.json";
  auto run = Running::Start({"run", "--target", Url(*redis), "--io", Io(), "--duration", "60s",
                             "--json", json});
  ASSERT_NE(run, nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(redis->pid(), SIGKILL);
  Outcome out = run->Wait(30);
  EXPECT_FALSE(out.timed_out);
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find("FAILED"), std::string::npos) << out.output;
  auto j = ReadJson(json);
  ASSERT_TRUE(j.is_object()) << out.output;
  EXPECT_GT(j["totals"]["ops"].get<int64_t>(), 0);
  EXPECT_GE(j["connection_errors"].get<int64_t>(), 1);
}

INSTANTIATE_TEST_SUITE_P(EpollAndUring, IoModeE2E, ::testing::Values("epoll", "uring"));

// auto: io_uring where the kernel allows it (as it does for this test process), else
// epoll and the reason (--cluster too: cluster_e2e_test runs it over both).
TEST(IoModeE2E, AutoChoosesUringWhereTheKernelAllowsIt) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  nlohmann::json j = RunOk({"--target", Url(*redis), "--io", "auto", "-n", "500", "-c", "2"});
  EXPECT_EQ(j["totals"]["ops"], 500);
  Result<std::unique_ptr<Uring>> here = Uring::Create(1);
  if (here.ok()) {
    EXPECT_EQ(j["options"]["io"], "uring") << j["options"].dump();
    EXPECT_FALSE(j["options"].contains("io_fallback"));
  } else {
    EXPECT_EQ(j["options"]["io"], "epoll") << j["options"].dump();
    EXPECT_NE(j["options"].value("io_fallback", "").find(here.status().message()),
              std::string::npos) << j["options"].dump();
  }
}

TEST(IoModeE2E, BadIoIsAUsageError) {
  Outcome out = RunMemstand({"run", "--target", "redis://127.0.0.1:1", "--io", "kqueue"});
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find("--io: takes epoll, uring or auto, got 'kqueue'"), std::string::npos)
      << out.output;
}

}  // namespace
}  // namespace memstand::e2e
