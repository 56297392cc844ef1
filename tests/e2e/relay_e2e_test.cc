// `memstand relay` as a binary: in front of a real redis-server with memstand's own load
// through it, and its bad flags.
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "core/socket.h"
#include "e2e/e2e_util.h"

namespace memstand::e2e {
namespace {

TEST(RelayE2E, RelaysMemstandRunToRedisWithEveryCommandCounted) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  auto port = PickFreePort();
  ASSERT_TRUE(port.ok());
  const std::string link =
      "127.0.0.1:" + std::to_string(*port) + "=127.0.0.1:" + std::to_string(redis->port());
  auto relay = Running::Start({"relay", "--link", link, "--delay", "0"});
  ASSERT_TRUE(relay->WaitForOutput("relaying", 10)) << relay->OutputSoFar();
  Outcome run = RunMemstand({"run", "--target", "redis://127.0.0.1:" + std::to_string(*port),
                             "-n", "2000", "-c", "4", "--ratio", "1:3", "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  kill(relay->pid(), SIGTERM);
  Outcome out = relay->Wait(10);
  EXPECT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("connections, 0 refused"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("client->target"), std::string::npos) << out.output;

  RedisClientOptions o;
  o.host = redis->host();
  o.port = redis->port();
  auto client = RedisClient::Connect(o);
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto info = (*client)->Command({"INFO", "commandstats"});
  ASSERT_TRUE(info.ok());
  auto stats = ParseCommandStats(info->str);
  EXPECT_EQ(stats["set"].calls + stats["get"].calls, 2000);
  EXPECT_EQ(stats["set"].calls, 500);
}

TEST(RelayE2E, BadFlagsExit2WithTheReason) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"relay"}, "--link is required"},
      {{"relay", "--link", "127.0.0.1:7000"}, "bad link '127.0.0.1:7000'"},
      {{"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--delay", "5xs"}, "--delay: bad duration"},
      {{"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--delay-back", "2d"}, "--delay-back: bad duration"},
      {{"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--mode", "serial"}, "bad mode 'serial'"},
      {{"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--rate", "100"}, "--rate: bad rate"},
      {{"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--jitter", "x"}, "--jitter"},
      {{"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--duration", "25h"}, "at most 24h"},
  };
  for (const auto& [args, message] : cases) {
    Outcome out = RunMemstand(args, 20);
    EXPECT_EQ(out.exit_code, 2) << args.back() << ": " << out.output;
    EXPECT_NE(out.output.find(message), std::string::npos) << out.output;
  }
}

TEST(RelayE2E, ABusyListenAddressExits2) {
  auto taken = ListenTcp("127.0.0.1", 0);
  ASSERT_TRUE(taken.ok());
  const std::string link = "127.0.0.1:" + std::to_string(*LocalPort(*taken)) + "=127.0.0.1:1";
  Outcome out = RunMemstand({"relay", "--link", link, "--duration", "1s"}, 20);
  close(*taken);
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find("link 1: bind"), std::string::npos) << out.output;
}

TEST(RelayE2E, DurationStopsItWithTheTable) {
  Outcome out = RunMemstand({"relay", "--link", "127.0.0.1:0=127.0.0.1:1", "--delay", "250us",
                             "--duration", "100ms"}, 20);
  EXPECT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("delay 250 us, back 250 us, pipelined"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("0 connections, 0 refused"), std::string::npos) << out.output;
}

}  // namespace
}  // namespace memstand::e2e
