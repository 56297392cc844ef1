#include "stand/topology.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "core/socket.h"
#include "stand/probe_io.h"
#include "stand/process.h"

namespace memstand {
namespace {

// A fresh run root per test, removed at the end.
class TopologyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/topology_test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    options_.run_root = root_;
  }
  void TearDown() override { std::system(("rm -rf '" + root_ + "'").c_str()); }

  std::unique_ptr<Topology> StartOrDie(const TopologySpec& spec) {
    auto t = Topology::Start(spec, options_);
    EXPECT_TRUE(t.ok()) << t.status().message();
    return t.ok() ? std::move(t).value() : nullptr;
  }

  std::string root_;
  TopologyOptions options_;
};

bool Exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every recorded process is gone (exited, not just signalled) and the folder too.
void ExpectTornDown(const std::vector<NodeRecord>& nodes, const std::string& dir) {
  for (const NodeRecord& n : nodes) {
    EXPECT_FALSE(ReadProcessIdentity(n.process.pid).ok()) << n.name << " pid " << n.process.pid;
  }
  EXPECT_FALSE(Exists(dir)) << dir;
}

std::unique_ptr<RedisClient> Client(const NodeRecord& n) {
  RedisClientOptions o;
  o.host = n.host;
  o.port = n.port;
  auto c = RedisClient::Connect(o);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? std::move(c).value() : nullptr;
}

std::string Command(RedisClient* c, const std::vector<std::string>& args) {
  auto r = c->Command(args);
  if (!r.ok()) return "failed: " + r.status().message();
  return r->str;
}

TEST_F(TopologyTest, RedisAppliesSettingsRecordsStateAndStops) {
  TopologySpec spec;
  spec.settings = {{"maxmemory", "8mb"}, {"maxmemory-policy", "allkeys-lru"},
                   {"appendonly", "yes"}, {"appendfsync", "no"}};
  auto t = StartOrDie(spec);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->nodes().size(), 1u);
  const NodeRecord& n = t->nodes()[0];
  EXPECT_EQ(t->dir(), root_ + "/redis");
  EXPECT_EQ(n.role, "server");
  EXPECT_EQ(n.dir, root_ + "/redis/redis");
  EXPECT_EQ(n.log, root_ + "/redis/redis/server.log");
  EXPECT_TRUE(Exists(n.log));
  auto c = Client(n);
  ASSERT_NE(c, nullptr);
  auto info = ParseInfo(Command(c.get(), {"INFO", "server"}));
  EXPECT_EQ(info["process_id"], std::to_string(n.process.pid));
  EXPECT_EQ(info["redis_version"], n.version);
  auto memory = c->Command({"CONFIG", "GET", "maxmemory"});
  ASSERT_TRUE(memory.ok());
  ASSERT_EQ(memory->elements.size(), 2u);
  EXPECT_EQ(memory->elements[1].str, "8388608");
  auto aof = c->Command({"CONFIG", "GET", "appendfsync"});
  ASSERT_TRUE(aof.ok());
  ASSERT_EQ(aof->elements.size(), 2u);
  EXPECT_EQ(aof->elements[1].str, "no");

  auto state = ReadTopologyRecord(t->state_path());
  ASSERT_TRUE(state.ok()) << state.status().message();
  EXPECT_EQ(state->status, "up");
  EXPECT_EQ(state->kind, "redis");
  EXPECT_FALSE(state->detached);
  ASSERT_EQ(state->nodes.size(), 1u);
  EXPECT_EQ(state->nodes[0].process.pid, n.process.pid);
  EXPECT_EQ(NodeOwnership(state->nodes[0]), Ownership::kOurs);

  std::vector<NodeRecord> nodes = t->nodes();
  std::string dir = t->dir();
  EXPECT_TRUE(t->Stop().ok());
  ExpectTornDown(nodes, dir);
}

