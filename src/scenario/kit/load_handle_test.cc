// LoadHandle against a real redis-server: a background load stops when asked, not as an
// interrupted run, and a signal still interrupts it.
#include "scenario/kit/load_handle.h"

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

namespace memstand {
namespace {

std::unique_ptr<ServerUnderTest> StartRedis() {
  ServerConfig c;
  c.name = "redis";
  c.system = SystemKind::kRedis;
  auto server = ServerUnderTest::Start(c, nullptr);
  EXPECT_TRUE(server.ok()) << server.status().message();
  return server.ok() ? std::move(*server) : nullptr;
}

// Writes at 2000/s for far longer than any test waits.
LoadStepOptions Writes(const std::atomic<bool>* interrupt) {
  LoadStepOptions o;
  o.key_prefix = "bg:";
  o.last_key = 999;
  o.requests = 100'000'000;
  o.value.min_size = o.value.max_size = 16;
  o.pipeline = 1;
  o.rate = 2000;
  o.interrupt = interrupt;
  return o;
}

TEST(LoadHandleTest, StopEndsTheLoadWithoutCallingItInterrupted) {
  auto server = StartRedis();
  ASSERT_NE(server, nullptr);
  LoadHandle load;
  EXPECT_FALSE(load.result().ok());  // not run yet
  load.Start(*server, Writes(nullptr));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const Result<LoadStepResult>& done = load.Stop();
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_TRUE(done->failure.ok()) << done->failure.message();
  EXPECT_FALSE(done->interrupted);
  EXPECT_GT(done->successful, 0u);
  EXPECT_LT(done->attempted, 100'000u);  // stopped, not run to its requests
  auto counters = server->Read();
  ASSERT_TRUE(counters.ok()) << counters.status().message();
  EXPECT_GT(counters->present, 0);
  EXPECT_EQ(&load.Stop(), &done);  // a second Stop: the same result
}

TEST(LoadHandleTest, AnInterruptStillEndsItInterrupted) {
  auto server = StartRedis();
  ASSERT_NE(server, nullptr);
  std::atomic<bool> interrupt{false};
  LoadHandle load;
  load.Start(*server, Writes(&interrupt));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  interrupt = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the engine sees it first
  const Result<LoadStepResult>& done = load.Stop();
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_TRUE(done->interrupted);
}

}  // namespace
}  // namespace memstand
