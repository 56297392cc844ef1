// Three shards (--shard K/3) started with one --start-at against one redis-server,
// then `memstand merge` (docs/scale-out.md). Each shard and the server run in network
// namespaces of their own, joined by veth pairs on private 10.x addresses, as on
// separate hosts; where namespaces cannot be made (not root, no `ip netns`), the test
// says so on stdout and runs the same processes over loopback.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/clock.h"
#include "core/socket.h"
#include "e2e/e2e_util.h"
#include "test_paths.h"
#include "stats/hdr_histogram.h"

namespace memstand::e2e {
namespace {

constexpr int kFleetShards = 3;
constexpr uint64_t kKeys = 6000;

// Runs a shell command line; its stdout (bounded), or "" if it failed.
std::string Shell(const std::string& cmd, int* rc = nullptr) {
  std::string out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0 && out.size() < (1 << 20)) out.append(buf, n);
  const int status = pclose(p);
  if (rc != nullptr) *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

// The hosts: a server namespace and one per shard, or loopback.
class Hosts {
 public:
  ~Hosts() { TearDown(); }

  // Makes the namespaces; false (and why()) when they cannot be made.
  bool MakeNamespaces() {
    if (geteuid() != 0) return Fail("not root");
    if (std::getenv("MEMSTAND_TEST_NO_NETNS") != nullptr) return Fail("MEMSTAND_TEST_NO_NETNS is set");
    prefix_ = fmt::format("ms{}", getpid() % 100000);
    net_ = 16 + getpid() % 200;
    server_ns_ = prefix_ + "r";
    if (!Run("ip netns add " + server_ns_)) return false;
    made_.push_back(server_ns_);
    Run("ip -n " + server_ns_ + " link set lo up");
    for (int k = 0; k < kFleetShards; ++k) {
      const std::string ns = fmt::format("{}s{}", prefix_, k);
      if (!Run("ip netns add " + ns)) return false;
      made_.push_back(ns);
      const std::string a = fmt::format("{}a{}", prefix_, k), b = fmt::format("{}b{}", prefix_, k);
      if (!Run(fmt::format("ip link add {} netns {} type veth peer name {} netns {}", a,
                           server_ns_, b, ns))) {
        return false;
      }
      const bool ok =
          Run(fmt::format("ip -n {} addr add 10.{}.{}.1/24 dev {}", server_ns_, net_, k, a)) &&
          Run(fmt::format("ip -n {} link set {} up", server_ns_, a)) &&
          Run(fmt::format("ip -n {} addr add 10.{}.{}.2/24 dev {}", ns, net_, k, b)) &&
          Run(fmt::format("ip -n {} link set {} up", ns, b)) &&
          Run(fmt::format("ip -n {} link set lo up", ns));
      if (!ok) return false;
      shard_ns_.push_back(ns);
    }
    return true;
  }

  bool namespaces() const { return !shard_ns_.empty(); }
  const std::string& why() const { return why_; }
  // The server's address as shard k reaches it.
  std::string ServerHost(int k) const {
    return namespaces() ? fmt::format("10.{}.{}.1", net_, k) : "127.0.0.1";
  }
  // argv prefix that runs a program on the server's / shard k's host.
  std::vector<std::string> OnServer() const { return In(server_ns_); }
  std::vector<std::string> OnShard(int k) const { return namespaces() ? In(shard_ns_[k]) : In(""); }
  std::string ShellOnServer() const {
    return namespaces() ? "ip netns exec " + server_ns_ + " " : "";
  }

 private:
  static std::vector<std::string> In(const std::string& ns) {
    if (ns.empty()) return {};
    return {"ip", "netns", "exec", ns};
  }
  bool Fail(const std::string& why) {
    why_ = why;
    return false;
  }
  bool Run(const std::string& cmd) {
    int rc = 0;
    const std::string out = Shell(cmd, &rc);
    if (rc != 0) return Fail("`" + cmd + "` failed: " + out);
    return true;
  }
  void TearDown() {
    for (auto it = made_.rbegin(); it != made_.rend(); ++it) Shell("ip netns del " + *it);
    made_.clear();  // the veth pairs go with their namespaces
  }

  std::string prefix_, server_ns_, why_;
  int net_ = 0;
  std::vector<std::string> shard_ns_;
  std::vector<std::string> made_;
};

std::unique_ptr<Process> Spawn(std::vector<std::string> argv, const std::string& log) {
  SpawnOptions so;
  so.argv = std::move(argv);
  so.log_path = log;
  auto p = Process::Spawn(so);
  return p.ok() ? std::move(*p) : nullptr;
}

int64_t CallsInInfo(const std::string& info, const std::string& name) {
  const std::string key = "cmdstat_" + name + ":calls=";
  const size_t at = info.find(key);
  return at == std::string::npos ? 0 : std::stoll(info.substr(at + key.size()));
}

// Every latency of a --samples CSV (all kept: the cap is above the count).
void AddSamples(const std::string& path, HdrHistogram* h, uint64_t* n) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    h->Record(std::stoll(line.substr(line.rfind(',') + 1)));
    ++*n;
  }
}

