// --reconnect against real faults (issue #28): a redis-server killed (SIGKILL) and
// restarted on its port mid-run, a redis-server stopped (SIGSTOP) and continued, and a
// pool member killed. The run goes on and ends 0; what was in flight at the fault ends
// fail or unknown; the outage it prints lies between the fault and the recovery; the
// counts after a restart equal the new server's; the per-second ok/fail/unknown series
// is in the JSON and /metrics. Without --reconnect the same kill still ends the run
// (exit 1), as before.
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "core/clock.h"
#include "core/socket.h"
#include "e2e/e2e_util.h"

namespace memstand::e2e {
namespace {

using nlohmann::json;

void SleepS(double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }


class ReconnectE2E : public IoModeTest {};

uint64_t OutcomeOf(const json& run, const std::string& label, const char* which) {
  const json* c = FindCommand(run, label);
  return c == nullptr ? 0 : (*c)["outcomes"][which].get<uint64_t>();
}

TEST_P(ReconnectE2E, RedisKilledAndRestartedOnItsPort) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  auto metrics_port = PickFreePort();
  ASSERT_TRUE(metrics_port.ok());
  const std::string dir = TempDir();
  const std::string json_path = dir + "/run.json";
  auto run = Running::Start({"run", "--target", Url(*redis), "--io", Io(), "--reconnect",
                             "--reconnect-min", "20ms", "--reconnect-max", "200ms", "--duration", "7s",
                             "-c", "4", "--json", json_path, "--metrics-addr",
                             "127.0.0.1:" + std::to_string(*metrics_port), "--metrics-linger", "2s"});
  ASSERT_NE(run, nullptr);
  ASSERT_TRUE(WaitForCalls(*redis, "set", 1000)) << run->OutputSoFar();
  SleepS(1.0);
  const double killed_at = UnixNowS();
  ASSERT_TRUE(redis->node().Kill().ok());
  SleepS(2.0);
  const double restart_at = UnixNowS();
  ASSERT_TRUE(redis->node().Restart().ok()) << redis->LogTail(20);
  const double restarted_at = UnixNowS();
  ASSERT_TRUE(run->WaitForOutput("[9] Verdict", 60)) << run->OutputSoFar();
  // The linger keeps /metrics up with the final totals.
  const std::string metrics = Scrape(*metrics_port);
  Outcome out = run->Wait(60);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const json rep = ReadJson(json_path);

  // Every connection was lost once and opened again.
  const json& a = rep["availability"];
  EXPECT_GE(a["connections_lost"].get<int>(), 4) << a.dump();
  EXPECT_GE(a["reconnects"].get<int>(), 4) << a.dump();
  EXPECT_NE(out.output.find("availability: connections lost"), std::string::npos) << out.output;

  // The longest SET outage starts after the kill and ends after the restart began.
  const double t0 = rep["series_start_unix_s"];
  const json& longest = a["commands"]["SET"]["longest"];
  ASSERT_FALSE(longest.empty()) << a.dump();
  const double start = t0 + longest[0]["start_s"].get<double>();
  const double end = start + longest[0]["length_s"].get<double>();
  EXPECT_TRUE(longest[0]["recovered"].get<bool>()) << a.dump();
  EXPECT_GE(start, killed_at - 0.05) << a.dump();
  EXPECT_GE(end, restart_at - 0.05) << "no ok operation can come before the new server exists: " << a.dump();
  EXPECT_LE(start, restart_at) << a.dump();
  EXPECT_LE(end, restarted_at + 3.0) << a.dump();
  EXPECT_NE(out.output.find("outage(s) with no ok operation"), std::string::npos) << out.output;

  // What was in flight at the kill ended unknown (SET) or fail (GET), never ok; the
  // series holds every operation's outcome.
  const uint64_t not_ok = OutcomeOf(rep, "SET", "unknown") + OutcomeOf(rep, "SET", "fail") +
                          OutcomeOf(rep, "GET", "unknown") + OutcomeOf(rep, "GET", "fail");
  EXPECT_GE(not_ok, 1u) << rep["commands"].dump();
  EXPECT_EQ(SeriesSum(rep, "ok"), OutcomeOf(rep, "SET", "ok") + OutcomeOf(rep, "GET", "ok"));
  EXPECT_EQ(SeriesSum(rep, "fail") + SeriesSum(rep, "unknown"), not_ok);
  EXPECT_GE(a["seconds_without_ok"].size(), 1u) << "2 s down: at least one whole second with no ok";

