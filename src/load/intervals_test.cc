#include "load/intervals.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace memstand {
namespace {

IntervalStats Second(int index, std::vector<std::pair<uint64_t, int64_t>> per_command) {
  IntervalStats s;
  s.index = index;
  for (auto [ops, latency] : per_command) {
    CommandStats c;
    c.ops = ops;
    c.errors = ops / 10;
    for (uint64_t i = 0; i < ops; ++i) c.latency_ns.Record(latency);
    s.commands.push_back(std::move(c));
  }
  return s;
}

TEST(IntervalCollector, MergesTheSameSecondOfEveryWorker) {
  IntervalCollector c(2, 2);
  c.Publish(Second(0, {{10, 1000}, {20, 5000}}));
  c.Publish(Second(1, {{30, 2000}, {0, 0}}));
  c.Publish(Second(0, {{10, 3000}, {0, 0}}));
  c.Finish();  // second 1 only ever came from one worker
  const auto& s = c.series();
  ASSERT_EQ(s.size(), 3u);
  ASSERT_EQ(s[0].size(), 2u);
  EXPECT_EQ(s[0][0].second, 0);
  EXPECT_EQ(s[0][0].ops, 20u);
  EXPECT_EQ(s[0][0].errors, 2u);
  EXPECT_EQ(s[0][0].max_ns, 3000);
  EXPECT_EQ(s[0][1].ops, 30u);
  EXPECT_EQ(s[1][0].ops, 20u);
  EXPECT_EQ(s[2][0].ops, 40u);   // all commands, second 0
  EXPECT_EQ(s[2][0].max_ns, 5000);
  // 20 at 5000, 10 at 3000, 10 at 1000: the 20th value, reported as its bucket's top.
  EXPECT_EQ(s[2][0].p50_ns, HdrHistogram().HighestEquivalentValue(3000));
  EXPECT_EQ(s[2][1].ops, 30u);
}

TEST(IntervalCollector, EachCommandsSecondCarriesItsHistogram) {
  IntervalCollector c(2, 2);
  c.Publish(Second(0, {{10, 1000}, {20, 5000}}));
  c.Publish(Second(0, {{5, 900'000}, {0, 0}}));
  c.Finish();
  const SeriesPoint& get = c.series()[0][0];
  auto h = DecodeHistogram(get.latency);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->total_count(), 15);
  EXPECT_EQ(h->min(), 1000);
  EXPECT_EQ(h->max(), 900'000);
  EXPECT_EQ(h->ValueAtPercentile(90), get.p90_ns);
  EXPECT_EQ(get.p999_ns, 900'000);  // clamped to the max
  EXPECT_EQ(DecodeHistogram(c.series()[1][0].latency)->total_count(), 20);
  EXPECT_TRUE(c.series()[2][0].latency.v2_base64.empty());  // all commands: the sum of these
}

TEST(IntervalCollector, ConcurrentPublishersLoseNothing) {
  constexpr int kWorkers = 4, kSeconds = 50;
  IntervalCollector c(kWorkers, 1);
  std::vector<std::thread> threads;
  for (int w = 0; w < kWorkers; ++w) {
    threads.emplace_back([&c] {
      for (int i = 0; i < kSeconds; ++i) c.Publish(Second(i, {{7, 100}}));
    });
  }
  for (auto& t : threads) t.join();
  c.Finish();
  ASSERT_EQ(c.series()[1].size(), static_cast<size_t>(kSeconds));
  for (const auto& p : c.series()[1]) EXPECT_EQ(p.ops, 7u * kWorkers);
}

// A second's summary and the sink run on the collector's own thread, on SCHED_IDLE, not
// on the worker that publishes it: a worker's loop never does that work (it held an open
// loop's sends back for milliseconds each second).
TEST(IntervalCollector, SummarizesOnItsOwnIdleThread) {
  std::vector<std::thread::id> sink_threads;
  std::vector<int> sink_policies;
  std::vector<int> seconds;
  std::atomic<int> sunk{0};
  IntervalCollector c(1, 1, [&](int second, const std::vector<CommandStats>& commands) {
    sink_threads.push_back(std::this_thread::get_id());
    sink_policies.push_back(sched_getscheduler(0));
    seconds.push_back(second);
    EXPECT_EQ(commands.size(), 1u);
    ++sunk;
  });
  for (int i = 0; i < 3; ++i) c.Publish(Second(i, {{5, 100}}));
  // Finish puts the thread back on the default scheduler for what is left: let it take
  // the three first (a bound on the wait, not a timing assertion).
  for (int i = 0; i < 10'000 && sunk.load() < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  c.Finish();
  c.Finish();  // once is enough; again does nothing
  ASSERT_EQ(seconds, (std::vector<int>{0, 1, 2}));
  for (size_t i = 0; i < sink_threads.size(); ++i) {
    EXPECT_NE(sink_threads[i], std::this_thread::get_id());
    EXPECT_EQ(sink_policies[i], SCHED_IDLE);
  }
  EXPECT_EQ(c.series()[0].size(), 3u);
}

// Destroyed without Finish (an engine that returns early): its thread ends, and what was
// handed in is still summarized (the sink sees it).
TEST(IntervalCollector, EndsItsThreadWhenDestroyed) {
  int sunk = 0;
  {
    IntervalCollector c(2, 1, [&](int, const std::vector<CommandStats>&) { ++sunk; });
    c.Publish(Second(0, {{1, 100}}));
  }
  EXPECT_EQ(sunk, 1);  // second 0 waited for a second worker: Finish summarized it
}

// A summarized second's statistics come back emptied, for a worker's next second: one
// vector per worker's part handed in (a part merged into another, then the merged
// second), each command's counters and histograms empty, and usable again.
TEST(IntervalCollector, GivesSummarizedSecondsBackEmptied) {
  IntervalCollector c(2, 2);
  EXPECT_TRUE(c.Recycled().empty());  // nothing summarized yet
  c.Publish(Second(0, {{10, 1000}, {20, 5000}}));
  c.Publish(Second(0, {{10, 3000}, {0, 0}}));
  c.Publish(Second(1, {{30, 2000}, {0, 0}}));
  c.Publish(Second(1, {{1, 2000}, {0, 0}}));
  c.Finish();
  for (int i = 0; i < 4; ++i) {
    std::vector<CommandStats> back = c.Recycled();
    ASSERT_EQ(back.size(), 2u) << "vector " << i;
    for (const CommandStats& s : back) {
      EXPECT_EQ(s.ops, 0u);
      EXPECT_EQ(s.errors, 0u);
      EXPECT_EQ(s.latency_ns.total_count(), 0);
      EXPECT_EQ(s.latency_ns.max(), 0);
      EXPECT_TRUE(s.errors_by_prefix.empty());
    }
    back[0].latency_ns.Record(7000);
    EXPECT_EQ(back[0].latency_ns.total_count(), 1);
    EXPECT_EQ(back[0].latency_ns.min(), 7000);
    EXPECT_EQ(back[0].latency_ns.max(), 7000);
  }
  EXPECT_TRUE(c.Recycled().empty());
  // The series were summarized before the statistics were emptied.
  EXPECT_EQ(c.series()[2][0].ops, 40u);
  EXPECT_EQ(c.series()[2][1].ops, 31u);
}

}  // namespace
}  // namespace memstand
