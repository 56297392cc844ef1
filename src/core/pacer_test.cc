#include "core/pacer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace memstand {
namespace {

constexpr int64_t kStart = 1'234'567'890'123LL;

PacerOptions Options(double rate, PacerOptions::Arrival arrival, uint64_t seed = 1) {
  PacerOptions options;
  options.rate_per_s = rate;
  options.arrival = arrival;
  options.seed = seed;
  return options;
}

// start + k * 1e9 / rate rounded to the nearest ns, in exact integer arithmetic. For an
// odd integer rate the quotient is never exactly halfway, so rounding has one answer.
int64_t ExactConstantTime(int64_t k, int64_t rate) {
  const __int128 numerator = static_cast<__int128>(k) * 1'000'000'000 * 2 + rate;
  return kStart + static_cast<int64_t>(numerator / (2 * rate));
}

TEST(PacerTest, ConstantScheduleIsExactOverAMillionSteps) {
  for (int64_t rate : {3, 7, 999'983, 33'333'333}) {
    SCOPED_TRACE(rate);
    Pacer pacer(Options(static_cast<double>(rate), PacerOptions::Arrival::kConstant), kStart);
    int mismatches = 0;
    for (int64_t k = 0; k < 1'000'000; ++k) {
      if (pacer.Next() != ExactConstantTime(k, rate)) ++mismatches;
    }
    EXPECT_EQ(mismatches, 0);
    EXPECT_EQ(pacer.Peek(), ExactConstantTime(1'000'000, rate));
  }
}

TEST(PacerTest, ConstantScheduleDoesNotDriftWhereRoundedGapsWould) {
  // 3 requests/s: the gap is 333,333,333.33 ns. Adding a rounded gap would lose a
  // third of a ns per step, 333 us after a million steps; the pacer must lose nothing.
  Pacer pacer(Options(3.0, PacerOptions::Arrival::kConstant), 0);
  int64_t last = 0;
  for (int k = 0; k < 1'000'000; ++k) last = pacer.Next();
  EXPECT_EQ(last, 333'333'000'000'000LL);    // (1e6 - 1) * 1e9 / 3 exactly
  EXPECT_NE(last, 999'999 * 333'333'333LL);  // what summing rounded gaps gives
  EXPECT_EQ(pacer.issued(), 1'000'000u);
}

TEST(PacerTest, PeekDoesNotConsume) {
  Pacer pacer(Options(1000.0, PacerOptions::Arrival::kPoisson, 9), kStart);
  EXPECT_EQ(pacer.Peek(), kStart);
  EXPECT_EQ(pacer.issued(), 0u);
  EXPECT_EQ(pacer.Next(), kStart);
  const int64_t peeked = pacer.Peek();
  EXPECT_EQ(pacer.Peek(), peeked);
  EXPECT_EQ(pacer.Next(), peeked);
  EXPECT_EQ(pacer.issued(), 2u);
}

TEST(PacerTest, PoissonGapsAreExponentialWithTheRequestedMean) {
  constexpr int kDraws = 1'000'000;
  constexpr double kRate = 50'000.0;  // mean gap 20 us: rounding to 1 ns is negligible
  Pacer pacer(Options(kRate, PacerOptions::Arrival::kPoisson, 42), kStart);
  int64_t previous = pacer.Next();
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < kDraws; ++i) {
    const int64_t now = pacer.Next();
    ASSERT_GE(now, previous);
    const double gap = static_cast<double>(now - previous);
    sum += gap;
    sum_sq += gap * gap;
    previous = now;
  }
  const double mean = sum / kDraws;
  const double stddev = std::sqrt(sum_sq / kDraws - mean * mean);
  EXPECT_NEAR(mean, 1e9 / kRate, 0.01 * 1e9 / kRate);
  EXPECT_NEAR(stddev / mean, 1.0, 0.01);  // an exponential's coefficient of variation is 1
}

TEST(PacerTest, PoissonEndsWhereTheRateSays) {
  // The unrounded sum is kept: after n gaps the schedule is at n / rate within the
  // statistical spread sqrt(n) / rate, not off by n rounding errors.
  constexpr int kDraws = 1'000'000;
  Pacer pacer(Options(3.0, PacerOptions::Arrival::kPoisson, 5), 0);
  int64_t last = 0;
  for (int i = 0; i <= kDraws; ++i) last = pacer.Next();
  const double expected = kDraws * 1e9 / 3.0;
  EXPECT_NEAR(static_cast<double>(last), expected, 5 * std::sqrt(kDraws) * 1e9 / 3.0);
}

TEST(PacerTest, PoissonIsDeterministicPerSeed) {
  Pacer a(Options(1e5, PacerOptions::Arrival::kPoisson, 77), kStart);
  Pacer b(Options(1e5, PacerOptions::Arrival::kPoisson, 77), kStart);
  Pacer c(Options(1e5, PacerOptions::Arrival::kPoisson, 78), kStart);
  int differences = 0;
  for (int i = 0; i < 10'000; ++i) {
    const int64_t t = a.Next();
    ASSERT_EQ(t, b.Next());
    differences += t != c.Next();
  }
  EXPECT_GT(differences, 9'000);
}

TEST(PacerTest, TimesSaturateInsteadOfOverflowing) {
  Pacer pacer(Options(1e-9, PacerOptions::Arrival::kConstant), INT64_MAX - 10);
  EXPECT_EQ(pacer.Next(), INT64_MAX - 10);
  EXPECT_EQ(pacer.Next(), INT64_MAX);
  EXPECT_EQ(pacer.Next(), INT64_MAX);
}

// --spin: the wait before a send blocks until the spin before it and then polls (0), so
// that a thread that keeps asking reaches the due time without ever blocking past it.
TEST(BlockBeforeDueTest, BlocksUntilTheSpinThenPolls) {
  EXPECT_EQ(BlockBeforeDue(1'000'000, 0), 1'000'000);  // no spin: until the due time
  EXPECT_EQ(BlockBeforeDue(1'000'000, 100'000), 900'000);
  EXPECT_EQ(BlockBeforeDue(100'000, 100'000), 0);  // inside the spin: poll
  EXPECT_EQ(BlockBeforeDue(40'000, 100'000), 0);
  EXPECT_EQ(BlockBeforeDue(0, 100'000), 0);  // due: poll (the loop sends)
  EXPECT_EQ(BlockBeforeDue(-5'000, 100'000), 0);  // overdue
  EXPECT_EQ(BlockBeforeDue(-5'000, 0), 0);
}

// A loop that blocks as BlockBeforeDue says, on a clock that only its blocks and a fixed
// cost per poll move, reaches every due time of a schedule without passing it by more
// than one poll, and polls only within the spin before each.
TEST(BlockBeforeDueTest, ASimulatedLoopNeverBlocksPastADueTime) {
  Pacer pacer(Options(100'000, PacerOptions::Arrival::kPoisson), kStart);
  constexpr int64_t kSpin = 20'000, kPoll = 700;
  int64_t now = kStart - 1'000'000;
  uint64_t polls = 0, blocks = 0;
  for (int i = 0; i < 10'000; ++i) {
    const int64_t due = pacer.Next();
    while (now < due) {
      const int64_t block = BlockBeforeDue(due - now, kSpin);
      if (block > 0) {
        ++blocks;
        now += block;
        EXPECT_EQ(now, due - kSpin);  // woken exactly the spin before it
      } else {
        ++polls;
        EXPECT_LE(due - now, kSpin);
        now += kPoll;
      }
    }
    EXPECT_LT(now - due, kPoll);
  }
  EXPECT_GT(polls, 0u);
  EXPECT_GT(blocks, 0u);
}

TEST(SplitRateTest, SharesAreEqualAndSumExactly) {
  for (double total : {1.0, 100'000.0, 1e8, 0.3, 123'456.789}) {
    for (int n : {1, 2, 3, 7, 10, 49, 1000, 4097}) {
      SCOPED_TRACE(testing::Message() << total << " over " << n);
      const std::vector<double> shares = SplitRate(total, n);
      ASSERT_EQ(shares.size(), static_cast<size_t>(n));
      double sum = 0;
      for (double share : shares) {
        sum += share;
        EXPECT_NEAR(share, total / n, 1e-9 * total / n);
      }
      EXPECT_EQ(sum, total);
      for (int i = 0; i + 1 < n; ++i) EXPECT_EQ(shares[i], shares[0]);
    }
  }
  EXPECT_TRUE(SplitRate(10.0, 0).empty());
  EXPECT_TRUE(SplitRate(10.0, -3).empty());
}

TEST(ValidateRateTest, AcceptsSaneRates) {
  EXPECT_TRUE(ValidateRate(1.0, 1).ok());
  EXPECT_TRUE(ValidateRate(0.5, 4).ok());
  EXPECT_TRUE(ValidateRate(kMaxRatePerSecond, 1000).ok());
}

TEST(ValidateRateTest, RejectsNonPositiveNonFiniteAndHugeRates) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double rate : {0.0, -1.0, -0.0, nan, inf, -inf, 1.0001e8, 1e12}) {
    SCOPED_TRACE(rate);
    const Status status = ValidateRate(rate, 4);
    EXPECT_EQ(status.code(), Status::Code::kInvalidArgument);
    EXPECT_NE(status.message().find("--rate"), std::string::npos) << status.message();
  }
  const Status no_connections = ValidateRate(1000.0, 0);
  EXPECT_EQ(no_connections.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(no_connections.message().find("--rate"), std::string::npos);
}

}  // namespace
}  // namespace memstand