  // The counts sent since the loss equal the new server's.
  const json& cc = rep["cross_check"];
  ASSERT_TRUE(cc["available"].get<bool>()) << cc.dump();
  EXPECT_TRUE(cc.value("server_restarted", false)) << cc.dump();
  // (The restart's own readiness check, PING and INFO, is in the new server's counts:
  // the data commands' rows.)
  int rows = 0;
  for (const json& row : cc["commands"]) {
    if (row["command"] != "set" && row["command"] != "get") continue;
    ++rows;
    EXPECT_EQ(row["memstand"], row["server"]) << row.dump();
  }
  EXPECT_EQ(rows, 2) << cc.dump();

  // /metrics: ok, fail and unknown per command; promtool reads them.
  EXPECT_NE(metrics.find("memstand_operations_total{command=\"SET\",outcome=\"unknown\"}"), std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("memstand_operations_total{command=\"GET\",outcome=\"ok\"}"), std::string::npos)
      << metrics;
  ASSERT_NE(metrics.find("\r\n\r\n"), std::string::npos) << metrics;
  ExpectPromtoolAccepts(metrics.substr(metrics.find("\r\n\r\n") + 4));
}

TEST_P(ReconnectE2E, StoppedServerGivesUnknownThenOkAgain) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  const std::string json_path = TempDir() + "/run.json";
  auto run = Running::Start({"run", "--target", Url(*redis), "--io", Io(), "--reconnect",
                             "--reconnect-min", "20ms", "--reconnect-max", "200ms", "--request-timeout",
                             "300ms", "--connect-timeout", "300ms", "--duration", "6s", "-c", "2", "--ratio",
                             "1:0", "--json", json_path});
  ASSERT_NE(run, nullptr);
  ASSERT_TRUE(WaitForCalls(*redis, "set", 1000)) << run->OutputSoFar();
  ASSERT_TRUE(redis->node().Pause().ok());
  SleepS(2.0);
  ASSERT_TRUE(redis->node().Resume().ok());
  Outcome out = run->Wait(60);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const json rep = ReadJson(json_path);
  // Requests timed out with no reply: each SET may have run, so unknown, not fail.
  EXPECT_GE(OutcomeOf(rep, "SET", "unknown"), 2u) << rep["commands"].dump();
  EXPECT_GE(rep["availability"]["connections_lost"].get<int>(), 2);
  // ok again after the server continued: the last whole second has ok operations.
  const json& series = rep["series"]["Total"];
  ASSERT_GE(series.size(), 5u);
  EXPECT_GT(series[series.size() - 2]["ok"].get<uint64_t>(), 0u) << series.dump();
  // The server ran some of the unknown SETs once it continued: its count lies within
  // them. (Its INFO count holds this test's own polls too: the SET row alone.)
  const json& cc = rep["cross_check"];
  ASSERT_TRUE(cc["available"].get<bool>()) << cc.dump();
  bool set_row = false;
  for (const json& row : cc["commands"]) {
    if (row["command"] != "set") continue;
    set_row = true;
    const int64_t memstand = row["memstand"], server = row["server"];
    EXPECT_LE(server, memstand) << row.dump();
    EXPECT_GE(server, memstand - row.value("unknown", int64_t{0})) << row.dump();
  }
  EXPECT_TRUE(set_row) << cc.dump();
}

