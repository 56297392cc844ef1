// `memstand scenario run partition` against real redis-servers and Sentinels, at small
// sizes: the clients with the old primary lose what it acknowledged during the
// partition (a finding, exit 4, with its evidence); with them on the majority's side it
// takes (next to) nothing; min-replicas-to-write makes the old primary refuse writes; an
// interrupt in the middle of the partition leaves nothing behind.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "e2e/e2e_util.h"

namespace memstand::e2e {
namespace {

namespace fs = std::filesystem;

struct Ran {
  Outcome out;
  nlohmann::json doc;
  std::string dir;
  /// The report, then the Sentinels' logs of the evidence folder (their tails): what a
  /// failed check prints, so a failover that did not happen says why (an election lost,
  /// no replica good enough, a timeout).
  std::string dump;
};

// The evidence's Sentinel logs (the scenario keeps their tails), each under its name.
std::string SentinelLogs(const std::string& evidence) {
  std::string out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(evidence + "/logs", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find("sentinel") == std::string::npos) continue;
    out += "\n== " + name + "\n" + ReadFile(e.path().string());
  }
  return out;
}

// The port of a redis-sentinel from its process title ("redis-sentinel HOST:PORT
// [sentinel]"), 0 when it has none yet.
int SentinelPort(pid_t pid) {
  std::string title;
  try {
    title = ReadFile("/proc/" + std::to_string(pid) + "/cmdline");
  } catch (const std::exception&) {  // a process on its way out: its cmdline reads ESRCH
    return 0;
  }
  const size_t space = title.find(' '), colon = title.find(':', space == std::string::npos ? 0 : space);
  if (space == std::string::npos || colon == std::string::npos) return 0;
  return std::atoi(title.c_str() + colon + 1);
}

// Until `stop`: every redis-sentinel the scenario `pid` starts is given Sentinel's own
// periods of 1 s between INFOs (10 s by default to a replica) and 0.5 s between hellos
// (2 s), as soon as it answers (SENTINEL DEBUG, Redis 7). A Sentinel makes a node that
// comes back saying it is a primary a replica once it has been up for 4 hello periods
// and an INFO says so: ~2.5 s after the heal, not ~10 s. The same steps, sooner; a
// Sentinel missed only makes the demotion later (the scenario's settle waits for it).
void QuickenSentinels(pid_t pid, const std::atomic<bool>& stop) {
  std::set<pid_t> done;
  while (!stop.load()) {
    // A thread of its own: nothing may escape it (an exception here would end the test
    // process), and a round that fails only leaves a Sentinel for the next one.
    try {
      for (pid_t s : ChildrenNamed(pid, "redis-sentinel")) {
        const int port = done.count(s) != 0 ? 0 : SentinelPort(s);
        if (port == 0) continue;
        auto c = RedisClient::Connect("127.0.0.1", port, 1000);
        if (!c.ok()) continue;
        auto r = (*c)->Command({"SENTINEL", "DEBUG", "info-period", "1000", "publish-period", "500"});
        if (r.ok() && r->str == "OK") done.insert(s);
      }
    } catch (const std::exception&) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// A partition from 2 s to 9 s; the old primary is demoted ~2.5 s after the heal with
// the Sentinels quickened (above; ~10 s without), so 14 s of load. The Sentinels name a
// new primary ~2.4 s after the cut when the machine is idle (SDOWN after 1 s, the
// election, SLAVEOF NO ONE, the replica's next INFO); 7 s leaves that room for a CI run's
// three tests at once on two cores, where 5 s once saw no promotion at all.
Ran RunPartition(std::vector<std::string> extra) {
  const std::string dir = TempDir();
  std::vector<std::string> args = {"scenario", "run",     "partition", "--duration", "14s", "--cut-at",
                                   "2s",       "--partition", "7s",    "--rate",     "300", "--keys",
                                   "20000",    "--json",  dir + "/p.json", "--evidence", dir + "/ev"};
  args.insert(args.end(), extra.begin(), extra.end());
  Ran r;
  r.dir = dir;
  auto running = Running::Start(args);
  if (running == nullptr) return r;
  std::atomic<bool> stop{false};
  std::thread quicken([&] { QuickenSentinels(running->pid(), stop); });
  r.out = running->Wait(300);
  stop = true;
  quicken.join();
  if (fs::exists(dir + "/p.json")) r.doc = ReadJson(dir + "/p.json");
  r.dump = r.out.output + SentinelLogs(dir + "/ev");
  return r;
}

// A measured cell: the partition at its times, a replica promoted during it, the old
// primary demoted after the heal and caught up, every operation counted once per second.
void ExpectMeasured(const nlohmann::json& c, const std::string& dump) {
  ASSERT_TRUE(c["failure"].is_null()) << dump;
  EXPECT_TRUE(c["settled"].is_null()) << dump;
  const double cut = c["cut_s"].get<double>(), heal = c["heal_s"].get<double>();
  EXPECT_GT(cut, 1.5) << dump;
  EXPECT_GT(heal, cut + 6.5) << dump;
  ASSERT_TRUE(c["promote_s"].is_number()) << dump;
  EXPECT_GT(c["promote_s"].get<double>(), cut) << dump;
  EXPECT_LT(c["promote_s"].get<double>(), heal) << dump;
  ASSERT_TRUE(c["demote_s"].is_number()) << dump;
  EXPECT_GT(c["demote_s"].get<double>(), heal) << dump;
  EXPECT_EQ(c["new_primary"].get<std::string>().rfind("replica-", 0), 0u) << dump;
  uint64_t total = 0;
  for (const auto& s : c["seconds"]) total += s["ok"].get<uint64_t>() + s["fail"].get<uint64_t>() + s["unknown"].get<uint64_t>();
  EXPECT_EQ(total, c["records"].get<uint64_t>()) << dump;
  EXPECT_GT(c["records"].get<uint64_t>(), 3500u) << dump;  // 300/s for 14 s
  EXPECT_EQ(c["checks"].size(), 2u) << dump;
  EXPECT_EQ(c["schedule"].size(), c["side"] == "with-primary" ? 2u : 4u) << dump;
}

// The clients still reach the old primary: it acknowledges writes through the partition
// and until it is demoted, and those are gone. On the majority's side the clients' requests
// to it time out, they ask the Sentinels again and write to the new primary once it is
// promoted, so the old one acknowledges far fewer (none when the clients found the new
// primary before the heal; some when the Sentinels' failover took most of the partition
// and the clients were still asking when it healed).
TEST(PartitionE2E, TheOldPrimaryLosesWhatItTookWithTheClientsOnItsSide) {
  Ran r = RunPartition({"--sides", "with-primary,with-majority", "--min-replicas-to-write", "0"});
  EXPECT_EQ(r.out.exit_code, 4) << r.out.output;
  ASSERT_EQ(r.doc["cells"].size(), 2u) << r.out.output;
  for (const auto& c : r.doc["cells"]) ExpectMeasured(c, r.dump);
  const auto& minority = r.doc["cells"][0];
  EXPECT_EQ(minority["side"], "with-primary");
  // ~150 writes/s for the 7 s of the partition and the ~2.5 s after it.
  EXPECT_GT(minority["old_primary_writes_ok"].get<uint64_t>(), 500u) << r.out.output;
  EXPECT_GT(minority["lost"].get<uint64_t>(), 300u) << r.out.output;
  EXPECT_LE(minority["lost"].get<uint64_t>(), minority["old_primary_writes_ok"].get<uint64_t>()) << r.out.output;
  const auto& majority = r.doc["cells"][1];
  EXPECT_EQ(majority["side"], "with-majority");
  EXPECT_LT(majority["old_primary_writes_ok"].get<uint64_t>(), minority["old_primary_writes_ok"].get<uint64_t>() / 2)
      << r.out.output;
  EXPECT_LT(majority["lost"].get<uint64_t>(), minority["lost"].get<uint64_t>() / 2) << r.out.output;
  EXPECT_GT(majority["outage_s"].get<double>(), 0.5) << r.out.output;  // its requests timed out
  bool lost = false;
  for (const auto& a : r.doc["anomalies"]) lost |= a["kind"] == "lost" && a["count"].get<uint64_t>() > 0;
  EXPECT_TRUE(lost) << r.out.output;
  EXPECT_NE(r.out.output.find("Results: the partition"), std::string::npos) << r.out.output;
  EXPECT_NE(r.out.output.find("nemesis: blackhole peers at"), std::string::npos) << r.out.output;
  // The evidence's histories read whole, the link steps among them as the nemesis's
  // operations (an invoke and a completion each) of the Jepsen export.
  for (const auto& c : r.doc["cells"]) {
    const std::string hist = r.dir + "/ev/" + c["history_file"].get<std::string>();
    Outcome exported = RunMemstand({"history", "export", hist, "--out", hist + ".edn"});
    ASSERT_EQ(exported.exit_code, 0) << exported.output;
    const std::string edn = ReadFile(hist + ".edn");
    size_t nemesis = 0;
    for (size_t at = edn.find(":process :nemesis"); at != std::string::npos; at = edn.find(":process :nemesis", at + 1)) {
      ++nemesis;
    }
    EXPECT_EQ(nemesis, 2 * c["schedule"].size()) << hist;
  }
}

// min-replicas-to-write 1 (max lag 1 s): the old primary refuses writes once its replicas
// fall silent, so it acknowledges far fewer than without (the cell above: hundreds).
TEST(PartitionE2E, MinReplicasToWriteMakesTheOldPrimaryRefuseWrites) {
  Ran r = RunPartition({"--sides", "with-primary", "--min-replicas-to-write", "1"});
  ASSERT_TRUE(r.out.exit_code == 0 || r.out.exit_code == 4) << r.out.output;
  ASSERT_EQ(r.doc["cells"].size(), 1u) << r.out.output;
  const auto& c = r.doc["cells"][0];
  ExpectMeasured(c, r.dump);
  EXPECT_EQ(c["min_replicas_to_write"], 1);
  // Refused with NOREPLICAS from ~2 s after the cut until the demotion (~7.5 s of writes).
  EXPECT_GT(c["writes_after_cut"]["fail"].get<uint64_t>(), 500u) << r.out.output;
  EXPECT_LT(c["old_primary_writes_ok"].get<uint64_t>(), 500u) << r.out.output;
}

// The state letter of `pid` (/proc/PID/stat), 0 when it is gone.
char StateOf(pid_t pid) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ? 0 : stat[close + 2];
}

// SIGINT while the links are blackholed: the schedule heals them before it returns (the
// step is in the report), every node stops, no run folder is left.
TEST(PartitionE2E, SigintDuringThePartitionHealsAndStopsEverything) {
  const std::string root = TempDir();
  setenv("MEMSTAND_RUN_DIR", root.c_str(), 1);
  auto r = Running::Start({"scenario", "run", "partition", "--sides", "with-majority", "--min-replicas-to-write", "0",
                           "--duration", "60s", "--cut-at", "1s", "--partition", "50s", "--rate", "200"});
  unsetenv("MEMSTAND_RUN_DIR");
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->WaitForOutput("load for", 60)) << r->OutputSoFar();
  std::this_thread::sleep_for(std::chrono::seconds(3));  // the partition began at 1 s
  std::set<pid_t> nodes = ChildrenNamed(r->pid(), "redis-server");
  std::set<pid_t> sentinels = ChildrenNamed(r->pid(), "redis-sentinel");
  kill(r->pid(), SIGINT);
  Outcome out = r->Wait(60);
  EXPECT_EQ(out.exit_code, 130) << out.output;
  EXPECT_EQ(nodes.size() + sentinels.size(), 6u) << out.output;
  for (pid_t p : nodes) EXPECT_NE(StateOf(p), 'T');
  EXPECT_NE(out.output.find("heal peers at"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("left by the schedule: undone at its end"), std::string::npos) << out.output;
  nodes.insert(sentinels.begin(), sentinels.end());
  EXPECT_TRUE(AllGone(nodes, 30)) << out.output;
  EXPECT_TRUE(fs::is_empty(root)) << "a topology folder was left";
}

}  // namespace
}  // namespace memstand::e2e