TEST_F(TopologyTest, RedisReplicaCopiesWritesToEveryReplica) {
  TopologySpec spec;
  spec.kind = TopologyKind::kRedisReplica;
  spec.replicas = 2;
  auto t = StartOrDie(spec);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->nodes().size(), 3u);
  EXPECT_EQ(t->nodes()[0].role, "primary");
  EXPECT_EQ(t->nodes()[2].role, "replica");
  EXPECT_EQ(t->nodes()[2].replica_of, "primary");
  auto primary = Client(t->nodes()[0]);
  ASSERT_NE(primary, nullptr);
  EXPECT_EQ(Command(primary.get(), {"SET", "stand:key", "written-on-primary"}), "OK");
  auto acked = primary->Command({"WAIT", "2", "5000"});  // both replicas have it
  ASSERT_TRUE(acked.ok());
  EXPECT_EQ(acked->integer, 2);
  for (size_t i = 1; i < 3; ++i) {
    auto replica = Client(t->nodes()[i]);
    ASSERT_NE(replica, nullptr);
    EXPECT_EQ(Command(replica.get(), {"GET", "stand:key"}), "written-on-primary");
    auto role = ParseInfo(Command(replica.get(), {"INFO", "replication"}));
    EXPECT_EQ(role["role"], "slave");
    EXPECT_EQ(role["master_port"], std::to_string(t->nodes()[0].port));
  }
  std::vector<NodeRecord> nodes = t->nodes();
  std::string dir = t->dir();
  t.reset();  // the destructor tears down
  ExpectTornDown(nodes, dir);
}

TEST_F(TopologyTest, RedisClusterOfThreeMastersWithOneReplicaEach) {
  TopologySpec spec;
  spec.kind = TopologyKind::kRedisCluster;
  spec.masters = 3;
  spec.replicas = 1;
  auto t = StartOrDie(spec);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->nodes().size(), 6u);
  int masters = 0;
  for (const NodeRecord& n : t->nodes()) {
    masters += n.role == "master";
    ASSERT_EQ(n.ports.size(), 2u);  // client and bus
    auto c = Client(n);
    ASSERT_NE(c, nullptr);
    auto info = ParseInfo(Command(c.get(), {"CLUSTER", "INFO"}));
    EXPECT_EQ(info["cluster_state"], "ok") << n.name;
    EXPECT_EQ(info["cluster_slots_assigned"], "16384") << n.name;
    EXPECT_EQ(info["cluster_known_nodes"], "6") << n.name;
    EXPECT_EQ(info["cluster_size"], "3") << n.name;
  }
  EXPECT_EQ(masters, 3);
  // CLUSTER SLOTS from one node: ranges cover 0..16383 once; each has a master and
  // one replica, on the ports we recorded.
  auto c = Client(t->nodes()[4]);
  ASSERT_NE(c, nullptr);
  auto slots = c->Command({"CLUSTER", "SLOTS"});
  ASSERT_TRUE(slots.ok());
  int64_t covered = 0;
  std::set<int64_t> master_ports, replica_ports;
  for (const resp::Reply& range : slots->elements) {
    ASSERT_EQ(range.elements.size(), 4u);  // lo, hi, master, one replica
    covered += range.elements[1].integer - range.elements[0].integer + 1;
    master_ports.insert(range.elements[2].elements[1].integer);
    replica_ports.insert(range.elements[3].elements[1].integer);
  }
  EXPECT_EQ(covered, 16384);
  std::set<int64_t> want_masters, want_replicas;
  for (const NodeRecord& n : t->nodes()) {
    (n.role == "master" ? want_masters : want_replicas).insert(n.port);
  }
  EXPECT_EQ(master_ports, want_masters);
  EXPECT_EQ(replica_ports, want_replicas);
  std::vector<NodeRecord> nodes = t->nodes();
  std::string dir = t->dir();
  EXPECT_TRUE(t->Stop().ok());
  ExpectTornDown(nodes, dir);
}