TEST(ScaleOutE2E, ThreeShardsOneStartMergeExactly) {
  Hosts hosts;
  if (!hosts.MakeNamespaces()) {
    std::printf("\n*** ScaleOutE2E: NETWORK NAMESPACES UNAVAILABLE (%s): falling back to "
                "three loopback processes on this host ***\n\n", hosts.why().c_str());
    std::fflush(stdout);
  } else {
    std::printf("ScaleOutE2E: redis-server in a network namespace of its own (%s, ...), the "
                "3 shards in 3 others, each over a veth pair\n", hosts.ServerHost(0).c_str());
  }
  const std::string dir = TempDir();
  auto port = PickFreePort();
  ASSERT_TRUE(port.ok());
  std::vector<std::string> redis = hosts.OnServer();
  for (const char* a : {"redis-server", "--port"}) redis.push_back(a);
  redis.push_back(std::to_string(*port));
  for (const char* a : {"--bind", hosts.namespaces() ? "0.0.0.0" : "127.0.0.1", "--save", "",
                        "--appendonly", "no", "--protected-mode", "no", "--dir"}) {
    redis.push_back(a);
  }
  redis.push_back(dir);
  auto server = Spawn(redis, dir + "/redis.log");
  ASSERT_NE(server, nullptr);
  const std::string cli = hosts.ShellOnServer() + "redis-cli -h " + hosts.ServerHost(0) +
                          " -p " + std::to_string(*port) + " ";
  bool up = false;
  for (int i = 0; i < 200 && !up; ++i) {
    up = Shell(cli + "ping").find("PONG") != std::string::npos;
    if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_TRUE(up) << "redis-server did not answer";
  const int64_t before = CallsInInfo(Shell(cli + "info commandstats"), "set");

  const int64_t at = static_cast<int64_t>(UnixNowS()) + 4;
  std::vector<std::unique_ptr<Process>> shards;
  for (int k = 0; k < kFleetShards; ++k) {
    std::vector<std::string> argv = hosts.OnShard(k);
    argv.push_back(testutil::MemstandBinary());
    for (std::string a : {std::string("run"), std::string("--target"),
                          fmt::format("redis://{}:{}", hosts.ServerHost(k), *port),
                          fmt::format("--shard={}/{}", k, kFleetShards), fmt::format("--start-at={}", at),
                          std::string("--command=SET __key__ __data__"), std::string("--key-pattern=S"),
                          std::string("--key-minimum=1"), fmt::format("--key-maximum={}", kKeys),
                          fmt::format("--requests={}", kKeys), std::string("--threads=1"),
                          std::string("--clients=4"), fmt::format("--samples={}/s{}.csv", dir, k),
                          fmt::format("--json={}/s{}.json", dir, k), std::string("-q")}) {
      argv.push_back(a);
    }
    if (k == 0) {
      for (const char* a : {"--fleet-check=2s", "--exclusive"}) argv.push_back(a);
    }
    shards.push_back(Spawn(argv, fmt::format("{}/s{}.out", dir, k)));
    ASSERT_NE(shards.back(), nullptr);
  }
  for (int k = 0; k < kFleetShards; ++k) {
    for (int i = 0; i < 3000 && shards[k]->Alive(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_FALSE(shards[k]->Alive()) << "shard " << k << " still running after 30 s";
    EXPECT_EQ(shards[k]->DescribeExit(), "exited with code 0")
        << Shell("cat " + dir + "/s" + std::to_string(k) + ".out");
  }
  const int64_t after = CallsInInfo(Shell(cli + "info commandstats"), "set");
  const std::string dbsize = Shell(cli + "dbsize");

  Outcome merged = RunMemstand({"merge", dir + "/s0.json", dir + "/s1.json", dir + "/s2.json",
                                "-o", dir + "/merged.json", "--hdr-log", dir + "/merged.hlog"});
  ASSERT_EQ(merged.exit_code, 0) << merged.output;
  EXPECT_NE(merged.output.find("[9] Shards"), std::string::npos);
  const nlohmann::json m = ReadJson(dir + "/merged.json");

  // Counts: the merge's equal the server's commandstats delta; S slices cover the range.
  EXPECT_EQ(m["totals"]["ops"].get<int64_t>(), after - before);
  EXPECT_EQ(after - before, static_cast<int64_t>(kKeys));
  EXPECT_EQ(std::stoll(dbsize), static_cast<int64_t>(kKeys));
  EXPECT_TRUE(m["cross_check"]["available"].get<bool>());
  EXPECT_FALSE(m["cross_check"]["mismatch"].get<bool>());
  // One start: every shard's series starts at the requested second.
  HdrHistogram raw;
  uint64_t samples = 0;
  for (int k = 0; k < kFleetShards; ++k) {
    const nlohmann::json s = ReadJson(fmt::format("{}/s{}.json", dir, k));
    EXPECT_EQ(s["start_at"]["requested_unix_s"].get<double>(), static_cast<double>(at));
    EXPECT_EQ(s["series_start_unix_s"].get<double>(), static_cast<double>(at)) << "shard " << k;
    EXPECT_EQ(s["shard"]["index"].get<int>(), k);
    AddSamples(fmt::format("{}/s{}.csv", dir, k), &raw, &samples);
  }
  EXPECT_EQ(m["series_start_unix_s"].get<double>(), static_cast<double>(at));
  // Exact percentiles: those of one histogram of every raw sample.
  ASSERT_EQ(samples, kKeys);
  for (const char* p : {"50", "90", "99", "99.9"}) {
    EXPECT_EQ(m["totals"]["latency"]["percentiles_us"][p].get<double>(),
              raw.ValueAtPercentile(std::stod(p)) / 1000.0) << "p" << p;
  }
  EXPECT_EQ(m["totals"]["latency"]["max_us"].get<double>(), raw.max() / 1000.0);
  server->Terminate(2000);
}

// A pool of 4 servers over 2 shards: shard 0 sends to members 0 and 2 only, shard 1 to
// 1 and 3, and every server sees exactly the requests of the shard that took it.
TEST(ScaleOutE2E, PoolMembersSplitByShard) {
  std::vector<std::unique_ptr<LocalRedis>> servers;
  for (int i = 0; i < 4; ++i) {
    servers.push_back(StartRedis());
    ASSERT_NE(servers.back(), nullptr);
  }
  auto calls = [&](int i) {
    return CallsInInfo(Shell("redis-cli -p " + std::to_string(servers[i]->port()) + " info commandstats"),
                        "set");
  };
  for (int k = 0; k < 2; ++k) {
    std::vector<std::string> args;
    for (const auto& s : servers) args.push_back(fmt::format("--target=redis://127.0.0.1:{}", s->port()));
    for (std::string a : {fmt::format("--shard={}/2", k), std::string("--command=SET __key__ x"),
                          std::string("--requests=800"), std::string("--clients=4")}) {
      args.push_back(a);
    }
    const nlohmann::json j = RunOk(args);
    ASSERT_TRUE(j.contains("shard"));
    EXPECT_EQ(j["shard"]["members"][0]["index"].get<int>(), k);
    EXPECT_EQ(j["shard"]["members"][1]["index"].get<int>(), k + 2);
    EXPECT_EQ(j["totals"]["ops"].get<int>(), 400);
  }
  // 400 per shard over its 2 members' 4 connections: 200 each.
  for (int i = 0; i < 4; ++i) EXPECT_EQ(calls(i), 200) << "server " << i;
}

// Bad fleet flags exit 2 with a message naming the flag, before anything is sent.
TEST(ScaleOutE2E, BadFleetFlagsExit2) {
  const std::string target = "--target=redis://127.0.0.1:1";  // nothing is sent: checked first
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", target, "--shard=3/3"}, "--shard"},
      {{"run", target, "--shard=1/0"}, "--shard"},
      {{"run", target, "--shard=x"}, "--shard"},
      {{"run", target, "--shard=auto"}, "JOB_COMPLETION_INDEX"},
      {{"run", target, "--shards=3"}, "--shards"},
      {{"run", "--shard=0/2"}, "needs --target"},
      {{"run", target, "--start-at=tomorrow"}, "--start-at"},
      {{"run", target, "--start-at=1796149800.5"}, "whole second"},
      {{"run", target, "--start-at=2099-01-01T00:00:00Z"}, "24 h ahead"},
      {{"run", target, "--shard=0/3", "--requests=2"}, "--requests"},
      {{"merge", "/nonexistent/a.json"}, "a.json"},
  };
  for (const auto& [args, says] : cases) {
    Outcome o = RunMemstand(args, 20);
    EXPECT_EQ(o.exit_code, 2) << args.back() << ": " << o.output;
    EXPECT_NE(o.output.find(says), std::string::npos) << args.back() << ": " << o.output;
  }
}

}  // namespace
}  // namespace memstand::e2e
