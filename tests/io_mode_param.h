// The engine's tests that run once per I/O mode: the instances' names.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "load/load_options.h"

namespace memstand::testutil {

/// "epoll" or "uring": an IoMode parameter's name in a test's full name.
inline std::string IoModeParamName(const ::testing::TestParamInfo<IoMode>& info) {
  return info.param == IoMode::kUring ? "uring" : "epoll";
}

}  // namespace memstand::testutil
