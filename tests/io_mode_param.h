// The engine's tests that run once per I/O mode against a private redis-server: their
// fixture and the instances' names.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "core/uring.h"
#include "load/load_options.h"
#include "stand/local_redis.h"

namespace memstand::testutil {

/// "epoll" or "uring": an IoMode parameter's name in a test's full name.
inline std::string IoModeParamName(const ::testing::TestParamInfo<IoMode>& info) {
  return info.param == IoMode::kUring ? "uring" : "epoll";
}

/// Starts a redis-server of its own for each test; the io_uring instance is skipped
/// where the kernel refuses a ring.
class IoModeRedisTest : public ::testing::TestWithParam<IoMode> {
 protected:
  void SetUp() override {
    if (GetParam() == IoMode::kUring && !Uring::Create(1).ok()) GTEST_SKIP() << "no io_uring here";
    auto r = LocalRedis::Start(LocalRedisOptions{});
    ASSERT_TRUE(r.ok()) << r.status().message();
    redis_ = std::move(*r);
  }

  std::unique_ptr<LocalRedis> redis_;
};

}  // namespace memstand::testutil