TEST_P(ReconnectE2E, PoolMemberKilledItsClientsMove) {
  auto first = StartRedis();
  auto second = StartRedis();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  const std::string json_path = TempDir() + "/run.json";
  auto run = Running::Start({"run", "--target", Url(*first), "--target", Url(*second), "--io", Io(),
                             "--reconnect", "--reconnect-min", "20ms", "--reconnect-max", "200ms", "--duration",
                             "5s", "-c", "4", "--ratio", "1:0", "--json", json_path});
  ASSERT_NE(run, nullptr);
  ASSERT_TRUE(WaitForCalls(*second, "set", 1000)) << run->OutputSoFar();
  ASSERT_TRUE(second->node().Kill().ok());
  const int64_t first_at_kill = CommandCalls(*first, "set");
  Outcome out = run->Wait(60);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const json rep = ReadJson(json_path);
  // The killed member's two clients were lost and opened again at once on the other
  // member: no attempt failed (a client that stayed on its member would fail every one).
  const json& avail = rep["availability"];
  EXPECT_EQ(avail["connections_lost"].get<int>(), 2) << avail.dump();
  EXPECT_EQ(avail["reconnects"].get<int>(), 2) << avail.dump();
  EXPECT_EQ(avail["reconnect_failures"].get<int>(), 0) << avail.dump();
  EXPECT_GT(CommandCalls(*first, "set"), first_at_kill) << out.output;
}

// --balance per-request: each client's requests alternate over the members (an exact
// split), and a killed member's share goes to the other at once: the clients do not
// wait for it (they keep trying it in the background).
TEST_P(ReconnectE2E, PerRequestPoolSplitsEvenlyAndLosesNoTimeToALostMember) {
  auto first = StartRedis();
  auto second = StartRedis();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  const json even = RunOk({"--target", Url(*first), "--target", Url(*second), "--balance", "per-request",
                           "--io", Io(), "-c", "4", "--requests", "4000", "--ratio", "1:0"});
  EXPECT_EQ(CommandCalls(*first, "set"), 2000);
  EXPECT_EQ(CommandCalls(*second, "set"), 2000);
  ASSERT_EQ(even["pool"]["targets"].size(), 2u) << even["pool"].dump();
  EXPECT_EQ(even["pool"]["targets"][0]["connections"], 4) << "every client connects to every member";

  const std::string json_path = TempDir() + "/run.json";
  auto run = Running::Start({"run", "--target", Url(*first), "--target", Url(*second), "--balance", "per-request",
                             "--io", Io(), "--reconnect", "--reconnect-min", "20ms", "--reconnect-max", "200ms",
                             "--duration", "4s", "-c", "4", "--ratio", "1:0", "--json", json_path});
  ASSERT_NE(run, nullptr);
  ASSERT_TRUE(WaitForCalls(*second, "set", 4000)) << run->OutputSoFar();
  ASSERT_TRUE(second->node().Kill().ok());
  const int64_t first_at_kill = CommandCalls(*first, "set");
  Outcome out = run->Wait(60);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  const json rep = ReadJson(json_path);
  const json& a = rep["availability"];
  EXPECT_EQ(a["connections_lost"].get<int>(), 4) << a.dump();
  EXPECT_EQ(a["reconnects"].get<int>(), 0) << "the member stayed down: " << a.dump();
  EXPECT_GT(a["reconnect_failures"].get<int>(), 0) << a.dump();
  EXPECT_GT(CommandCalls(*first, "set"), first_at_kill) << out.output;
  // No second without an ok operation: the other member took the whole load.
  EXPECT_TRUE(a["seconds_without_ok"].empty()) << a.dump();
}

TEST_P(ReconnectE2E, WithoutReconnectAKillEndsTheRun) {
  auto redis = StartRedis();
  ASSERT_NE(redis, nullptr);
  auto run = Running::Start({"run", "--target", Url(*redis), "--io", Io(), "--duration", "20s", "-c", "2"});
  ASSERT_NE(run, nullptr);
  ASSERT_TRUE(WaitForCalls(*redis, "set", 1000)) << run->OutputSoFar();
  ASSERT_TRUE(redis->node().Kill().ok());
  Outcome out = run->Wait(60);
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_EQ(out.output.find("availability:"), std::string::npos) << out.output;
}

INSTANTIATE_TEST_SUITE_P(EpollAndUring, ReconnectE2E, ::testing::Values("epoll", "uring"));

}  // namespace
}  // namespace memstand::e2e
