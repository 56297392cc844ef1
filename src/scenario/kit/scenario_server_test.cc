// ServerUnderTest against real servers: what a scenario says when its server died.
#include "scenario/kit/scenario_server.h"

#include <signal.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "core/tls.h"

namespace memstand {
namespace {

// A request that failed because the server was killed reads as the server's death
// ("tarantool-memtx (pid N) died: killed by signal 9"), not as a TLS port's reset.
void ExpectDeathNamed(const ServerConfig& config) {
  auto server = ServerUnderTest::Start(config, nullptr);
  ASSERT_TRUE(server.ok()) << server.status().message();
  const std::string reset = std::string("read: Connection reset by peer; ") + kExpectsTlsHint;
  EXPECT_EQ((*server)->Died(), "");
  EXPECT_EQ((*server)->ExplainFailure(reset), reset);  // alive: the failure as it was
  const pid_t pid = (*server)->pid();
  ASSERT_GT(pid, 1);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  std::string died;
  for (int i = 0; i < 500 && died.empty(); ++i) {  // at most 5 s
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    died = (*server)->Died();
  }
  EXPECT_EQ(died, config.name + " (pid " + std::to_string(pid) + ") died: killed by signal 9 (SIGKILL)");
  const std::string said = (*server)->ExplainFailure(reset);
  EXPECT_EQ(said, died + " (read: Connection reset by peer)");
  EXPECT_EQ(said.find("TLS"), std::string::npos) << said;
}

TEST(ServerUnderTestDeath, AKilledRedisIsNamedWithItsSignal) {
  ExpectDeathNamed(ServerConfig{"redis-allkeys-lru", SystemKind::kRedis, {}, "memtx"});
}

TEST(ServerUnderTestDeath, AKilledTarantoolIsNamedWithItsSignal) {
  if (!SystemInstalled(SystemKind::kTarantool)) GTEST_SKIP() << "tarantool is not installed";
  ExpectDeathNamed(ServerConfig{"tarantool-memtx", SystemKind::kTarantool, {}, "memtx"});
}

}  // namespace
}  // namespace memstand
