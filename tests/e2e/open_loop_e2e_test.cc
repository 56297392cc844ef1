// The open loop (--rate) of the real memstand binary against a real redis-server:
// coordinated omission is corrected, the schedule is kept and reported.
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "client/redis_client.h"
#include "e2e/e2e_util.h"
#include "stand/local_redis.h"

namespace memstand::e2e {
namespace {

double Ms(const nlohmann::json& latency, const std::string& percentile) {
  return latency["percentiles_us"][percentile].get<double>() / 1000.0;
}

// A 0.5 s server stall during an open-loop run at R = 2000 requests/s for D = 4 s
// (N = R * D = 8000 requests, 10 connections, at most 1 in flight each).
// Arithmetic: the R * 0.5 = 1000 requests intended during the stall, at t0 + u, cannot
// be answered before t0 + 0.5, so their corrected latency is at least 0.5 - u. The
// share of all requests with corrected latency >= x is then at least (0.5 - x) / D,
// which is >= 1% for x <= 0.5 - 0.01 * D = 0.46 s: corrected p99 >= 460 ms (asserted
// with 10 ms of slack for the 0.5 ms send grid), and the request intended at the
// stall's start waits ~0.5 s (max >= 490 ms). Only the requests already sent when the
// stall began (<= 10 of 8000, 0.125%) see it from their actual send, so the service
// time's p99 stays at loopback scale (asserted < 100 ms, generous for a noisy VM),
// while its max shows the stall happened.
TEST(OpenLoopE2E, ServerStallShowsInCorrectedLatencyNotInServiceTime) {
  auto redis = StartRedis({{"enable-debug-command", "yes"}});
  ASSERT_NE(redis, nullptr);
  std::string json = TempDir() + "/run.json";
  auto run = Running::Start({"run", "--target", Url(*redis), "--rate", "2000", "--duration", "4s",
                             "--clients", "10", "--json", json});
  ASSERT_NE(run, nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  RedisClientOptions co;
  co.host = redis->host();
  co.port = redis->port();
  auto side = RedisClient::Connect(co);
  ASSERT_TRUE(side.ok()) << side.status().message();
  auto slept = (*side)->Command({"DEBUG", "SLEEP", "0.5"});
  ASSERT_TRUE(slept.ok()) << slept.status().message();
  ASSERT_FALSE(slept->is_error()) << slept->str;
  Outcome out = run->Wait(60);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  nlohmann::json j = ReadJson(json);
  const nlohmann::json& total = j["totals"];
  EXPECT_EQ(j["latency_from"], "intended_send");
  EXPECT_EQ(total["ops"], 8000);
  EXPECT_GE(Ms(total["latency"], "99"), 450.0) << out.output;
  EXPECT_GE(total["latency"]["max_us"].get<double>() / 1000.0, 490.0) << out.output;
  EXPECT_LT(Ms(total["service_time"], "99"), 100.0) << out.output;
  EXPECT_GE(total["service_time"]["max_us"].get<double>() / 1000.0, 400.0) << out.output;
  EXPECT_EQ(j["schedule"]["requested_per_s"], 2000.0);
  EXPECT_FALSE(j["schedule"]["below_99pct_of_requested"].get<bool>()) << out.output;
  EXPECT_EQ(j["schedule"]["unsent_intended"], 0);
  EXPECT_NE(out.output.find("Service time"), std::string::npos);
}

// One connection with one request in flight cannot carry a million requests/s to
// Redis: the run is flagged, with the achieved rate, and still exits 0.
TEST(OpenLoopE2E, UnreachableRateIsFlagged) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  std::string json = TempDir() + "/run.json";
  Outcome out = RunMemstand({"run", "--target", Url(*redis), "--rate", "1M", "--duration", "1s",
                             "--clients", "1", "--json", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("below 99% of --rate"), std::string::npos) << out.output;
  nlohmann::json j = ReadJson(json);
  EXPECT_TRUE(j["schedule"]["below_99pct_of_requested"].get<bool>());
  EXPECT_LT(j["schedule"]["achieved_per_s"].get<double>(), 990000.0);
  // The run still ends on time (1 s, plus 1 s of grace for late sends); what the
  // schedule could not send is counted.
  EXPECT_LT(j["measured_s"].get<double>(), 3.0);
  EXPECT_GT(j["schedule"]["unsent_intended"].get<uint64_t>(), 0u);
  // The requests held back by the one-in-flight cap carry their wait: corrected latency
  // is far above the service time (the schedule falls behind for the whole second).
  EXPECT_GT(Ms(j["totals"]["latency"], "50"), 10 * Ms(j["totals"]["service_time"], "50"));
}

// --requests with --rate: exactly that many, paced, and the server counted them all.
// Poisson arrivals: over a fixed time the count is Poisson(R * D) = Poisson(3000),
// standard deviation ~55; the test accepts +-6 sd.
TEST(OpenLoopE2E, RequestsAndPoissonArrivals) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  std::string json = TempDir() + "/run.json";
  Outcome out = RunMemstand({"run", "--target", Url(*redis), "--rate", "5000", "--requests",
                             "1000", "--exclusive", "--json", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  nlohmann::json j = ReadJson(json);
  EXPECT_EQ(j["totals"]["ops"], 1000);
  EXPECT_FALSE(j["cross_check"]["mismatch"].get<bool>());
  // 1000 requests at 5000/s take 0.2 s of schedule.
  EXPECT_GT(j["measured_s"].get<double>(), 0.19);

  out = RunMemstand({"run", "--target", Url(*redis), "--rate", "3000", "--arrival", "poisson",
                     "--duration", "1s", "--json", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  j = ReadJson(json);
  EXPECT_EQ(j["options"]["arrival"], "poisson");
  EXPECT_NEAR(j["totals"]["ops"].get<double>(), 3000, 6 * 55) << out.output;
}

// --spin and --realtime: the run says it polled before its send times and on which
// scheduler its thread ran, in the text and in the JSON (the precision they buy is
// measured in bench/README.md, "Open loop precision").
TEST(OpenLoopE2E, SpinAndRealtimeAreReportedAndRecorded) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  std::string json = TempDir() + "/run.json";
  std::vector<std::string> args = {"run", "--target", Url(*redis), "--rate", "2000", "--duration", "1s",
                                   "--clients", "4", "--spin", "200us", "--json", json};
  const bool root = geteuid() == 0;
  if (root) args.insert(args.end(), {"--realtime", "1"});
  Outcome out = RunMemstand(args);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("polling the last 200 µs before each send time (--spin)"), std::string::npos)
      << out.output;
  EXPECT_NE(out.output.find("spent spinning before send times"), std::string::npos) << out.output;
  nlohmann::json j = ReadJson(json);
  EXPECT_EQ(j["options"]["spin_us"], 200.0);
  EXPECT_EQ(j["options"]["realtime_priority"], root ? 1 : 0);
  const nlohmann::json& thread = j["client"]["threads"][0];
  EXPECT_GT(thread["spin_polls"].get<uint64_t>(), 0u);
  EXPECT_GT(thread["spin_s"].get<double>(), 0.0);
  EXPECT_EQ(thread["realtime_priority"], root ? 1 : 0);
  if (root) {
    EXPECT_NE(out.output.find("SCHED_FIFO 1"), std::string::npos) << out.output;
  }

  // Without --spin: no spin in the options (0), none counted.
  out = RunMemstand({"run", "--target", Url(*redis), "--rate", "2000", "--duration", "1s", "--clients", "4",
                     "--json", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  j = ReadJson(json);
  EXPECT_EQ(j["options"]["spin_us"], 0.0);
  EXPECT_EQ(j["client"]["threads"][0]["spin_polls"], 0);
}

// --schedule per-thread: the run says whose schedule it kept, in the text and the JSON,
// and keeps it whole (2000 requests at 2000/s for 1 s); without --rate, or with another
// value, the flag is refused with a reason and nothing runs.
TEST(OpenLoopE2E, PerThreadScheduleIsReportedAndRefusedWithoutRate) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  std::string json = TempDir() + "/run.json";
  Outcome out = RunMemstand({"run", "--target", Url(*redis), "--rate", "2000", "--duration", "1s", "--clients", "4",
                             "--schedule", "per-thread", "--json", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  EXPECT_NE(out.output.find("(2000 per load thread, each wake-up's requests together on one connection)"),
            std::string::npos)
      << out.output;
  nlohmann::json j = ReadJson(json);
  EXPECT_EQ(j["options"]["schedule"], "per-thread");
  EXPECT_EQ(j["totals"]["ops"], 2000);
  EXPECT_EQ(j["schedule"]["unsent_intended"], 0);

  out = RunMemstand({"run", "--target", Url(*redis), "--duration", "1s", "--schedule", "per-thread"});
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find("--schedule: applies to the open loop; give --rate too"), std::string::npos)
      << out.output;
  out = RunMemstand({"run", "--target", Url(*redis), "--rate", "100", "--schedule", "per-request"});
  EXPECT_EQ(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find("--schedule"), std::string::npos) << out.output;
  // The SLO search is an open loop at rates of its own: it takes the flag without --rate.
  out = RunMemstand({"sweep", "--target", Url(*redis), "--slo", "p99<=50ms", "--schedule", "per-thread",
                     "--slo-max-runs", "1", "--duration", "0.5s"},
                    120);
  EXPECT_NE(out.exit_code, 2) << out.output;
  EXPECT_NE(out.output.find("arrivals constant, a schedule per thread"), std::string::npos) << out.output;
  // So is a sweep of the rate.
  out = RunMemstand({"sweep", "--target", Url(*redis), "--sweep-rate", "500,1000", "--schedule", "per-thread",
                     "--duration", "0.3s"},
                    120);
  EXPECT_EQ(out.exit_code, 0) << out.output;
}

}  // namespace
}  // namespace memstand::e2e
