// Issue #25 (Hardening II), processes, clean-up and flag checks, against the real binary:
// a table of command lines that must be refused with their exit code and message, then
// the cases that need time and signals: `memstand up` killed with SIGKILL while it starts
// a cluster and `down` after it, SIGINT while a scenario starts its cluster, replica
// set or servers, and a compute-locality run killed with its PostgreSQL folder.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "e2e/e2e_util.h"
#include "test_paths.h"

namespace memstand::e2e {
namespace hardening_procs {
namespace {

namespace fs = std::filesystem;

// Nothing listens on port 1: a case that got past the checks fails to connect (exit 1).
constexpr const char* kNowhere = "redis://127.0.0.1:1";

std::vector<std::string> RunArgs(std::vector<std::string> args) {
  args.insert(args.begin(), {"run", "-n", "1", "--target", kNowhere});
  return args;
}

std::vector<BadInputCase> Cases(const std::string& run_dir) {
  const std::string link = "127.0.0.1:0=127.0.0.1:1";
  return {
      // 14: a seed out of 0..2^64-1 (CLI11 alone wraps -1 and saturates 2^64).
      {RunArgs({"--seed", "-1"}), 2, "'-1' is not a whole number from 0 to 18446744073709551615"},
      {RunArgs({"--seed", "18446744073709551616"}), 2, "is not a whole number from 0 to"},
      {{"relay", "--link", link, "--seed", "-1"}, 2, "'-1' is not a whole number"},
      {{"scenario", "run", "working-set", "--seed", "-1"}, 2, "'-1' is not a whole number"},
      // 19: epoch 0 read as "no --start-at"; Feb 30 became March 2nd.
      {RunArgs({"--start-at", "0"}), 2, "--start-at: 0 is more than 24 h ago (a typo?"},
      {RunArgs({"--start-at", "1970-01-01T00:00:00Z"}), 2, "is more than 24 h ago"},
      {RunArgs({"--start-at", "2026-02-30T10:00:00Z"}), 2, "'2026-02-30T10:00:00Z': 2026-02 has 28 days"},
      // 20: a fleet-check grace past 24 h.
      {RunArgs({"--shard", "0/2", "--fleet-check", "25h"}), 2, "--fleet-check: 25h is over 24 h (a typo?"},
      // 17: --duration 0 ran until a signal.
      {{"relay", "--link", link, "--duration", "0"}, 2, "--duration: must be above 0, got '0'"},
      // 15: a target that does not resolve, refused at start.
      {{"relay", "--link", "127.0.0.1:0=nosuchhost.invalid:6379"},
       2,
       "link 1: target nosuchhost.invalid:6379: cannot resolve host 'nosuchhost.invalid'"},
      // 18: an unknown scenario is named, with the known ones.
      {{"scenario", "run", "nosuch"}, 2, "unknown scenario 'nosuch'; known: working-set,"},
      {{"scenario", "run"}, 2, "memstand scenario run: none given; known: working-set,"},
      // 13: an evidence folder that cannot be made, refused before the scenario runs.
      {{"scenario", "run", "working-set", "--evidence", "/proc/memstand-ev"},
       2,
       "memstand: --evidence /proc/memstand-ev: No such file or directory"},
      // 25: include reads a file that could set dir or port again.
      {{"up", "redis", "--set", "include=/etc/redis/other.conf", "--run-dir", run_dir},
       2,
       "--set include: managed by memstand"},
      // 25, the same for what loads code or reads and writes a file of its own.
      {{"up", "redis", "--set", "loadmodule=/usr/lib/redis/modules/m.so", "--run-dir", run_dir},
       2,
       "--set loadmodule: managed by memstand"},
      {{"up", "redis", "--set", "aclfile=/etc/redis/users.acl", "--run-dir", run_dir},
       2,
       "--set aclfile: managed by memstand"},
      {{"up", "redis-cluster", "--set", "AclFile=/etc/redis/users.acl", "--run-dir", run_dir},
       2,
       "--set AclFile: managed by memstand"},
      // 27: a memtx_memory the storage cannot start with is bad input, as maxmemory=banana.
      {{"up", "tarantool", "--set", "memtx_memory=1k", "--run-dir", run_dir},
       2,
       "can't initialize storage"},
  };
}

TEST(HardeningProcsE2E, EveryFlagCaseExitsWithItsMessage) {
  const std::string run_dir = TempDir() + "/run";
  ExpectEveryCase(Cases(run_dir), 60);
  EXPECT_FALSE(fs::exists("/proc/memstand-ev"));
  EXPECT_TRUE(!fs::exists(run_dir) || fs::is_empty(run_dir)) << "a refused up left a folder";
}

// The pids whose working directory is `dir` or under it (also once it is deleted:
// "/path (deleted)"): the servers a topology started there.
std::set<pid_t> ProcessesUnder(const std::string& dir) {
  std::set<pid_t> pids;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code link_ec;
    const std::string cwd = fs::read_symlink(e.path() / "cwd", link_ec).string();
    if (!link_ec && (cwd == dir || cwd.starts_with(dir + "/") || cwd.starts_with(dir + " "))) {
      pids.insert(static_cast<pid_t>(std::atol(name.c_str())));
    }
  }
  return pids;
}

// Row 10: `memstand up` killed with SIGKILL while it starts its nodes, then `down`: no
// server it spawned is left running. The kill lands at a different moment each try
// (60 ms .. 1.2 s; here the nodes of a 6-master cluster start 20-30 ms apart from about
// 70 ms on), so it hits a node between its spawn and its record, in its readiness wait,
// after it, and while the cluster forms.
void KillUpThenDown(const std::vector<std::string>& up_args, const std::string& label, int tries) {
  static constexpr int kDelaysMs[] = {60, 75, 90, 105, 120, 150, 200, 300, 600, 1200};
  const std::string root = TempDir();
  for (int i = 0; i < tries && i < 10; ++i) {
    const int delay_ms = kDelaysMs[i];
    const std::string name = label + "-" + std::to_string(i);
    std::vector<std::string> args = up_args;
    args.insert(args.end(), {"--name", name, "--run-dir", root});
    auto up = Running::Start(args);
    ASSERT_NE(up, nullptr);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    kill(up->pid(), SIGKILL);
    up->Wait(10);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // a child past fork execs
    const std::string dir = root + "/" + name;
    const std::set<pid_t> spawned = ProcessesUnder(dir);
    Outcome down = RunMemstand({"down", name, "--run-dir", root}, 60);
    SCOPED_TRACE(name + " killed after " + std::to_string(delay_ms) + " ms; down said:\n" + down.output);
    if (!fs::exists(dir + "/state.json") && spawned.empty()) {
      continue;  // killed before it made its folder: nothing to stop
    }
    EXPECT_EQ(down.exit_code, 0);
    EXPECT_TRUE(AllGone(spawned, 10)) << spawned.size() << " server(s) of ours still run";
    EXPECT_TRUE(ProcessesUnder(dir).empty());
    EXPECT_FALSE(fs::exists(dir));
  }
  RunMemstand({"down", "--run-dir", root}, 60);  // whatever a failed try left
}

TEST(HardeningProcsE2E, DownStopsEveryServerOfAnUpKilledWhileStartingACluster) {
  KillUpThenDown({"up", "redis-cluster", "--masters", "6"}, "cluster", 10);
}

TEST(HardeningProcsE2E, DownStopsEveryServerOfAnUpKilledWhileStartingAReplicaSet) {
  KillUpThenDown({"up", "tarantool-replicaset"}, "set", 4);
}

// Row 9: SIGINT while a scenario starts its cluster (or replica set, or servers) is an
// interrupted scenario (exit 130), not a failed one whose servers "did not start".

// Whether a topology under `root` is still starting: its state file says "starting"
// until Topology::Start has done everything, "up" after (docs/stand.md, State file).
bool AnyStarting(const std::string& root) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    if (ReadFile(e.path().string() + "/state.json").find("\"status\": \"starting\"") != std::string::npos) {
      return true;
    }
  }
  return false;
}

