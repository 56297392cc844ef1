#include "report/validity.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "load/command_spec.h"
#include "stats/encoded_histogram.h"

namespace memstand {
namespace {

const ValidityCheck* Find(const Validity& v, const std::string& name) {
  for (const auto& c : v.checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// A closed-loop run of `seconds` full seconds with one command: each second's latencies
// drawn lognormal around `median_ns(second)`, `ops(second)` of them, in reply order
// into thread 0's blocks, the histograms into the totals and the series.
struct FakeRun {
  LoadOptions options;
  RunResult result;

  template <typename Ops, typename Median>
  FakeRun(int seconds, Ops ops, Median median_ns, uint64_t seed = 1) {
    auto c = MakeCommandSpec(Protocol::kResp, "GET __key__", "memtier-", {}, 1, CommandLimits{});
    EXPECT_TRUE(c.ok());
    c->label = "GET";
    options.commands = {*c};
    options.clients = 10;
    options.pipeline = 1;
    options.duration_s = seconds;
    result.totals = ThreadStats(1);
    result.threads.emplace_back(1);
    result.measured_s = seconds + 0.0001;
    result.series.resize(2);  // GET, Total
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> z(0, 0.3);
    for (int s = 0; s < seconds; ++s) {
      HdrHistogram h;
      const int n = ops(s);
      for (int i = 0; i < n; ++i) {
        const int64_t v = std::max<int64_t>(1, std::llround(median_ns(s) * std::exp(z(rng))));
        h.Record(v);
        result.threads[0].latency_runs.Offer(v);
      }
      result.totals.commands[0].latency_ns.Add(h);
      result.totals.commands[0].ops += static_cast<uint64_t>(n);
      SeriesPoint p;
      p.second = s;
      p.ops = static_cast<uint64_t>(n);
      p.latency = EncodeHistogram(h);
      result.series[0].push_back(p);
      SeriesPoint t = p;
      t.latency = {};
      result.series[1].push_back(t);
    }
    result.cross_check.available = false;
    result.cross_check.unavailable_reason = "a fake run";
  }
};

TEST(ValidityTest, ASteadyRunIsStationaryAndGetsIntervals) {
  FakeRun run(9, [](int) { return 20000; }, [](int) { return 100e3; });
  const Validity v = AssessRun(run.options, run.result);
  const ValidityCheck* st = Find(v, "stationarity");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->status, CheckStatus::kPass) << st->figure;
  const ValidityCheck* ind = Find(v, "independence");
  ASSERT_NE(ind, nullptr);
  EXPECT_EQ(ind->status, CheckStatus::kPass) << ind->figure;  // independent draws
  ASSERT_EQ(v.intervals.size(), 1u);
  const CommandIntervals& total = v.intervals[0];
  EXPECT_EQ(total.command, "Total");
  EXPECT_EQ(total.n, 180000u);
  ASSERT_EQ(total.percentiles.size(), run.options.percentiles.size());
  for (const PercentileCi& p : total.percentiles) {
    EXPECT_LE(p.low_ns, p.value_ns) << p.percentile;
    EXPECT_GE(p.high_ns, p.value_ns) << p.percentile;
  }
  // p50 of 180,000 samples: a narrow interval; p99.99 (18 beyond it): a wide one.
  const PercentileCi& p50 = total.percentiles[0];
  EXPECT_LT(static_cast<double>(p50.high_ns - p50.low_ns) / static_cast<double>(p50.value_ns), 0.02);
  EXPECT_FALSE(p50.clamped);
  const PercentileCi& top = total.percentiles.back();
  EXPECT_GT(top.high_ns - top.low_ns, p50.high_ns - p50.low_ns);
}

// The server stops answering in the last third: the throughput falls and the p99
// climbs; the check says which.
TEST(ValidityTest, AStallInTheLastThirdIsNotAStationaryRun) {
  FakeRun run(9, [](int s) { return s < 6 ? 20000 : 2000; }, [](int s) { return s < 6 ? 100e3 : 900e3; });
  const Validity v = AssessRun(run.options, run.result);
  const ValidityCheck* st = Find(v, "stationarity");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->status, CheckStatus::kSuspect) << st->figure;
  EXPECT_NE(st->reason.find("throughput"), std::string::npos) << st->reason;
  EXPECT_NE(st->reason.find("p99"), std::string::npos) << st->reason;
  EXPECT_TRUE(v.suspect());
  EXPECT_NE(v.Verdict().find("stationarity"), std::string::npos) << v.Verdict();
}

TEST(ValidityTest, FewerThanThreeFullSecondsAreNotJudgedForStationarity) {
  FakeRun run(2, [](int) { return 1000; }, [](int) { return 100e3; });
  const Validity v = AssessRun(run.options, run.result);
  const ValidityCheck* st = Find(v, "stationarity");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(st->status, CheckStatus::kNotJudged);
}

// Latencies that drift slowly through the run: neighbours alike at every lag tried.
TEST(ValidityTest, LatenciesCorrelatedOverLongSpansAreNotIndependent) {
  LoadOptions o;
  RunResult r;
  r.threads.emplace_back(1);
  r.totals = ThreadStats(1);
  for (int i = 0; i < 200000; ++i) {
    const int64_t v = 100000 + static_cast<int64_t>(50000 * std::sin(i / 3000.0));
    r.threads[0].latency_runs.Offer(v);
    r.totals.commands[0].latency_ns.Record(v);
  }
  r.totals.commands[0].ops = 200000;
  r.measured_s = 1;
  const Validity v = AssessRun(o, r);
  const ValidityCheck* ind = Find(v, "independence");
  ASSERT_NE(ind, nullptr);
  EXPECT_EQ(ind->status, CheckStatus::kSuspect) << ind->figure;
  EXPECT_NE(ind->figure.find("still there at lag 128"), std::string::npos) << ind->figure;
  // The same latencies shuffled: the drift's neighbours are broken up.
  std::vector<int64_t> values;
  for (int i = 0; i < 200000; ++i) values.push_back(100000 + static_cast<int64_t>(50000 * std::sin(i / 3000.0)));
  std::shuffle(values.begin(), values.end(), std::mt19937_64(5));
  RunResult shuffled = r;
  shuffled.threads[0].latency_runs = BlockSample();
  for (int64_t v : values) shuffled.threads[0].latency_runs.Offer(v);
  const Validity w = AssessRun(o, shuffled);
  const ValidityCheck* again = Find(w, "independence");
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->status, CheckStatus::kPass) << again->figure;
}

std::vector<std::vector<std::vector<double>>> Gaps(bool poisson, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> e(1.0 / 500e3);
  std::vector<std::vector<std::vector<double>>> threads(2);
  for (auto& t : threads) {
    for (int b = 0; b < 8; ++b) {
      std::vector<double> block;
      for (int i = 0; i < 256; ++i) block.push_back(poisson ? e(rng) : 500e3 + (i % 7) * 1000.0);
      t.push_back(block);
    }
  }
  return threads;
}

TEST(ValidityTest, PoissonGapsPassTheFitAndConstantOnesFailIt) {
  for (uint64_t seed : {1, 2, 3}) {
    EXPECT_EQ(CheckInterArrival(true, Gaps(true, seed)).status, CheckStatus::kPass) << seed;
  }
  const ValidityCheck constant_as_poisson = CheckInterArrival(true, Gaps(false, 1));
  EXPECT_EQ(constant_as_poisson.status, CheckStatus::kSuspect) << constant_as_poisson.figure;
  EXPECT_NE(constant_as_poisson.reason.find("Poisson"), std::string::npos);
  EXPECT_EQ(CheckInterArrival(false, Gaps(false, 1)).status, CheckStatus::kPass);
  EXPECT_EQ(CheckInterArrival(false, Gaps(true, 1)).status, CheckStatus::kSuspect);  // CV ~1
  EXPECT_EQ(CheckInterArrival(true, {}).status, CheckStatus::kNotJudged);
}

// The Tarantool study's sample output in shape: a mean of 28.28 ms that percentiles of
// at most 12 ms cannot produce, with Little's law (18,000 in flight at 633,142 req/s)
// matching the mean. The consistency check catches the mean; Little's law holds.
TEST(ValidityTest, AMeanThePercentilesCannotProduceIsCaught) {
  LatencyFigures f;
  f.label = "Total";
  f.mean_ns = 28.28e6;
  f.min_ns = 0.2e6;
  f.max_ns = 12e6;
  f.percentiles = {{50, 8e6}, {90, 10e6}, {99, 11.5e6}, {99.9, 12e6}};
  f.ops = 633142.0 * 60;
  f.throughput_per_s = 633142;
  f.in_flight = 18000;
  const ValidityCheck mean = CheckMeanInBounds(f);
  EXPECT_EQ(mean.status, CheckStatus::kSuspect) << mean.figure;
  const ValidityCheck little = CheckLittlesLaw(f);
  EXPECT_EQ(little.status, CheckStatus::kPass) << little.figure;
  f.mean_ns = 9e6;  // a mean the percentiles allow
  EXPECT_EQ(CheckMeanInBounds(f).status, CheckStatus::kPass);
  EXPECT_EQ(CheckLittlesLaw(f).status, CheckStatus::kSuspect);  // now 18,000 vs 5,698
  f.percentiles = {{50, 8e6}, {90, 7e6}};  // not ascending
  EXPECT_EQ(CheckMeanInBounds(f).status, CheckStatus::kSuspect);
}

TEST(ValidityTest, ReportJsonIsCheckedFromItsOwnNumbers) {
  nlohmann::json run = {
      {"options", {{"loop", "closed"}, {"connections", 18000}, {"pipeline", 1}, {"cluster", false}}},
      {"totals",
       {{"command", "Total"},
        {"ops_per_sec", 633142},
        {"latency",
         {{"count", 1000000},
          {"min_us", 200},
          {"mean_us", 28280},
          {"max_us", 12000},
          {"percentiles_us", {{"50", 8000}, {"90", 10000}, {"99", 11500}, {"99.9", 12000}}}}}}}};
  const auto checks = CheckReportJson(run);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].status, CheckStatus::kSuspect) << checks[0].figure;  // the mean
  EXPECT_EQ(checks[1].status, CheckStatus::kPass) << checks[1].figure;     // Little's law
  EXPECT_TRUE(CheckReportJson(nlohmann::json::array()).empty());
  EXPECT_TRUE(CheckReportJson({{"totals", 3}}).empty());
}

