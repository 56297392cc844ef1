#include "relay/leave_schedule.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(LeaveSchedule, EachChunkLeavesItsDelayAfterItWasRead) {
  LeaveSchedule s(20'000, 0, 0, 1);
  EXPECT_EQ(s.Next(1'000, 10), 21'000);
  EXPECT_EQ(s.Next(1'500, 10), 21'500);  // overlapping in flight, in order
  EXPECT_EQ(s.Next(90'000, 1), 110'000);
}

TEST(LeaveSchedule, TheRateCapPacesBytesBeforeTheDelay) {
  LeaveSchedule s(1'000, 0, 1000, 1);         // 1000 bytes/s: 1 ms per byte
  EXPECT_EQ(s.Next(0, 100), 100'000'000 + 1'000);  // 100 bytes on the wire, then the delay
  EXPECT_EQ(s.Next(0, 100), 200'000'000 + 1'000);  // queued behind the first
  EXPECT_EQ(s.Next(500'000'000, 1), 501'000'000 + 1'000);  // the wire was idle again
}

TEST(LeaveSchedule, JitterNeverReordersChunksCloserThanTheJitter) {
  const int64_t delay = 1'000'000, jitter = 900'000;
  LeaveSchedule s(delay, jitter, 0, 42);
  int64_t previous = 0;
  for (int i = 0; i < 5000; ++i) {
    const int64_t read = int64_t{i} * 10'000;  // 10 us apart: jitter alone would reorder them
    const int64_t due = s.Next(read, 1);
    EXPECT_GE(due, previous) << i;
    EXPECT_LE(due, read + delay + jitter) << i;
    previous = due;
  }
}

TEST(LeaveSchedule, JitterDrawsBothSidesOfTheDelayWithinItsBounds) {
  const int64_t delay = 1'000'000, jitter = 900'000;
  LeaveSchedule s(delay, jitter, 0, 42);
  int below = 0, above = 0;
  for (int i = 0; i < 1000; ++i) {
    const int64_t read = int64_t{i} * 10'000'000;  // 10 ms apart: no clamping
    const int64_t gap = s.Next(read, 1) - read;
    EXPECT_GE(gap, delay - jitter) << i;
    EXPECT_LE(gap, delay + jitter) << i;
    below += gap < delay;
    above += gap > delay;
  }
  EXPECT_GT(below, 0);
  EXPECT_GT(above, 0);
}

TEST(LeaveSchedule, TheSameSeedDrawsTheSameDelays) {
  LeaveSchedule a(1'000'000, 500'000, 0, 7), b(1'000'000, 500'000, 0, 7);
  for (int i = 0; i < 100; ++i) {
    const int64_t t = int64_t{i} * 5'000'000;
    EXPECT_EQ(a.Next(t, 1), b.Next(t, 1));
  }
}

}  // namespace
}  // namespace memstand
