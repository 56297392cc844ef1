// The heap a load connection holds during a run, in bytes: RunLoad against a real
// redis-server with a few and with many mostly idle connections (open loop, a low
// rate), the live heap read at every per-second hand-off; what each extra connection
// adds is bounded (issue #28: at most 8 KB per idle connection). Over epoll and
// io_uring. The io_uring receive buffers are mapped memory, not heap: core/uring.h
// hands them out on demand (uring_test.cc checks it).
#include <malloc.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
// The sanitizer runtime's count of live heap bytes (GCC ships no header declaring it).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

#include "io_mode_param.h"
#include "load/command_spec.h"
#include "load/engine.h"
#include "load/load_options.h"

namespace memstand {
namespace {

// Bytes the program has allocated and not freed (all threads).
size_t LiveHeapBytes() {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
#endif
}

class ConnMemoryTest : public testutil::IoModeRedisTest {
 protected:
  // The most live heap seen at a per-second hand-off of a 2.5 s run of `clients`
  // connections sending GETs at 100 requests/s in all.
  size_t PeakLiveHeap(int clients) {
    LoadOptions opt;
    opt.target.host = "127.0.0.1";
    opt.target.port = redis_->port();
    opt.threads = 1;
    opt.clients = clients;
    opt.rate = 100;
    opt.duration_s = 2.5;
    opt.key_max = 999;
    opt.io = GetParam();
    auto spec = MakeCommandSpec(Protocol::kResp, "get __key__", "memstand:", KeyPatternSpec{}, 1,
                                CommandLimits{});
    EXPECT_TRUE(spec.ok()) << spec.status().message();
    if (!spec.ok()) return 0;
    opt.commands.push_back(*spec);
    std::atomic<size_t> peak{0};
    auto sink = [&](int, const std::vector<CommandStats>&) {
      peak = std::max(peak.load(), LiveHeapBytes());
    };
    auto result = RunLoad(opt, nullptr, sink);
    EXPECT_TRUE(result.ok()) << result.status().message();
    if (result.ok()) {
      EXPECT_TRUE(result->failure.ok()) << result->failure.message();
      EXPECT_GT(result->measured_ops(), 0u);
    }
    return peak;
  }
};

TEST_P(ConnMemoryTest, AnIdleConnectionHoldsAtMostEightKilobytesOfHeap) {
  constexpr int kFew = 2, kMany = 1000;
  const size_t few = PeakLiveHeap(kFew);
  const size_t many = PeakLiveHeap(kMany);
  ASSERT_GT(few, 0u);
  ASSERT_GE(many, few);
  const double per_connection = static_cast<double>(many - few) / (kMany - kFew);
  EXPECT_LE(per_connection, 8192.0) << "live heap " << few << " B with " << kFew
                                    << " connections, " << many << " B with " << kMany;
  RecordProperty("heap_bytes_per_connection", std::to_string(per_connection));
}

INSTANTIATE_TEST_SUITE_P(EpollAndUring, ConnMemoryTest, ::testing::Values(IoMode::kEpoll, IoMode::kUring),
                         testutil::IoModeParamName);

}  // namespace
}  // namespace memstand