// --schedule per-thread: a wake-up's requests leave together, so their gaps say nothing
// of the schedule; the inter-arrival check is not judged (the send lag check is), and a
// per-connection run with the same gaps is judged (here: the gaps of a constant
// schedule sent three at a time, suspect).
TEST(ValidityTest, InterArrivalIsNotJudgedUnderThePerThreadSchedule) {
  FakeRun run(3, [](int) { return 1000; }, [](int) { return 100e3; });
  run.options.rate = 3000;
  for (int i = 0; i < 3000; ++i) run.result.threads[0].send_gaps.Offer(i % 3 == 0 ? 1'000'000 : 0);
  const Validity per_connection = AssessRun(run.options, run.result);
  EXPECT_EQ(Find(per_connection, "inter-arrival")->status, CheckStatus::kSuspect);
  run.options.schedule_per_thread = true;
  const Validity per_thread = AssessRun(run.options, run.result);
  const ValidityCheck* c = Find(per_thread, "inter-arrival");
  EXPECT_EQ(c->status, CheckStatus::kNotJudged);
  EXPECT_NE(c->reason.find("--schedule per-thread"), std::string::npos) << c->reason;
}

TEST(ValidityTest, TheInstrumentsOwnChecksAreGathered) {
  FakeRun run(3, [](int) { return 1000; }, [](int) { return 100e3; });
  run.result.threads[0].cpu_user_s = 2.9;  // 97% of a core over 3 s
  run.result.totals.commands[0].zero_latency = 100;  // 3.3%
  run.result.unanswered = 5;
  const Validity v = AssessRun(run.options, run.result);
  EXPECT_EQ(Find(v, "client saturation")->status, CheckStatus::kSuspect);
  EXPECT_EQ(Find(v, "clock")->status, CheckStatus::kSuspect);
  EXPECT_EQ(Find(v, "unanswered")->status, CheckStatus::kSuspect);
  EXPECT_EQ(Find(v, "cross-check")->status, CheckStatus::kNotJudged);
  EXPECT_EQ(Find(v, "rate")->status, CheckStatus::kNotJudged);  // closed loop
  const auto j = ValidityJson(v);
  EXPECT_EQ(j["verdict"], "suspect");
  // 10 connections kept busy, 1,000 ops/s at 100 µs: Little's law is off too.
  EXPECT_EQ(Find(v, "Little's law")->status, CheckStatus::kSuspect);
  EXPECT_EQ(j["reasons"].size(), 4u);
  EXPECT_EQ(j["checks"].size(), v.checks.size());
}

}  // namespace
}  // namespace memstand
