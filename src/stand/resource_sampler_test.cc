#include "stand/resource_sampler.h"

#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/clock.h"
#include "stand/process.h"

namespace memstand {
namespace {

// Spins until this thread has had `seconds` of CPU (not of wall time: on a loaded
// machine a wall-clock burn gets less CPU than it asks for).
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

void Burn(double seconds) {
  const double end = ThreadCpuSeconds() + seconds;
  volatile uint64_t x = 0;
  while (ThreadCpuSeconds() < end) x = x + 1;
}

// The intervals add up to the cumulative counters: the sampler loses nothing.
TEST(ResourceSampler, IntervalsAddUpToTheProcessTotals) {
  auto before = ReadProcSample(0);
  ASSERT_TRUE(before.ok());
  auto s = ResourceSampler::Start({{"memstand", 0}}, 50);
  ASSERT_TRUE(s.ok()) << s.status().message();
  Burn(0.4);
  std::vector<char> block(64 << 20);
  std::memset(block.data(), 1, block.size());  // touched: resident
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  auto series = (*s)->Stop();
  auto after = ReadProcSample(0);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(series.size(), 1u);
  ASSERT_GE(series[0].points.size(), 5u);  // ~0.5 s at 50 ms
  ResourceSummary sum = Summarize(series[0]);
  const double total = after->user_sec + after->sys_sec - before->user_sec - before->sys_sec;
  EXPECT_LE(sum.cpu_s, total + 1e-9);
  EXPECT_GE(sum.cpu_s, total - 0.05);  // the sampler started a tick or so after `before`
  EXPECT_GE(sum.cpu_s, 0.2);           // most of the 0.4 s burn was on a CPU
  EXPECT_GE(sum.rss_max, int64_t{64} << 20);
  EXPECT_GT(sum.rss_max, sum.rss_mean);  // the block came late
  EXPECT_TRUE(series[0].ended.empty());
  for (size_t i = 1; i < series[0].points.size(); ++i) {
    EXPECT_GT(series[0].points[i].t_s, series[0].points[i - 1].t_s);
  }
  // Stop is idempotent.
  EXPECT_EQ((*s)->Stop().size(), 1u);
}

TEST(ResourceSampler, AProcessThatExitsEndsItsSeries) {
  SpawnOptions o;
  o.argv = {"sleep", "0.3"};
  auto child = Process::Spawn(o);
  ASSERT_TRUE(child.ok()) << child.status().message();
  auto s = ResourceSampler::Start({{"sleep", (*child)->pid()}, {"self", 0}}, 50);
  ASSERT_TRUE(s.ok()) << s.status().message();
  while ((*child)->Alive()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  auto series = (*s)->Stop();
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].ended, "exited");
  EXPECT_TRUE(series[1].ended.empty());
  EXPECT_GT(series[1].points.size(), series[0].points.size());
}

TEST(ResourceSampler, StorageWritesAreCounted) {
  auto s = ResourceSampler::Start({{"self", 0}}, 1000);
  ASSERT_TRUE(s.ok());
  char path[] = "/var/tmp/memstand-sampler-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  std::vector<char> data(4 << 20, 'x');
  ASSERT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  fsync(fd);
  close(fd);
  unlink(path);
  auto series = (*s)->Stop();
  ResourceSummary sum = Summarize(series[0]);
  if (sum.write_bytes < 0) GTEST_SKIP() << "/proc/self/io is not readable here";
  EXPECT_GE(sum.write_bytes, int64_t{4} << 20);
}

TEST(ResourceSampler, AMissingProcessIsAnError) {
  auto s = ResourceSampler::Start({{"nobody", 999999999}}, 50);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Status::Code::kNotFound);
  EXPECT_NE(s.status().message().find("nobody"), std::string::npos);
}

TEST(ResourceSampler, SummaryOfAKnownSeries) {
  ResourceSeries r;
  r.points = {{1.0, 0.5, 0.1, 100, 0, 10}, {2.0, 0.9, 0.1, 300, 5, 20}, {2.05, 0.01, 0, 200, 0, 0}};
  ResourceSummary s = Summarize(r);
  EXPECT_DOUBLE_EQ(s.seconds, 2.05);
  EXPECT_NEAR(s.cpu_s, 1.61, 1e-12);
  EXPECT_NEAR(s.cpu_share_max, 1.0, 1e-12);  // the 50 ms tail does not count (0.2 of a core)
  EXPECT_NEAR(s.cpu_share_mean, 1.61 / 2.05, 1e-12);
  EXPECT_EQ(s.rss_max, 300);
  EXPECT_EQ(s.rss_mean, 200);
  EXPECT_EQ(s.read_bytes, 5);
  EXPECT_EQ(s.write_bytes, 30);
  r.points[1].read_bytes = -1;
  EXPECT_EQ(Summarize(r).read_bytes, -1);
}

}  // namespace
}  // namespace memstand
