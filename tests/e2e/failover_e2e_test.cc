// `memstand scenario run failover` against real servers, at small sizes: each fault kind
// on each topology kind once, a planted loss that must be reported as a finding (exit
// 4), and etcd, whose contract allows no loss, with none.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "e2e/e2e_util.h"

namespace memstand::e2e {
namespace {

namespace fs = std::filesystem;

struct Ran {
  Outcome out;
  nlohmann::json doc;
};

Ran RunFailover(std::vector<std::string> extra) {
  const std::string dir = TempDir();
  std::vector<std::string> args = {"scenario", "run",   "failover", "--duration", "6s", "--fault-at",
                                   "2s",       "--pause", "2.5s",   "--rate",     "400", "--keys",
                                   "300",      "--json", dir + "/f.json", "--evidence", dir + "/ev"};
  args.insert(args.end(), extra.begin(), extra.end());
  Ran r;
  r.out = RunMemstand(args, 240);
  if (fs::exists(dir + "/f.json")) r.doc = ReadJson(dir + "/f.json");
  return r;
}

// Every cell measured: the fault at its time, the outage ended, each operation of the
// outage counted, the history kept in the evidence folder's JSON.
void ExpectMeasured(const nlohmann::json& cell, const std::string& dump) {
  EXPECT_TRUE(cell["failure"].is_null()) << dump;
  EXPECT_GT(cell["fault_s"].get<double>(), 1.5) << dump;
  ASSERT_TRUE(cell["outage_s"].is_number()) << dump;
  EXPECT_GT(cell["outage_s"].get<double>(), 0) << dump;
  EXPECT_LT(cell["outage_s"].get<double>(), 4) << dump;
  EXPECT_FALSE(cell["new_primary"].get<std::string>().empty()) << dump;
  EXPECT_GT(cell["records"].get<uint64_t>(), 1000u) << dump;
  uint64_t seconds_total = 0;
  for (const auto& s : cell["seconds"]) {
    seconds_total += s["ok"].get<uint64_t>() + s["fail"].get<uint64_t>() + s["unknown"].get<uint64_t>();
  }
  EXPECT_EQ(seconds_total, cell["records"].get<uint64_t>()) << dump;
  EXPECT_EQ(cell["checks"].size(), 2u) << dump;
  EXPECT_EQ(cell["history_file"].get<std::string>().rfind("histories/", 0), 0u) << dump;
}

TEST(FailoverE2E, RedisClusterKillAndPauseAreMeasured) {
  Ran r = RunFailover({"--only", "redis-cluster"});
  // 0, or 4 when this run showed the contract's documented loss (or a stale read).
  ASSERT_TRUE(r.out.exit_code == 0 || r.out.exit_code == 4) << r.out.output;
  ASSERT_EQ(r.doc["cells"].size(), 2u) << r.out.output;
  for (const auto& cell : r.doc["cells"]) ExpectMeasured(cell, r.out.output);
  EXPECT_EQ(r.doc["cells"][0]["fault"], "kill");
  EXPECT_EQ(r.doc["cells"][1]["fault"], "pause");
  // Killed: the replica was promoted, and the first write acknowledged elsewhere came from it.
  const auto& kill = r.doc["cells"][0];
  EXPECT_EQ(kill["new_primary"], kill["successor"]) << r.out.output;
  EXPECT_TRUE(kill["detect_s"].is_number()) << r.out.output;
  EXPECT_LE(kill["detect_s"].get<double>(), kill["promote_s"].get<double>()) << r.out.output;
  EXPECT_EQ(r.out.exit_code == 4, !r.doc["anomalies"].empty()) << r.out.output;
  EXPECT_NE(r.out.output.find("Results: the fault, its detection"), std::string::npos);
}

// Through the engine's Sentinel target: the Sentinels name a replica, the client finds it.
TEST(FailoverE2E, RedisSentinelKillAndPauseAreMeasured) {
  Ran r = RunFailover({"--only", "redis-sentinel"});
  ASSERT_TRUE(r.out.exit_code == 0 || r.out.exit_code == 4) << r.out.output;
  ASSERT_EQ(r.doc["cells"].size(), 2u) << r.out.output;
  for (const auto& cell : r.doc["cells"]) {
    ExpectMeasured(cell, r.out.output);
    EXPECT_EQ(cell["victim"], "primary") << r.out.output;
    EXPECT_EQ(cell["new_primary"].get<std::string>().rfind("replica-", 0), 0u) << r.out.output;
    EXPECT_TRUE(cell["detect_s"].is_number()) << r.out.output;
  }
  // Killed: the first write acknowledged elsewhere is the promoted replica's.
  EXPECT_FALSE(r.doc["cells"][0]["first_ok_elsewhere_node"].get<std::string>().empty()) << r.out.output;
  EXPECT_EQ(r.out.exit_code == 4, !r.doc["anomalies"].empty()) << r.out.output;
}

// WAIT 1 after every write (the primary killed under Sentinel): a write and its WAIT are
// one operation, so the history holds one record per write, as many as its reads (the mix
// alternates them on each connection: a WAIT recorded as well would double the writes),
// and the writes the replicas acknowledged are ok. From the JSON, whose counts are the
// history's.
TEST(FailoverE2E, RedisSentinelWaitRecordsEachWriteOnceAndItsWritesOk) {
  Ran r = RunFailover({"--only", "redis-sentinel-wait", "--faults", "kill"});
  ASSERT_TRUE(r.out.exit_code == 0 || r.out.exit_code == 4) << r.out.output;
  ASSERT_EQ(r.doc["cells"].size(), 1u) << r.out.output;
  const auto& cell = r.doc["cells"][0];
  EXPECT_EQ(cell["configuration"], "redis-sentinel-wait");
  EXPECT_TRUE(cell["failure"].is_null()) << r.out.output;
  EXPECT_GT(cell["writes"]["ok"].get<uint64_t>(), 0u) << r.out.output;
  ASSERT_GT(cell["seconds"].size(), 1u) << r.out.output;
  EXPECT_GT(cell["seconds"][0]["writes_ok"].get<uint64_t>(), 0u) << r.out.output;  // before the kill
  const auto& w = cell["writes"];
  const uint64_t writes = w["ok"].get<uint64_t>() + w["fail"].get<uint64_t>() + w["unknown"].get<uint64_t>();
  const uint64_t records = cell["records"].get<uint64_t>();
  ASSERT_LE(writes, records) << r.out.output;
  const uint64_t reads = records - writes;
  EXPECT_LE(writes, reads + 4) << r.out.output;  // 4 connections: each at most one write ahead
  EXPECT_LE(reads, writes + 4) << r.out.output;
  EXPECT_NE(r.out.output.find("redis-sentinel-wait"), std::string::npos);
  EXPECT_EQ(r.out.exit_code == 4, !r.doc["anomalies"].empty()) << r.out.output;
}

TEST(FailoverE2E, APlantedLossIsAFindingExit4) {
  Ran r = RunFailover({"--only", "redis-cluster", "--faults", "kill", "--plant-loss"});
  EXPECT_EQ(r.out.exit_code, 4) << r.out.output;
  ASSERT_EQ(r.doc["cells"].size(), 1u) << r.out.output;
  ExpectMeasured(r.doc["cells"][0], r.out.output);
  EXPECT_GT(r.doc["cells"][0]["lost"].get<uint64_t>(), 0u) << r.out.output;
  EXPECT_EQ(r.doc["verdict"], "finding");
  bool lost = false;
  for (const auto& a : r.doc["anomalies"]) {
    if (a["kind"] == "lost") {
      lost = true;
      EXPECT_GT(a["count"].get<uint64_t>(), 0u);
      EXPECT_FALSE(a["examples"].empty());
    }
  }
  EXPECT_TRUE(lost) << r.out.output;
  EXPECT_NE(r.out.output.find("Findings: the system broke its own contract"), std::string::npos) << r.out.output;
  EXPECT_NE(r.out.output.find("finding (exit code 4)"), std::string::npos) << r.out.output;
}

// etcd promises linearizability: no lost write, no non-linearizable read, kill or pause
// of the leader (a control: the checks do not cry wolf).
TEST(FailoverE2E, EtcdLosesNothingWhenItsLeaderDiesOrStops) {
  Ran r = RunFailover({"--only", "etcd"});
  EXPECT_EQ(r.out.exit_code, 0) << r.out.output;
  ASSERT_EQ(r.doc["cells"].size(), 2u) << r.out.output;
  for (const auto& cell : r.doc["cells"]) {
    ExpectMeasured(cell, r.out.output);
    EXPECT_EQ(cell["lost"], 0) << r.out.output;
    EXPECT_EQ(cell["unexpected"], 0) << r.out.output;
    EXPECT_EQ(cell["not_linearizable"], 0) << r.out.output;
    EXPECT_NE(cell["new_primary"], cell["victim"]) << r.out.output;
  }
  EXPECT_TRUE(r.doc["anomalies"].empty());
}

// Tarantool 2.6 elects no one: memstand's orchestrator detects the master's death,
// promotes a replica, and the load's RW pool (tarantool+rw://) finds it.
TEST(FailoverE2E, TarantoolKillIsFailedOverByTheScenarioAndTheLoadFindsTheNewMaster) {
  Ran r = RunFailover({"--only", "tarantool", "--faults", "kill"});
  // 0, or 4 when this run showed asynchronous replication's loss (or a stale read).
  ASSERT_TRUE(r.out.exit_code == 0 || r.out.exit_code == 4) << r.out.output;
  ASSERT_EQ(r.doc["cells"].size(), 1u) << r.out.output;
  const auto& cell = r.doc["cells"][0];
  ExpectMeasured(cell, r.out.output);
  EXPECT_EQ(cell["configuration"], "tarantool");
  EXPECT_EQ(cell["victim"], "master") << r.out.output;
  EXPECT_EQ(cell["new_primary"].get<std::string>().rfind("replica-", 0), 0u) << r.out.output;
  EXPECT_EQ(cell["successor"], cell["new_primary"]) << r.out.output;
  // Detection and promotion measured, in their order.
  ASSERT_TRUE(cell["detect_s"].is_number()) << r.out.output;
  ASSERT_TRUE(cell["promote_s"].is_number()) << r.out.output;
  EXPECT_GE(cell["detect_s"].get<double>(), cell["fault_s"].get<double>()) << r.out.output;
  EXPECT_LE(cell["detect_s"].get<double>(), cell["promote_s"].get<double>()) << r.out.output;
  // The load reached the new master: ok writes answered by another node after the fault.
  const std::string elsewhere = cell["first_ok_elsewhere_node"].get<std::string>();
  EXPECT_FALSE(elsewhere.empty()) << r.out.output;
  // The history names it "tarantool://host:port": not the killed master's host:port.
  EXPECT_EQ(elsewhere.find(cell["victim_address"].get<std::string>()), std::string::npos) << r.out.output;
  ASSERT_TRUE(cell["first_ok_elsewhere_s"].is_number()) << r.out.output;
  EXPECT_GT(cell["first_ok_elsewhere_s"].get<double>(), cell["fault_s"].get<double>()) << r.out.output;
  bool promoted = false;
  for (const auto& step : cell["schedule"]) promoted |= step.get<std::string>().find("orchestrator: ") == 0 &&
                                                        step.get<std::string>().find("promoting") != std::string::npos;
  EXPECT_TRUE(promoted) << r.out.output;
  EXPECT_EQ(r.out.exit_code == 4, !r.doc["anomalies"].empty()) << r.out.output;
}

// The master stopped longer than the detection timeout: a replica is promoted while it is
// stopped, and once it answers again the orchestrator fences it (read-only).
TEST(FailoverE2E, TarantoolPauseIsFailedOverAndTheResumedMasterFenced) {
  Ran r = RunFailover({"--only", "tarantool", "--faults", "pause"});
  ASSERT_TRUE(r.out.exit_code == 0 || r.out.exit_code == 4) << r.out.output;
  ASSERT_EQ(r.doc["cells"].size(), 1u) << r.out.output;
  const auto& cell = r.doc["cells"][0];
  ExpectMeasured(cell, r.out.output);
  EXPECT_EQ(cell["fault"], "pause");
  EXPECT_EQ(cell["new_primary"].get<std::string>().rfind("replica-", 0), 0u) << r.out.output;
  bool fenced = false;
  for (const auto& step : cell["schedule"]) fenced |= step.get<std::string>().find(": fenced (read_only") != std::string::npos;
  EXPECT_TRUE(fenced) << r.out.output;
}

}  // namespace
}  // namespace memstand::e2e