TEST_F(TopologyTest, MemcachedTakesMemoryLimitAndThreads) {
  TopologySpec spec;
  spec.kind = TopologyKind::kMemcached;
  spec.settings = {{"memory-limit", "16"}, {"threads", "2"}};
  auto t = StartOrDie(spec);
  ASSERT_NE(t, nullptr);
  const NodeRecord& n = t->nodes()[0];
  EXPECT_FALSE(n.version.empty());
  auto stats = Exchange(n.host, n.port, "stats\r\n",
                        [](const std::string& g) { return g.find("END\r\n") != std::string::npos; },
                        5000);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_NE(stats->find("STAT pid " + std::to_string(n.process.pid) + "\r\n"), std::string::npos);
  EXPECT_NE(stats->find("STAT limit_maxbytes 16777216\r\n"), std::string::npos) << *stats;
  EXPECT_NE(stats->find("STAT threads 2\r\n"), std::string::npos) << *stats;
  std::vector<NodeRecord> nodes = t->nodes();
  std::string dir = t->dir();
  EXPECT_TRUE(t->Stop().ok());
  ExpectTornDown(nodes, dir);
}

TEST_F(TopologyTest, TarantoolRunsBoxCfgThenTheUserInit) {
  std::string user_init = root_ + "/app.lua";
  std::ofstream(user_init) << "local f = io.open('user_init_ran', 'w')\n"
                              "f:write(box.cfg.wal_mode, ' ', box.cfg.memtx_memory)\n"
                              "f:close()\n";
  TopologySpec spec;
  spec.kind = TopologyKind::kTarantool;
  spec.settings = {{"memtx_memory", "64m"}, {"wal_mode", "none"}};
  spec.init_lua = user_init;
  auto t = StartOrDie(spec);
  ASSERT_NE(t, nullptr);
  const NodeRecord& n = t->nodes()[0];
  EXPECT_EQ(ReadFile(n.dir + "/user_init_ran"), "none 67108864");
  auto greeting = Exchange(n.host, n.port, "", [](const std::string& g) { return g.size() >= 128; },
                           5000);
  ASSERT_TRUE(greeting.ok()) << greeting.status().message();
  EXPECT_TRUE(greeting->starts_with("Tarantool " + n.version + " ")) << *greeting;
  EXPECT_EQ(NodeOwnership(n), Ownership::kOurs);  // its process title was read when ready
  std::vector<NodeRecord> nodes = t->nodes();
  std::string dir = t->dir();
  EXPECT_TRUE(t->Stop().ok());
  ExpectTornDown(nodes, dir);
}

TEST_F(TopologyTest, EtcdIsHealthyWithItsQuota) {
  TopologySpec spec;
  spec.kind = TopologyKind::kEtcd;
  spec.settings = {{"quota-backend-bytes", "10485760"}};
  auto t = StartOrDie(spec);
  ASSERT_NE(t, nullptr);
  const NodeRecord& n = t->nodes()[0];
  ASSERT_EQ(n.ports.size(), 2u);
  EXPECT_NE(n.ports[0], n.ports[1]);
  const std::string quota = "\netcd_server_quota_backend_bytes ";
  auto metrics = Exchange(n.host, n.port, "GET /metrics HTTP/1.0\r\n\r\n",
                          [&](const std::string& g) {
                            size_t at = g.find(quota);
                            return at != std::string::npos && g.find('\n', at + 1) != std::string::npos;
                          },
                          5000);
  ASSERT_TRUE(metrics.ok()) << metrics.status().message();
  EXPECT_NE(metrics->find(quota + "1.048576e+07\n"), std::string::npos);
  EXPECT_TRUE(Exists(n.dir + "/data/member"));
  std::vector<NodeRecord> nodes = t->nodes();
  std::string dir = t->dir();
  EXPECT_TRUE(t->Stop().ok());
  ExpectTornDown(nodes, dir);
}

}  // namespace
}  // namespace memstand
