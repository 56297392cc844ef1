#include "stand/proc_stats.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>

#include "stand/process.h"

namespace memstand {
namespace {

constexpr int64_t kMiB = 1 << 20;

// Samples pid once its program is mapped (right after exec the RSS is still 0);
// gives up after 30 s (a hang guard only).
Result<ProcSample> SampleLoaded(pid_t pid) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    auto s = ReadProcSample(pid);
    if (!s.ok() || s->rss_bytes > 0 || std::chrono::steady_clock::now() > deadline) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

int64_t StatmResidentBytes(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  int64_t size_pages = 0, resident_pages = -1;
  statm >> size_pages >> resident_pages;
  return resident_pages * sysconf(_SC_PAGESIZE);
}

TEST(ProcStatsTest, SelfByZeroAndByPidAgree) {
  auto by_zero = ReadProcSample(0);
  auto by_pid = ReadProcSample(getpid());
  ASSERT_TRUE(by_zero.ok()) << by_zero.status().message();
  ASSERT_TRUE(by_pid.ok()) << by_pid.status().message();
  EXPECT_GT(by_zero->rss_bytes, 0);
  EXPECT_GT(by_pid->rss_bytes, 0);
  EXPECT_LE(by_zero->user_sec, by_pid->user_sec);  // counters only grow
  EXPECT_GE(by_zero->read_bytes, -1);
  EXPECT_GE(by_zero->write_bytes, -1);
}

TEST(ProcStatsTest, RssGrowsWhenMemoryIsTouched) {
  auto before = ReadProcSample(0);
  ASSERT_TRUE(before.ok());
  constexpr size_t kSize = 64 * kMiB;
  std::unique_ptr<char[]> block(new char[kSize]);
  std::memset(block.get(), 1, kSize);
  auto after = ReadProcSample(0);
  ASSERT_TRUE(after.ok());
  EXPECT_GT(after->rss_bytes - before->rss_bytes, 32 * kMiB);
  EXPECT_EQ(block[kSize - 1], 1);
}

TEST(ProcStatsTest, SelfCpuGrowsWithWork) {
  CpuTimes start = SelfCpu();
  EXPECT_GE(start.user_sec, 0);
  EXPECT_GE(start.sys_sec, 0);
  volatile uint64_t sink = 0;
  CpuTimes now = start;
  for (uint64_t i = 0; now.user_sec <= start.user_sec && i < 100'000'000'000ull; ++i) {
    sink = sink + i;
    if (i % 100000 == 0) now = SelfCpu();
  }
  EXPECT_GT(now.user_sec, start.user_sec);
}

TEST(ProcStatsTest, MissingProcessIsNotFound) {
  // pid_max is at most 4194304 (PID_MAX_LIMIT), so this is never a pid.
  auto s = ReadProcSample(4194304 + 1);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Status::Code::kNotFound);
}

TEST(ProcStatsTest, SleepingChildUsesAlmostNoCpu) {
  auto child = Process::Spawn(SpawnOptions{{"sleep", "1000"}, "", ""});
  ASSERT_TRUE(child.ok()) << child.status().message();
  auto s = SampleLoaded((*child)->pid());
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_GT(s->rss_bytes, 0);
  EXPECT_LT(s->rss_bytes, 1024 * kMiB);
  EXPECT_LT(s->user_sec + s->sys_sec, 1.0);
  if (access("/proc/self/io", R_OK) == 0) {  // kernels without I/O accounting lack it
    EXPECT_GE(s->read_bytes, 0) << "our own child's /proc/PID/io should be readable";
    EXPECT_GE(s->write_bytes, 0);
  }
}

TEST(ProcStatsTest, CommandNameWithParenthesesAndSpaces) {
  char dir[] = "/tmp/proc_stats_test-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string odd = std::string(dir) + "/a) b (c";
  auto sleep_path = FindExecutable("sleep");
  ASSERT_TRUE(sleep_path.ok());
  ASSERT_EQ(symlink(sleep_path->c_str(), odd.c_str()), 0);
  auto child = Process::Spawn(SpawnOptions{{odd, "1000"}, "", ""});
  ASSERT_TRUE(child.ok()) << child.status().message();
  pid_t pid = (*child)->pid();
  // statm's second field counts the same resident pages and has no comm to skip.
  // Compare once it is steady (the loader still faults pages in right after exec).
  Result<ProcSample> s = Status::Failed("not sampled");
  int64_t before = -1, after = -2;
  for (int i = 0; i < 1000 && before != after; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    before = StatmResidentBytes(pid);
    s = ReadProcSample(pid);
    after = StatmResidentBytes(pid);
  }
  unlink(odd.c_str());
  rmdir(dir);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(before, after);
  // Near, not equal: stat reads the kernel's per-CPU RSS counters without summing them.
  EXPECT_NEAR(s->rss_bytes, after, after / 2);
  EXPECT_LT(s->user_sec + s->sys_sec, 1.0);
}

TEST(ProcStatsTest, BusyChildAccumulatesUserTime) {
  auto child = Process::Spawn(SpawnOptions{{"sh", "-c", "while :; do :; done"}, "", ""});
  ASSERT_TRUE(child.ok()) << child.status().message();
  pid_t pid = (*child)->pid();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  double user = 0;
  while (user < 0.1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto s = ReadProcSample(pid);
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_GE(s->user_sec, user);  // monotonic
    user = s->user_sec;
  }
  EXPECT_GE(user, 0.1);
  ASSERT_TRUE((*child)->Terminate(5000).ok());
}

}  // namespace
}  // namespace memstand
