#include "report/slo_search.h"

#include <gtest/gtest.h>

#include <cmath>

namespace memstand {
namespace {

TEST(SloSearchTest, ParsesLimitsAndRefusesBadOnes) {
  auto s = ParseSlo("p99<=2ms");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->percentile, 99);
  EXPECT_EQ(s->limit_ns, 2000000);
  EXPECT_EQ(ParseSlo("p99.9<=500us")->limit_ns, 500000);
  EXPECT_EQ(ParseSlo("p50<=1.5")->limit_ns, 1500000);  // ms by default
  EXPECT_EQ(ParseSlo("p90<=1s")->limit_ns, 1000000000);
  EXPECT_EQ(ParseSlo("p90<=250ns")->limit_ns, 250);
  for (const char* bad : {"", "p99", "99<=2ms", "p100<=2ms", "p0<=2ms", "p99<=0ms", "p99<=-1ms", "p99<=2min",
                          "p99<=ms", "pxx<=2ms", "p99<2ms", "p99<=2ms ", "p99<=99999999s"}) {
    auto r = ParseSlo(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.status().message().find("--slo"), std::string::npos) << r.status().message();
    }
  }
}

TEST(SloSearchTest, RoundsRatesToThreeDigits) {
  EXPECT_EQ(RoundRate(1000), 1000);
  EXPECT_EQ(RoundRate(12345), 12300);
  EXPECT_EQ(RoundRate(99999), 100000);
  EXPECT_EQ(RoundRate(0.5), 1);
}

// A validity with the given suspect checks and a Total p99 interval.
Validity Outcome(int64_t value, int64_t low, int64_t high, std::vector<std::string> suspect = {}) {
  Validity v;
  for (const char* name : {"rate", "send lag", "stationarity", "clock"}) {
    ValidityCheck c;
    c.name = name;
    c.status = CheckStatus::kPass;
    for (const auto& s : suspect) {
      if (s == name) c.status = CheckStatus::kSuspect;
    }
    v.checks.push_back(c);
  }
  v.intervals.push_back({"Total", 10000, 10000, {{99, value, low, high, false}}});
  return v;
}