// Whether every thread of `pid` is stopped (state T in /proc/PID/task/*/stat).
bool AllThreadsStopped(pid_t pid) {
  std::error_code ec;
  bool any = false;
  for (const auto& e : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    const std::string stat = ReadFile(e.path().string() + "/stat");
    const size_t close = stat.rfind(')');
    if (close == std::string::npos || close + 2 >= stat.size()) continue;  // a thread gone meanwhile
    if (stat[close + 2] != 'T' && stat[close + 2] != 't') return false;
    any = true;
  }
  return any;
}

// The signal lands inside a start, whatever the machine's speed: memstand is stopped
// (SIGSTOP) when a state file says "starting"; if one still says so once every thread
// stopped, SIGINT is sent while it is stopped and taken the moment it continues, at that
// very point of the start. Then the start must be cut short and said so, exit 130.
void InterruptWhileStarting(const std::vector<std::string>& args, const std::string& starting) {
  const std::string root = TempDir();
  setenv("MEMSTAND_RUN_DIR", root.c_str(), 1);
  auto r = Running::Start(args);
  unsetenv("MEMSTAND_RUN_DIR");
  ASSERT_NE(r, nullptr);
  if (!starting.empty()) {
    ASSERT_TRUE(r->WaitForOutput(starting, 60)) << r->OutputSoFar();
  }
  const pid_t pid = r->pid();
  bool sent = false;
  for (int i = 0; i < 30000 && !sent && r->OutputSoFar().find("(exit code") == std::string::npos; ++i) {
    if (AnyStarting(root)) {
      kill(pid, SIGSTOP);
      for (int j = 0; j < 5000 && !AllThreadsStopped(pid); ++j) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      if (AllThreadsStopped(pid) && AnyStarting(root)) {
        kill(pid, SIGINT);
        sent = true;
      }
      kill(pid, SIGCONT);
    }
    if (!sent) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  Outcome out = r->Wait(120);
  ASSERT_TRUE(sent) << "never caught a start under way:\n" << out.output;
  EXPECT_EQ(out.exit_code, 130) << out.output;
  EXPECT_NE(out.output.find("interrupted (exit code 130)"), std::string::npos) << out.output;
  EXPECT_NE(out.output.find(": the start was interrupted: "), std::string::npos) << out.output;
  EXPECT_NE(out.output.find("interrupted while "), std::string::npos) << out.output;
  EXPECT_EQ(out.output.find("did not start"), std::string::npos) << out.output;
  EXPECT_TRUE(fs::is_empty(root)) << "a topology folder was left";
}

TEST(HardeningProcsE2E, SigintWhileDurabilityOverloadStartsItsClusterIsInterrupted) {
  InterruptWhileStarting({"scenario", "run", "durability-overload", "--masters", "3", "--sizes", "100",
                          "--payload", "random", "--probe-size", "0", "--cell-duration", "1s"},
                         "run 1 none: starting a cluster of 3 masters");
}

TEST(HardeningProcsE2E, SigintWhileReplicationCostStartsItsReplicaSetIsInterrupted) {
  InterruptWhileStarting({"scenario", "run", "replication-cost", "--concurrency", "1", "--step-duration", "0.5s"},
                         "run 1: starting tarantool");
}

TEST(HardeningProcsE2E, SigintWhileStretchedCacheStartsItsPrimaryAndReplicaIsInterrupted) {
  InterruptWhileStarting({"scenario", "run", "stretched-cache", "--ops", "5", "--distances", "2ms"},
                         "run 1: starting the primary and the replica");
}

// The same for the scenarios that start one-node servers (each a topology of its own).
TEST(HardeningProcsE2E, SigintWhileWorkingSetStartsItsServerIsInterrupted) {
  InterruptWhileStarting({"scenario", "run", "working-set", "--records", "2000", "--portion", "500", "--config",
                          "redis maxmemory=3mb name=small", "--only", "small"},
                         "working-set: 2000 records of products");
}

TEST(HardeningProcsE2E, SigintWhileMvccQuotaStartsItsServersIsInterrupted) {
  InterruptWhileStarting({"scenario", "run", "mvcc-quota"}, "");
}

TEST(HardeningProcsE2E, SigintWhileComputeLocalityStartsItsServerIsInterrupted) {
  InterruptWhileStarting({"scenario", "run", "compute-locality", "--only", "redis"}, "");
}

// Row 30 through the binary: a short plan's line keeps its digits ('0.4 s of load', was
// '0 s'). The plan is printed before any server starts; SIGINT then ends the scenario.
void ExpectPlanLine(const std::vector<std::string>& args, const std::string& line) {
  const std::string root = TempDir();
  setenv("MEMSTAND_RUN_DIR", root.c_str(), 1);
  auto r = Running::Start(args);
  unsetenv("MEMSTAND_RUN_DIR");
  ASSERT_NE(r, nullptr);
  const bool printed = r->WaitForOutput(line, 60);
  kill(r->pid(), SIGINT);
  Outcome out = r->Wait(120);
  EXPECT_TRUE(printed) << out.output;
  EXPECT_EQ(out.exit_code, 130) << out.output;
  EXPECT_TRUE(fs::is_empty(root)) << "a topology folder was left";
}

TEST(HardeningProcsE2E, AShortPlanIsNotZeroSecondsOfLoad) {
  // One mode besides none, one size, one payload, no GET or legacy cells: 2 cells of 0.2 s.
  ExpectPlanLine({"scenario", "run", "durability-overload", "--runs", "1", "--masters", "3", "--fsync", "everysec",
                  "--sizes", "100", "--payload", "random", "--no-gets", "--no-legacy", "--probe-size", "0",
                  "--cell-duration", "0.2s"},
                 "durability-overload: 2 cells of 0.2 s: 0.4 s of load in all");
  // 3 rounds of 2 x 40 ms stalls and 31 one-way delays of 1 ms: 0.333 s.
  ExpectPlanLine({"scenario", "run", "stretched-cache", "--runs", "1", "--ops", "3", "--distances", "1ms"},
                 "the delays alone add up to about 0.33 s per run");
}

// Row 11: compute-locality's PostgreSQL folder, left by a SIGKILL, is removed by the next
// memstand that starts a server of its own, as memstand-redis-* folders are.
TEST(HardeningProcsE2E, APostgresFolderOfAKilledScenarioIsRemovedByTheNextRun) {
  const std::string tmp = TempDir() + "/tmp";
  fs::create_directories(tmp);
  chmod(fs::path(tmp).parent_path().c_str(), 0755);  // user postgres passes through (as root)
  chmod(tmp.c_str(), 0755);
  setenv("TMPDIR", tmp.c_str(), 1);  // inherited by the memstand processes below
  struct Unset {
    ~Unset() { unsetenv("TMPDIR"); }  // on every way out of the test
  } unset;
  auto killed = Running::Start({"scenario", "run", "compute-locality", "--only", "postgresql"});
  ASSERT_NE(killed, nullptr);
  const bool loading = killed->WaitForOutput("postgresql: loading", 120);
  const pid_t pid = killed->pid();
  kill(pid, SIGKILL);
  killed->Wait(10);
  ASSERT_TRUE(loading) << "postgresql did not start:\n" << killed->OutputSoFar();
  std::string folder;
  for (const auto& e : fs::directory_iterator(tmp)) {
    if (e.path().filename().string().starts_with("memstand-pg-")) folder = e.path().string();
  }
  ASSERT_FALSE(folder.empty()) << "no memstand-pg-* folder in " << tmp;
  EXPECT_TRUE(fs::exists(folder + "/memstand.owner"));
  ExpectNextRunRemoves(folder, pid);
}

// Row 23 through the binary: a scenario's server SIGKILLed while the scenario uses it is
// named in the verdict with its pid and signal, not read as a TLS port's reset. Killed
// once `started` is printed (each scenario prints it after its server's start).
void ExpectKilledServerNamed(const std::vector<std::string>& args, const std::string& started,
                             const std::string& program) {
  const std::string root = TempDir();
  setenv("MEMSTAND_RUN_DIR", root.c_str(), 1);
  auto r = Running::Start(args);
  unsetenv("MEMSTAND_RUN_DIR");
  ASSERT_NE(r, nullptr);
  const bool printed = r->WaitForOutput(started, 120);
  const std::set<pid_t> servers = ChildrenNamed(r->pid(), program);
  for (pid_t pid : servers) kill(pid, SIGKILL);
  Outcome out = r->Wait(120);
  ASSERT_TRUE(printed) << out.output;
  ASSERT_EQ(servers.size(), 1u) << out.output;
  EXPECT_EQ(out.exit_code, 1) << out.output;
  const std::string died = " (pid " + std::to_string(*servers.begin()) + ") died: killed by signal 9 (SIGKILL)";
  const size_t verdict = out.output.rfind("Verdict");
  ASSERT_NE(verdict, std::string::npos) << out.output;
  EXPECT_NE(out.output.find(died, verdict), std::string::npos) << out.output;
  EXPECT_EQ(out.output.find("TLS"), std::string::npos) << out.output;
  EXPECT_TRUE(fs::is_empty(root)) << "a topology folder was left";
}

// The server is killed within one poll (10 ms) of its row's first line: 20,000 records
// keep it loading for seconds, 200,000 took seconds more to build and changed nothing.
TEST(HardeningProcsE2E, AKilledTarantoolOfWorkingSetIsNamedInTheVerdict) {
  ExpectKilledServerNamed({"scenario", "run", "working-set", "--records", "20000", "--portion", "500", "--only",
                           "tarantool-memtx"},
                          "working-set: run 1: tarantool-memtx", "tarantool");
}

// 10,000 puts keep etcd busy for seconds (about a millisecond each) past the kill; after
// it the same writes go to Redis: 400,000 made that load most of the test.
TEST(HardeningProcsE2E, AKilledEtcdOfMvccQuotaIsNamedInTheVerdict) {
  ExpectKilledServerNamed({"scenario", "run", "mvcc-quota", "--writes", "10000"}, "mvcc-quota: run 1: etcd", "etcd");
}

// stretched-cache's primary (the replica is the other redis-server): named by its port.
TEST(HardeningProcsE2E, AKilledRedisOfStretchedCacheIsNamedInTheVerdict) {
  const std::string root = TempDir();
  setenv("MEMSTAND_RUN_DIR", root.c_str(), 1);
  auto r = Running::Start({"scenario", "run", "stretched-cache", "--runs", "1", "--ops", "400", "--distances", "2ms"});
  unsetenv("MEMSTAND_RUN_DIR");
  ASSERT_NE(r, nullptr);
  const bool printed = r->WaitForOutput("(a) no relay: 3 series x 400 operations", 120);
  std::string said = r->OutputSoFar();
  const size_t at = said.find("direct to 127.0.0.1:");
  const std::string port = at == std::string::npos ? "" : said.substr(at + 20, said.find(',', at) - at - 20);
  pid_t primary = 0;
  for (pid_t pid : ChildrenNamed(r->pid(), "redis-server")) {
    if (ReadFile("/proc/" + std::to_string(pid) + "/cmdline").find(":" + port) != std::string::npos) primary = pid;
  }
  if (primary > 0) kill(primary, SIGKILL);
  Outcome out = r->Wait(120);
  ASSERT_TRUE(printed) << out.output;
  ASSERT_GT(primary, 0) << "no redis-server on port '" << port << "':\n" << out.output;
  EXPECT_EQ(out.exit_code, 1) << out.output;
  const size_t verdict = out.output.rfind("Verdict");
  ASSERT_NE(verdict, std::string::npos) << out.output;
  EXPECT_NE(out.output.find(" (pid " + std::to_string(primary) + ") died: killed by signal 9 (SIGKILL)", verdict),
            std::string::npos)
      << out.output;
  EXPECT_EQ(out.output.find("TLS"), std::string::npos) << out.output;
  EXPECT_TRUE(fs::is_empty(root)) << "a topology folder was left";
}

// Row 24 through the binary: a TMPDIR that user postgres cannot pass through (as root,
// initdb runs as postgres) is the verdict's reason, named first, not initdb's chatter.
TEST(HardeningProcsE2E, APrivateTmpdirIsTheCauseComputeLocalityNames) {
  if (geteuid() != 0) GTEST_SKIP() << "initdb runs as postgres only when memstand is root";
  const std::string tmp = TempDir() + "/private";
  fs::create_directories(tmp);
  chmod(fs::path(tmp).parent_path().c_str(), 0755);  // only the last folder is private
  chmod(tmp.c_str(), 0700);
  const testutil::CommandResult r = testutil::RunShell(
      "TMPDIR=" + testutil::ShellQuote(tmp) + " timeout 120 " + testutil::ShellQuote(testutil::MemstandBinary()) +
      " scenario run compute-locality --only postgresql 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const std::string reason = "- postgresql run 1: server did not start: the temp folder " + tmp +
                             "/memstand-pg-";
  const size_t at = r.output.find(reason, r.output.rfind("Verdict"));
  ASSERT_NE(at, std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(TMPDIR) cannot be reached by user postgres, who runs initdb and postgres: " + tmp +
                              " has mode 0700",
                          at),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("text search configuration"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_empty(tmp)) << "its folder was left";
}

}  // namespace
}  // namespace hardening_procs
}  // namespace memstand::e2e
