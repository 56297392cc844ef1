// The open loop's --schedule, --spin and --realtime in the load engine, against a real redis-server:
// what they record (spin polls and time, the priority each thread ran at), not how
// precise the sends were (bench/README.md measures that; unit tests assert no timing).
#include <sched.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "io_mode_param.h"
#include "load/command_spec.h"
#include "load/engine.h"
#include "load/load_options.h"

namespace memstand {
namespace {

// Every one of `n` measured requests sent and answered, none before its intended time
// (the send lag's histogram keeps a negative lag as 0: early sends are counted apart).
void ExpectAllSentNoneEarly(const Result<RunResult>& r, uint64_t n) {
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->failure.ok()) << r->failure.message();
  EXPECT_EQ(r->measured_ops(), n);
  EXPECT_EQ(r->AllCommands().send_lag_ns.total_count(), static_cast<int64_t>(n));
  EXPECT_EQ(r->totals.sent_early, 0u);
}

class OpenLoopPacingTest : public testutil::IoModeRedisTest {
 protected:
  LoadOptions Options() {
    LoadOptions opt;
    opt.target.host = "127.0.0.1";
    opt.target.port = redis_->port();
    opt.threads = 1;
    opt.clients = 4;
    opt.key_max = 999;
    opt.io = GetParam();
    auto spec = MakeCommandSpec(Protocol::kResp, "get __key__", "memstand:", KeyPatternSpec{}, 1,
                                CommandLimits{});
    EXPECT_TRUE(spec.ok()) << spec.status().message();
    if (spec.ok()) opt.commands.push_back(*spec);
    return opt;
  }
};

// 2,000 requests/s on one thread: a send every 500 µs, 300 µs of each gap polled. The
// polls are counted with their time; every request is still sent at or after its due
// time (none counted early) and all of them are measured.
TEST_P(OpenLoopPacingTest, SpinningPollsBeforeSendTimesAndNeverSendsEarly) {
  LoadOptions opt = Options();
  opt.rate = 2000;
  opt.requests = 600;
  opt.spin_ns = 300'000;
  auto r = RunLoad(opt, nullptr);
  ExpectAllSentNoneEarly(r, 600);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->threads.size(), 1u);
  EXPECT_GT(r->threads[0].spin_polls, 0u);
  EXPECT_GT(r->threads[0].spin_s, 0.0);
  EXPECT_EQ(r->threads[0].realtime_priority, 0);

  // Without a spin nothing is counted as one.
  opt.spin_ns = 0;
  r = RunLoad(opt, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->failure.ok()) << r->failure.message();
  EXPECT_EQ(r->measured_ops(), 600u);
  EXPECT_EQ(r->threads[0].spin_polls, 0u);
  EXPECT_EQ(r->threads[0].spin_s, 0.0);
}

// --schedule per-thread: one schedule for the thread, each wake-up's requests on one
// connection. The schedule is kept as a connection's is: a constant one sends exactly
// rate x duration requests, none before its time; --requests sends that many; Poisson
// arrivals send about rate x duration.
TEST_P(OpenLoopPacingTest, PerThreadScheduleSendsTheWholeScheduleNeverEarly) {
  LoadOptions opt = Options();
  opt.schedule_per_thread = true;
  opt.rate = 5000;
  opt.duration_s = 0.4;
  auto r = RunLoad(opt, nullptr);
  ExpectAllSentNoneEarly(r, 2000);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->totals.unsent_intended, 0u);
  // No gaps between sends kept: the inter-arrival check is not judged on this schedule.
  EXPECT_EQ(r->threads[0].send_gaps.offered(), 0u);

  opt.duration_s = 0;
  opt.requests = 500;
  r = RunLoad(opt, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->failure.ok()) << r->failure.message();
  EXPECT_EQ(r->measured_ops(), 500u);

  opt.requests = 0;
  opt.duration_s = 1;
  opt.rate = 3000;
  opt.poisson = true;
  r = RunLoad(opt, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NEAR(static_cast<double>(r->measured_ops()), 3000, 6 * 55);  // Poisson(3000): sd ~55
}

// With every connection at its cap (one in flight each, a rate above what two
// connections carry), the due requests wait for a reply: the loop sleeps until one
// comes instead of polling, and every request is still sent. Waits counted here for
// 3000 requests with epoll: 2932 and 2991; with the loop polling while no connection
// had room (the wait to the due time, already past), 8311. With io_uring the count
// includes the submissions (4246 and 5664 here, 8805 polling): too close to bound.
TEST_P(OpenLoopPacingTest, PerThreadScheduleWaitsForRoomWithoutPolling) {
  LoadOptions opt = Options();
  opt.schedule_per_thread = true;
  opt.clients = 2;
  opt.pipeline = 1;
  opt.rate = 200'000;
  opt.requests = 3000;
  auto r = RunLoad(opt, nullptr);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->failure.ok()) << r->failure.message();
  EXPECT_EQ(r->measured_ops(), 3000u);
  if (GetParam() == IoMode::kEpoll) {
    EXPECT_LE(r->totals.wait_calls, 4500u) << "the loop polled while no connection had room";
  }
}

// How many threads of this process are on SCHED_FIFO now.
int FifoThreads() {
  int fifo = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task")) {
    const pid_t tid = std::stoi(e.path().filename().string());
    if (sched_getscheduler(tid) == SCHED_FIFO) ++fifo;
  }
  return fifo;
}

// --realtime: each load thread runs on SCHED_FIFO at the priority asked (read back from
// the kernel); once the run is over no thread of the process is left on it. Where the
// kernel refuses (not root), the run fails and says why.
TEST_P(OpenLoopPacingTest, RealtimeLoadThreadsRunOnSchedFifoAndLeaveNothingBehind) {
  ASSERT_EQ(FifoThreads(), 0);
  LoadOptions opt = Options();
  opt.threads = 2;
  opt.rate = 2000;
  opt.requests = 200;
  opt.spin_ns = 100'000;
  opt.realtime_priority = 3;
  auto r = RunLoad(opt, nullptr);
  if (geteuid() != 0) {
    const Status& why = r.ok() ? r->failure : r.status();
    EXPECT_NE(why.message().find("--realtime 3"), std::string::npos) << why.message();
    return;
  }
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->failure.ok()) << r->failure.message();
  EXPECT_EQ(r->measured_ops(), 200u);
  ASSERT_EQ(r->threads.size(), 2u);
  for (const ThreadStats& t : r->threads) EXPECT_EQ(t.realtime_priority, 3);
  EXPECT_EQ(FifoThreads(), 0);
}

INSTANTIATE_TEST_SUITE_P(EpollAndUring, OpenLoopPacingTest, ::testing::Values(IoMode::kEpoll, IoMode::kUring),
                         testutil::IoModeParamName);

}  // namespace
}  // namespace memstand
