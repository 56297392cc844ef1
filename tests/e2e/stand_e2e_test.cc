// `memstand up`, `ps` and `down` end to end: the real binary starts real servers that
// outlive it, lists them, and stops them (checked by pid).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/socket.h"
#include "e2e/e2e_util.h"
#include "stand/stand_state.h"

namespace memstand::e2e {
namespace {

namespace fs = std::filesystem;

class StandE2eTest : public ::testing::Test {
 protected:
  void SetUp() override { root_ = TempDir(); }
  void TearDown() override {
    RunMemstand({"down", "--run-dir", root_}, 30);  // whatever a failed test left running
    fs::remove_all(root_);
  }
  Outcome Memstand(std::vector<std::string> args) {
    args.push_back("--run-dir");
    args.push_back(root_);
    return RunMemstand(args, 60);
  }
  TopologyRecord Record(const std::string& name) {
    auto r = ReadTopologyRecord(root_ + "/" + name + "/state.json");
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : TopologyRecord{};
  }
  std::string root_;
};

TEST_F(StandE2eTest, UpLeavesServersRunningPsListsThemDownStopsThem) {
  Outcome up = Memstand({"up", "redis-replica", "--name", "pair", "--set", "maxmemory=16mb"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  EXPECT_NE(up.output.find("memstand up: redis-replica 'pair' is up: 2 process(es), run folder " +
                           root_ + "/pair"),
            std::string::npos)
      << up.output;
  TopologyRecord pair = Record("pair");
  const std::vector<NodeRecord>& nodes = pair.nodes;
  ASSERT_EQ(nodes.size(), 2u);
  for (const NodeRecord& n : nodes) {
    EXPECT_EQ(NodeOwnership(pair, n).verdict, Ownership::kOurs) << n.name;  // memstand has exited
    EXPECT_NE(up.output.find(n.host + ":" + std::to_string(n.port)), std::string::npos);
    EXPECT_NE(up.output.find(n.log), std::string::npos);
  }

  Outcome ps = Memstand({"ps"});
  ASSERT_EQ(ps.exit_code, 0) << ps.output;
  EXPECT_NE(ps.output.find("pair (redis-replica, up): 2/2 process(es) alive, detached"),
            std::string::npos)
      << ps.output;
  EXPECT_NE(ps.output.find("primary"), std::string::npos);

  Outcome down = Memstand({"down", "pair"});
  ASSERT_EQ(down.exit_code, 0) << down.output;
  for (const NodeRecord& n : nodes) {
    EXPECT_NE(down.output.find(n.name + " (redis-server, pid " + std::to_string(n.process.pid) +
                               "): stopped"),
              std::string::npos)
        << down.output;
    EXPECT_EQ(NodeOwnership(pair, n).verdict, Ownership::kGone) << n.name;
  }
  EXPECT_FALSE(fs::exists(root_ + "/pair"));
  Outcome empty = Memstand({"ps"});
  EXPECT_EQ(empty.output, "no topologies under " + root_ + "\n");
}

TEST_F(StandE2eTest, UpFromATomlFileAndDownWithoutANameStopsAll) {
  std::string file = root_ + "/cache.toml";
  std::ofstream(file) << "kind = \"memcached\"\nname = \"cache\"\n[settings]\nmemory-limit = 32\n";
  Outcome up = Memstand({"up", "--file", file});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  Outcome up2 = Memstand({"up", "redis", "--name", "solo"});
  ASSERT_EQ(up2.exit_code, 0) << up2.output;
  std::vector<TopologyRecord> records = {Record("cache"), Record("solo")};
  ASSERT_EQ(records[0].nodes.size(), 1u);
  EXPECT_NE(JoinCmdline(records[0].nodes[0].process.cmdline).find("--memory-limit=32"),
            std::string::npos);

  Outcome down = Memstand({"down"});
  ASSERT_EQ(down.exit_code, 0) << down.output;
  for (const TopologyRecord& r : records) {
    for (const NodeRecord& n : r.nodes) {
      EXPECT_EQ(NodeOwnership(r, n).verdict, Ownership::kGone) << n.name;
    }
  }
  EXPECT_TRUE(ListTopologies(root_)->empty());
}

TEST_F(StandE2eTest, BadOptionsExitTwoWithAClearMessageAndStartNothing) {
  auto busy = ListenTcp("127.0.0.1", 0);
  ASSERT_TRUE(busy.ok());
  std::string busy_port = std::to_string(*LocalPort(*busy));
  std::string bad_toml = root_ + "/bad.toml";
  std::ofstream(bad_toml) << "kind = \"redis\"\nmaxmemory = \"1gb\"\n";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"up", "redis-sentinel"}, "memstand up: unknown topology 'redis-sentinel'; known: redis,"},
      {{"up", "redis-cluster", "--masters", "0"},
       "memstand up: --masters 0: a cluster needs at least 1 master"},
      {{"up", "redis-replica", "--replicas", "0"},
       "memstand up: --replicas 0: redis-replica needs at least 1 replica"},
      {{"up", "redis", "--port", busy_port},
       "memstand up: redis: port " + busy_port + " on 127.0.0.1 is already in use"},
      {{"up", "memcached", "--binary", "memstand-missing-memcached"},
       "memstand up: memstand-missing-memcached not found in PATH; install it with: apt-get "
       "install memcached"},
      {{"up", "--file", bad_toml}, "memstand up: " + bad_toml + ": unknown key 'maxmemory'"},
      {{"up"}, "memstand up: name a TOPOLOGY (redis, redis-replica"},
      {{"up", "redis", "--set", "maxmemory"}, "memstand up: --set 'maxmemory': expected KEY=VALUE"},
      {{"up", "redis", "--set", "maxmemory-policy=sometimes"}, "FATAL CONFIG FILE ERROR"},
      {{"down", "nothing-here"}, "memstand down: no topology 'nothing-here' under " + root_},
  };
  for (const auto& [args, message] : cases) {
    Outcome o = Memstand(args);
    EXPECT_EQ(o.exit_code, 2) << args[0] << " " << (args.size() > 1 ? args[1] : "") << "\n" << o.output;
    EXPECT_NE(o.output.find(message), std::string::npos) << o.output;
  }
  close(*busy);
  EXPECT_TRUE(ListTopologies(root_)->empty());
  for (const auto& entry : fs::directory_iterator(root_)) {
    EXPECT_EQ(entry.path().filename(), "bad.toml");  // no run folder was left
  }
}

}  // namespace
}  // namespace memstand::e2e