namespace memstand::e2e {
namespace {

// The state letter of `pid` (/proc/PID/stat), 0 when it is gone.
char StateOf(pid_t pid) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ? 0 : stat[close + 2];
}

// memstand stopped by `sig` while the primary is paused (SIGSTOP): afterwards no node of
// its topology runs, stopped or not, and no run folder is left.
void SignalDuringAPause(int sig) {
  const std::string root = TempDir();
  setenv("MEMSTAND_RUN_DIR", root.c_str(), 1);
  auto r = Running::Start({"scenario", "run", "failover", "--only", "redis-cluster", "--faults", "pause",
                           "--duration", "30s", "--fault-at", "1.5s", "--pause", "25s", "--rate", "200"});
  unsetenv("MEMSTAND_RUN_DIR");
  ASSERT_NE(r, nullptr);
  std::set<pid_t> nodes;
  bool paused = false;
  // At most 120 s: standing a 6-node cluster up under ASan on a loaded machine can take
  // most of a minute before the fault's 1.5 s start. Stops early if memstand exits.
  for (int i = 0; i < 12000 && !paused && StateOf(r->pid()) != 'Z'; ++i) {
    nodes = ChildrenNamed(r->pid(), "redis-server");
    for (pid_t p : nodes) paused |= StateOf(p) == 'T';
    if (!paused) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(r->pid(), sig);
  Outcome out = r->Wait(60);
  ASSERT_TRUE(paused) << "no node was seen paused:\n" << out.output;
  EXPECT_EQ(nodes.size(), 6u) << out.output;
  if (sig == SIGINT) {
    EXPECT_EQ(out.exit_code, 130) << out.output;
    EXPECT_NE(out.output.find("resume master-"), std::string::npos) << out.output;
  }
  std::string left;
  if (!AllGone(nodes, 30)) {
    for (pid_t p : nodes) {
      if (ProcessExists(p) && StateOf(p) != 'Z') left += fmt::format(" {} (state {})", p, StateOf(p));
    }
  }
  EXPECT_EQ(left, "") << "nodes still there:" << left << "\n" << out.output;
  if (sig == SIGINT) {
    EXPECT_TRUE(fs::is_empty(root)) << "a topology folder was left";
  }
}

TEST(FailoverE2E, SigintDuringAPauseResumesAndStopsEveryNode) { SignalDuringAPause(SIGINT); }

// SIGKILL leaves memstand no say: its nodes die with it (PR_SET_PDEATHSIG), the paused one
// too (SIGKILL ends a stopped process).
TEST(FailoverE2E, SigkillDuringAPauseLeavesNoNodeBehind) { SignalDuringAPause(SIGKILL); }

}  // namespace
}  // namespace memstand::e2e
