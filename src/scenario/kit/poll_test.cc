// PollUntil: each of its four ends, and what it measured.
#include "scenario/kit/poll.h"

#include <gtest/gtest.h>

#include "core/clock.h"

namespace memstand {
namespace {

constexpr int64_t kPollMs = 1'000'000;

TEST(PollUntilTest, StopsAtTheFirstCheckThatHolds) {
  int checks = 0;
  PollResult r = PollUntil(DeadlineInMs(5000), kPollMs, [&]() -> Result<bool> { return ++checks == 3; });
  EXPECT_TRUE(r.met);
  EXPECT_FALSE(r.timed_out());
  EXPECT_EQ(checks, 3);
  EXPECT_GE(r.waited_ns, 2 * kPollMs);  // two intervals slept
}

TEST(PollUntilTest, TimesOutAfterACheckAtOrPastTheDeadline) {
  int checks = 0;
  const int64_t deadline = DeadlineInMs(30);
  PollResult r = PollUntil(deadline, 5 * kPollMs, [&]() -> Result<bool> {
    ++checks;
    return false;
  });
  EXPECT_TRUE(r.timed_out());
  EXPECT_FALSE(r.met);
  EXPECT_GE(NowNs(), deadline);
  EXPECT_GE(r.waited_ns, 30 * kPollMs - kPollMs);
  EXPECT_GE(checks, 2);
}

TEST(PollUntilTest, ADeadlineAlreadyPastStillChecksOnce) {
  int checks = 0;
  PollResult r = PollUntil(NowNs() - kPollMs, kPollMs, [&]() -> Result<bool> {
    ++checks;
    return false;
  });
  EXPECT_TRUE(r.timed_out());
  EXPECT_EQ(checks, 1);
}

TEST(PollUntilTest, AFailingCheckEndsThePollWithItsStatus) {
  int checks = 0;
  PollResult r = PollUntil(DeadlineInMs(5000), kPollMs, [&]() -> Result<bool> {
    if (++checks == 2) return Status::IoError("read failed");
    return false;
  });
  EXPECT_EQ(r.failure.message(), "read failed");
  EXPECT_FALSE(r.met);
  EXPECT_FALSE(r.timed_out());
  EXPECT_EQ(checks, 2);
}

TEST(PollUntilTest, ACancelIsSeenBeforeTheNextCheck) {
  std::atomic<bool> cancel{false};
  int checks = 0;
  PollResult r = PollUntil(
      DeadlineInMs(5000), kPollMs,
      [&]() -> Result<bool> {
        if (++checks == 2) cancel = true;
        return false;
      },
      &cancel);
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.timed_out());
  EXPECT_EQ(checks, 2);
}

}  // namespace
}  // namespace memstand