TEST(SloSearchTest, DecidesARunByItsIntervalAndItsValidity) {
  const Slo slo = *ParseSlo("p99<=2ms");
  auto d = DecideSloRun(slo, 1000, Outcome(1'000'000, 900'000, 1'100'000), 1000);
  EXPECT_EQ(d.outcome, SloOutcome::kPass);
  EXPECT_TRUE(d.sure);
  d = DecideSloRun(slo, 1000, Outcome(1'900'000, 1'800'000, 2'100'000), 1000);
  EXPECT_EQ(d.outcome, SloOutcome::kPass);
  EXPECT_FALSE(d.sure);  // the interval crosses the limit
  d = DecideSloRun(slo, 1000, Outcome(2'500'000, 2'200'000, 2'800'000), 1000);
  EXPECT_EQ(d.outcome, SloOutcome::kFail);
  EXPECT_TRUE(d.sure);
  d = DecideSloRun(slo, 1000, Outcome(1'000'000, 900'000, 1'100'000, {"send lag"}), 1000);
  EXPECT_EQ(d.outcome, SloOutcome::kUndecided);  // the instrument's figure
  // A lag under a tenth of the limit cannot move the answer: the run decides.
  d = DecideSloRun(slo, 1000, Outcome(1'000'000, 900'000, 1'100'000, {"send lag"}), 1000, 150'000);
  EXPECT_EQ(d.outcome, SloOutcome::kPass);
  d = DecideSloRun(slo, 1000, Outcome(1'000'000, 900'000, 1'100'000, {"send lag"}), 1000, 250'000);
  EXPECT_EQ(d.outcome, SloOutcome::kUndecided);
  d = DecideSloRun(slo, 1000, Outcome(1'000'000, 900'000, 1'100'000, {"rate"}), 900);
  EXPECT_EQ(d.outcome, SloOutcome::kFail);  // not served
  EXPECT_TRUE(d.sure);
  d = DecideSloRun(slo, 1000, Outcome(1'000'000, 900'000, 1'100'000, {"stationarity"}), 1000);
  EXPECT_EQ(d.outcome, SloOutcome::kUndecided);
  d = DecideSloRun(slo, 1000, Outcome(9'000'000, 8'000'000, 10'000'000, {"stationarity"}), 1000);
  EXPECT_EQ(d.outcome, SloOutcome::kFail);  // an overload that keeps growing
}

// A system whose p99 is 1 ms below 40,000/s and 5 ms above: the search doubles from
// 1,000/s, bisects, and ends with passing and failing rates within 5% of each other.
TEST(SloSearchTest, FindsTheBoundaryOfAStepSystem) {
  const Slo slo = *ParseSlo("p99<=2ms");
  SloSearchOptions o;
  o.repeat = 1;
  SloSearch search(slo, o);
  int runs = 0;
  while (auto rate = search.Next()) {
    ASSERT_LT(++runs, 40);
    const bool ok = *rate < 40000;
    search.Add(DecideSloRun(slo, *rate, ok ? Outcome(1'000'000, 950'000, 1'050'000)
                                          : Outcome(5'000'000, 4'500'000, 5'500'000),
                            *rate));
  }
  const auto a = search.Conclude();
  ASSERT_TRUE(a.found) << a.note;
  EXPECT_LT(a.rate, 40000);
  EXPECT_GE(a.rate, 40000 * 0.95 * 0.99);
  EXPECT_EQ(a.low, a.rate);  // every run was sure
  EXPECT_GE(a.high, 40000);
  EXPECT_LE((a.high - a.rate) / a.high, 0.05 + 1e-9);
  EXPECT_NE(SloAnswerLine(slo, a, 0.95).find("[" ), std::string::npos);
  const auto j = SloSearchJson(search, 0.95);
  EXPECT_EQ(j["runs"].size(), search.runs().size());
  EXPECT_EQ(j["answer"]["rate_per_s"], a.rate);
}

// Repeated runs: a level is decided by its majority, and undecided runs are run again.
TEST(SloSearchTest, RepeatsEachRateAndRetriesUndecidedRuns) {
  const Slo slo = *ParseSlo("p99<=2ms");
  SloSearchOptions o;
  o.repeat = 3;
  o.start_rate = 1000;
  SloSearch search(slo, o);
  ASSERT_EQ(*search.Next(), 1000);
  search.Add(DecideSloRun(slo, 1000, Outcome(1'000'000, 900'000, 1'100'000, {"clock"}), 1000));
  EXPECT_EQ(*search.Next(), 1000);  // undecided: again
  search.Add(DecideSloRun(slo, 1000, Outcome(1'000'000, 900'000, 1'100'000), 1000));
  EXPECT_EQ(*search.Next(), 1000);  // one pass of three
  search.Add(DecideSloRun(slo, 1000, Outcome(1'000'000, 900'000, 1'100'000), 1000));
  EXPECT_EQ(*search.Next(), 2000);  // a majority: on to the next
}

TEST(SloSearchTest, StopsWhenNoRunDecides) {
  const Slo slo = *ParseSlo("p99<=2ms");
  SloSearchOptions o;
  o.repeat = 2;
  SloSearch search(slo, o);
  for (int i = 0; i < 4; ++i) {  // 2 x --slo-repeat undecided runs
    ASSERT_TRUE(search.Next().has_value()) << i;
    search.Add(DecideSloRun(slo, *search.Next(), Outcome(1'000'000, 900'000, 1'100'000, {"send lag"}), 1000));
  }
  EXPECT_FALSE(search.Next().has_value());
  const auto a = search.Conclude();
  EXPECT_FALSE(a.found);
  EXPECT_NE(a.note.find("decided nothing"), std::string::npos) << a.note;
}

TEST(SloSearchTest, AFirstRateThatFailsIsHalved) {
  const Slo slo = *ParseSlo("p99<=2ms");
  SloSearchOptions o;
  o.repeat = 1;
  o.start_rate = 8000;
  SloSearch search(slo, o);
  search.Add(DecideSloRun(slo, *search.Next(), Outcome(5'000'000, 4'500'000, 5'500'000), 8000));
  EXPECT_EQ(*search.Next(), 4000);
}

}  // namespace
}  // namespace memstand
