#include "stand/topology.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sys/wait.h>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <chrono>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "core/socket.h"
#include "npm_util.h"
#include "stand/probe_io.h"
#include "stand/process.h"
#include "stand/tarantool_driver.h"

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

bool PathExists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

using testutil::ReadFile;  // one definition: hdr_log_test.cc shares a unity batch with this file

// Every recorded process is gone (exited, not just signalled) and the folder too.
void ExpectTornDown(const std::vector<NodeRecord>& nodes, const std::string& dir) {
  for (const NodeRecord& n : nodes) {
    EXPECT_FALSE(ReadProcessIdentity(n.process.pid).ok()) << n.name << " pid " << n.process.pid;
  }
  EXPECT_FALSE(PathExists(dir)) << dir;
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
  EXPECT_TRUE(PathExists(n.log));
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
  EXPECT_EQ(NodeOwnership(*state, state->nodes[0]).verdict, Ownership::kOurs);

  std::vector<NodeRecord> nodes = t->nodes();
  std::string dir = t->dir();
  EXPECT_TRUE(t->Stop().ok());
  ExpectTornDown(nodes, dir);
}

// The state letter of /proc/<pid>/stat ('T' while stopped by SIGSTOP); '?' if unreadable.
char ProcState(pid_t pid) {
  std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() ? '?' : stat[paren + 2];
}

TEST_F(TopologyTest, RedisNodePausedKilledAndRestartedOnPurpose) {
  TopologySpec spec;
  spec.settings = {{"appendonly", "yes"}, {"appendfsync", "always"}};
  auto t = StartOrDie(spec);
  ASSERT_NE(t, nullptr);
  const NodeRecord first = t->nodes()[0];
  {
    auto c = Client(first);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(Command(c.get(), {"SET", "kept", "v1"}), "OK");
  }
  ASSERT_TRUE(t->PauseNode(0).ok());
  EXPECT_EQ(ProcState(first.process.pid), 'T');
  ASSERT_TRUE(t->ResumeNode(0).ok());
  EXPECT_NE(ProcState(first.process.pid), 'T');

  ASSERT_TRUE(t->KillNode(0).ok());
  EXPECT_FALSE(ReadProcessIdentity(first.process.pid).ok());  // reaped, not a zombie
  EXPECT_EQ(t->NodeEnded(0), "");                              // on purpose: not suspect
  EXPECT_FALSE(t->PauseNode(0).ok());
  Status restarted = t->RestartNode(0);
  ASSERT_TRUE(restarted.ok()) << restarted.message();
  const NodeRecord& second = t->nodes()[0];
  EXPECT_EQ(second.port, first.port);
  EXPECT_NE(second.process.pid, first.process.pid);
  auto state = ReadTopologyRecord(t->state_path());
  ASSERT_TRUE(state.ok()) << state.status().message();
  EXPECT_EQ(state->nodes[0].process.pid, second.process.pid);
  EXPECT_EQ(NodeOwnership(*state, state->nodes[0]).verdict, Ownership::kOurs);
  auto c = Client(second);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(Command(c.get(), {"GET", "kept"}), "v1");  // same folder: the AOF was replayed
  EXPECT_FALSE(t->RestartNode(0).ok());                // it runs: kill it first

  std::vector<NodeRecord> nodes = t->nodes();
  std::string dir = t->dir();
  EXPECT_TRUE(t->Stop().ok());
  ExpectTornDown(nodes, dir);
}

// Stop with one node paused and another killed on purpose: OK, nothing left stopped or
// running; a bad index is refused.
TEST_F(TopologyTest, StopResumesAPausedNodeAndAcceptsAKilledOne) {
  TopologySpec spec;
  spec.kind = TopologyKind::kRedisReplica;
  spec.name = "faults";
  spec.replicas = 1;
  auto t = StartOrDie(spec);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->nodes().size(), 2u);
  EXPECT_EQ(t->KillNode(7).code(), Status::Code::kInvalidArgument);
  ASSERT_TRUE(t->PauseNode(0).ok());
  ASSERT_TRUE(t->KillNode(1).ok());
  EXPECT_EQ(ProcState(t->nodes()[0].process.pid), 'T');
  std::vector<NodeRecord> nodes = t->nodes();
  std::string dir = t->dir();
  Status stopped = t->Stop();
  EXPECT_TRUE(stopped.ok()) << stopped.message();
  ExpectTornDown(nodes, dir);
}

// SENTINEL GET-MASTER-ADDR-BY-NAME mymaster on one Sentinel: "host:port", or why not.
std::string PrimaryPerSentinel(const NodeRecord& sentinel) {
  auto c = Client(sentinel);
  if (c == nullptr) return "no connection";
  auto r = c->Command({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster"});
  if (!r.ok() || r->elements.size() != 2) return "no answer";
  return r->elements[0].str + ":" + r->elements[1].str;
}

using testutil::Within;

// The stand's Sentinels do fail over: the primary killed, every Sentinel names the
// replica; the old primary restarts on its port.
TEST_F(TopologyTest, RedisSentinelPromotesTheReplicaWhenThePrimaryIsKilled) {
  TopologySpec spec;
  spec.kind = TopologyKind::kRedisSentinel;
  spec.replicas = 1;
  spec.settings = {{"sentinel.down-after-milliseconds", "500"}, {"sentinel.failover-timeout", "2000"}};
  auto t = StartOrDie(spec);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->nodes().size(), 5u);  // primary, replica-1, sentinel-1..3
  const NodeRecord primary = t->nodes()[0], replica = t->nodes()[1];
  EXPECT_EQ(t->nodes()[2].name, "sentinel-1");
  EXPECT_EQ(t->nodes()[4].role, "sentinel");
  const std::string first = primary.host + ":" + std::to_string(primary.port);
  for (size_t i = 2; i < 5; ++i) EXPECT_EQ(PrimaryPerSentinel(t->nodes()[i]), first);

  ASSERT_TRUE(t->KillNode(0).ok());
  const std::string promoted = replica.host + ":" + std::to_string(replica.port);
  EXPECT_TRUE(Within(30, [&] {
    for (size_t i = 2; i < 5; ++i) {
      if (PrimaryPerSentinel(t->nodes()[i]) != promoted) return false;
    }
    return true;
  })) << PrimaryPerSentinel(t->nodes()[2]);
  auto c = Client(replica);
  ASSERT_NE(c, nullptr);
  EXPECT_NE(Command(c.get(), {"INFO", "replication"}).find("role:master"), std::string::npos);

  // The old primary comes back on its port. Whether the Sentinels then make it a replica
  // is not asserted: in some runs they had not within 90 s (cause not found yet).
  ASSERT_TRUE(t->RestartNode(0).ok());
  auto old = Client(t->nodes()[0]);
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(Command(old.get(), {"PING"}), "PONG");
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
  EXPECT_EQ(NodeOwnership(t->record(), n).verdict, Ownership::kOurs);  // its process title was read when ready
  std::vector<NodeRecord> nodes = t->nodes();
  std::string dir = t->dir();
  EXPECT_TRUE(t->Stop().ok());
  ExpectTornDown(nodes, dir);
}

TEST_F(TopologyTest, TarantoolReplicaSetOfAMasterAndTwoReplicas) {
  std::string user_init = root_ + "/app.lua";
  std::ofstream(user_init) << "box.schema.space.create('stand_test', {if_not_exists = true})\n";
  TopologySpec spec;
  spec.kind = TopologyKind::kTarantoolReplicaSet;
  spec.replicas = 2;
  spec.init_lua = user_init;
  auto t = StartOrDie(spec);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->nodes().size(), 3u);
  EXPECT_EQ(t->record().replicas, 2);
  EXPECT_EQ(t->nodes()[0].name, "master");
  EXPECT_EQ(t->nodes()[0].role, "master");
  std::string uris;
  for (const NodeRecord& n : t->nodes()) uris += (uris.empty() ? "'" : ", '") + n.host + ":" + std::to_string(n.port) + "'";
  for (size_t i = 0; i < 3; ++i) {
    const NodeRecord& n = t->nodes()[i];
    EXPECT_EQ(NodeOwnership(t->record(), n).verdict, Ownership::kOurs) << n.name;
    std::string lua = ReadFile(n.dir + "/init.lua");
    EXPECT_NE(lua.find("replication = {" + uris + "}"), std::string::npos) << lua;
    EXPECT_EQ(lua.find("read_only = true") != std::string::npos, i > 0) << n.name;
    EXPECT_EQ(lua.find("dofile(") != std::string::npos, i == 0) << n.name;  // the master's alone
    EXPECT_NE(ReadFile(n.log).find(ReplicationReadyLine(n.process.pid) + " 2 peers follow"), std::string::npos)
        << n.name;
    if (i > 0) {
      EXPECT_EQ(n.name, "replica-" + std::to_string(i));
      EXPECT_EQ(n.role, "replica");
      EXPECT_EQ(n.replica_of, "master");
    }
  }
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
  EXPECT_TRUE(PathExists(n.dir + "/data/member"));
  std::vector<NodeRecord> nodes = t->nodes();
  std::string dir = t->dir();
  EXPECT_TRUE(t->Stop().ok());
  ExpectTornDown(nodes, dir);
}

// One gauge of an etcd member's /metrics ("etcd_server_is_leader"): its value, or -1.
int EtcdGauge(const NodeRecord& n, const std::string& name) {
  const std::string line = "\n" + name + " ";
  auto metrics = Exchange(n.host, n.port, "GET /metrics HTTP/1.0\r\n\r\n",
                          [&](const std::string& g) {
                            size_t at = g.find(line);
                            return at != std::string::npos && g.find('\n', at + 1) != std::string::npos;
                          },
                          5000);
  if (!metrics.ok()) return -1;
  return std::atoi(metrics->c_str() + metrics->find(line) + line.size());
}

// The member that leads, when every member in `alive` has a leader and exactly one of
// them is it; -1 otherwise.
int EtcdLeader(const std::vector<NodeRecord>& nodes, const std::vector<size_t>& alive) {
  int leader = -1, leaders = 0;
  for (size_t i : alive) {
    if (EtcdGauge(nodes[i], "etcd_server_has_leader") != 1) return -1;
    if (EtcdGauge(nodes[i], "etcd_server_is_leader") == 1) {
      leader = static_cast<int>(i);
      ++leaders;
    }
  }
  return leaders == 1 ? leader : -1;
}

// Three members form one cluster with one leader; the leader killed, the other two elect
// one of themselves; the killed member restarted on its ports and data rejoins.
TEST_F(TopologyTest, EtcdClusterElectsAgainWhenItsLeaderIsKilled) {
  TopologySpec spec;
  spec.kind = TopologyKind::kEtcdCluster;
  auto t = StartOrDie(spec);
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->nodes().size(), 3u);
  EXPECT_EQ(t->nodes()[0].name, "member-1");
  EXPECT_EQ(t->nodes()[2].role, "member");
  const int leader = EtcdLeader(t->nodes(), {0, 1, 2});
  ASSERT_GE(leader, 0);
  ASSERT_TRUE(t->KillNode(static_cast<size_t>(leader)).ok());
  std::vector<size_t> rest;
  for (size_t i = 0; i < 3; ++i) {
    if (static_cast<int>(i) != leader) rest.push_back(i);
  }
  int second = -1;
  EXPECT_TRUE(Within(30, [&] { return (second = EtcdLeader(t->nodes(), rest)) >= 0; }));
  EXPECT_NE(second, leader);
  Status back = t->RestartNode(static_cast<size_t>(leader));
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_TRUE(Within(30, [&] { return EtcdLeader(t->nodes(), {0, 1, 2}) >= 0; }));
  std::vector<NodeRecord> nodes = t->nodes();
  std::string dir = t->dir();
  EXPECT_TRUE(t->Stop().ok());
  ExpectTornDown(nodes, dir);
}

// --- bad input -----------------------------------------------------------------------

bool RootIsEmpty(const std::string& root) {
  std::error_code ec;
  return std::filesystem::is_empty(root, ec);
}

Status StartError(const TopologySpec& spec, const TopologyOptions& options) {
  auto t = Topology::Start(spec, options);
  return t.ok() ? Status::OK() : t.status();
}

TEST_F(TopologyTest, BadSpecsAreInvalidArgumentNamingTheFlagAndStartNothing) {
  auto kind = ParseTopologyKind("redis-sentry");
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.status().message(),
            "unknown topology 'redis-sentry'; known: redis, redis-replica, redis-cluster, "
            "redis-sentinel, memcached, tarantool, tarantool-replicaset, tarantool-sharded, etcd, etcd-cluster");
  struct Case {
    TopologySpec spec;
    std::string message_part;
  };
  std::vector<Case> cases;
  auto add = [&](TopologyKind k, auto edit, std::string part) {
    TopologySpec spec;
    spec.kind = k;
    edit(spec);
    cases.push_back({spec, std::move(part)});
  };
  add(TopologyKind::kRedisCluster, [](TopologySpec& s) { s.masters = -1; },
      "--masters -1: a cluster needs at least 1 master");
  add(TopologyKind::kRedisReplica, [](TopologySpec& s) { s.replicas = 0; },
      "--replicas 0: redis-replica needs at least 1 replica");
  add(TopologyKind::kRedis, [](TopologySpec& s) { s.masters = 3; },
      "--masters applies to redis-cluster only, not redis");
  add(TopologyKind::kMemcached, [](TopologySpec& s) { s.replicas = 1; },
      "--replicas applies to redis-replica, redis-cluster, redis-sentinel, tarantool-replicaset and tarantool-sharded only, not "
      "memcached");
  add(TopologyKind::kEtcd, [](TopologySpec& s) { s.members = 3; },
      "--members applies to etcd-cluster only, not etcd");
  add(TopologyKind::kEtcdCluster, [](TopologySpec& s) { s.members = 0; },
      "--members 0: etcd-cluster needs at least 1 member");
  add(TopologyKind::kEtcdCluster, [](TopologySpec& s) {
        s.port = 2000;
        s.peer_port = 2001;
      },
      "--peer-port 2001: its ports overlap --port's");
  add(TopologyKind::kEtcdCluster, [](TopologySpec& s) { s.settings = {{"initial-cluster-token", "x"}}; },
      "--set initial-cluster-token: managed by memstand");
  add(TopologyKind::kRedisReplica, [](TopologySpec& s) { s.sentinels = 3; },
      "--sentinels applies to redis-sentinel only, not redis-replica");
  add(TopologyKind::kRedisSentinel, [](TopologySpec& s) { s.sentinels = 0; },
      "--sentinels 0: redis-sentinel needs at least 1 Sentinel");
  add(TopologyKind::kRedisSentinel, [](TopologySpec& s) { s.settings = {{"sentinel.monitor", "x"}}; },
      "--set sentinel.monitor: memstand passes sentinel.down-after-milliseconds");
  add(TopologyKind::kRedis, [](TopologySpec& s) { s.settings = {{"sentinel.failover-timeout", "1"}}; },
      "--set sentinel.failover-timeout: sentinel settings apply to redis-sentinel only");
  add(TopologyKind::kRedisSentinel, [](TopologySpec& s) { s.settings = {{"replicaof", "h 1"}}; },
      "--set replicaof: managed by memstand");
  add(TopologyKind::kTarantoolReplicaSet, [](TopologySpec& s) { s.replicas = 0; },
      "--replicas 0: tarantool-replicaset needs at least 1 replica");
  add(TopologyKind::kTarantoolReplicaSet, [](TopologySpec& s) { s.settings = {{"read_only", "false"}}; },
      "--set read_only: managed by memstand");
  add(TopologyKind::kRedisCluster, [](TopologySpec& s) { s.masters = 300; }, "at most 256");
  add(TopologyKind::kRedis, [](TopologySpec& s) { s.settings = {{"port", "1"}}; },
      "--set port: managed by memstand");
  add(TopologyKind::kRedis, [](TopologySpec& s) { s.settings = {{"include", "/etc/other.conf"}}; },
      "--set include: managed by memstand");
  add(TopologyKind::kRedisCluster, [](TopologySpec& s) { s.settings = {{"Include", "/x.conf"}}; },
      "--set Include: managed by memstand");
  add(TopologyKind::kRedis, [](TopologySpec& s) { s.settings = {{"PORT", "1"}}; },
      "--set PORT: managed by memstand");
  add(TopologyKind::kRedis, [](TopologySpec& s) { s.settings = {{"aclfile", "/etc/redis/users.acl"}}; },
      "--set aclfile: managed by memstand");
  add(TopologyKind::kRedisCluster, [](TopologySpec& s) { s.settings = {{"LoadModule", "/x/m.so"}}; },
      "--set LoadModule: managed by memstand");
  add(TopologyKind::kRedisSentinel, [](TopologySpec& s) { s.settings = {{"loadmodule", "/x/m.so"}}; },
      "--set loadmodule: managed by memstand");
  add(TopologyKind::kRedisReplica, [](TopologySpec& s) { s.settings = {{"cluster-config-file", "/x/n.conf"}}; },
      "--set cluster-config-file: managed by memstand");
  add(TopologyKind::kEtcd, [](TopologySpec& s) { s.settings = {{"data-dir", "/x"}}; },
      "--set data-dir: managed by memstand");
  add(TopologyKind::kRedis, [](TopologySpec& s) { s.settings = {{"a b", "1"}}; }, "--set 'a b=1'");
  add(TopologyKind::kRedis, [](TopologySpec& s) { s.name = "../up"; }, "--name '../up'");
  add(TopologyKind::kRedis, [](TopologySpec& s) { s.port = 70000; }, "--port 70000");
  add(TopologyKind::kRedis, [](TopologySpec& s) { s.peer_port = 2380; }, "--peer-port applies to etcd");
  add(TopologyKind::kTarantool, [](TopologySpec& s) { s.init_lua = "/nonexistent/init.lua"; },
      "--init-lua '/nonexistent/init.lua': no such file");
  for (const Case& c : cases) {
    Status s = StartError(c.spec, options_);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << c.message_part;
    EXPECT_NE(s.message().find(c.message_part), std::string::npos) << s.message();
  }
  EXPECT_TRUE(RootIsEmpty(root_));
}

TEST_F(TopologyTest, MissingBinaryNamesTheDebianPackage) {
  TopologySpec spec;
  spec.binary = "memstand-no-such-server";
  Status s = StartError(spec, options_);
  EXPECT_EQ(s.code(), Status::Code::kNotFound);
  EXPECT_EQ(s.message(),
            "memstand-no-such-server not found in PATH; install it with: apt-get install "
            "redis-server");
  // The default binaries, with nothing on PATH.
  std::string path = std::getenv("PATH");
  setenv("PATH", "/nonexistent", 1);
  const std::vector<std::pair<TopologyKind, std::string>> expected = {
      {TopologyKind::kRedisCluster, "redis-server not found in PATH; install it with: apt-get install redis-server"},
      {TopologyKind::kMemcached, "memcached not found in PATH; install it with: apt-get install memcached"},
      {TopologyKind::kTarantool, "tarantool not found in PATH; install it with: apt-get install tarantool"},
      {TopologyKind::kEtcd, "etcd not found in PATH; install it with: apt-get install etcd-server"},
  };
  for (const auto& [kind, message] : expected) {
    TopologySpec k;
    k.kind = kind;
    EXPECT_EQ(StartError(k, options_).message(), message);
  }
  setenv("PATH", path.c_str(), 1);
  EXPECT_TRUE(RootIsEmpty(root_));
}

TEST_F(TopologyTest, GivenPortIsUsedAndABusyOneIsInvalidArgument) {
  auto free_port = PickFreePort();
  ASSERT_TRUE(free_port.ok());
  TopologySpec spec;
  spec.port = *free_port;
  auto t = StartOrDie(spec);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->nodes()[0].port, *free_port);
  t.reset();

  auto busy = ListenTcp("127.0.0.1", 0);
  ASSERT_TRUE(busy.ok());
  int busy_port = *LocalPort(*busy);
  spec.port = busy_port;
  Status s = StartError(spec, options_);
  close(*busy);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("port " + std::to_string(busy_port) + " on 127.0.0.1 is already in use"),
            std::string::npos)
      << s.message();
  EXPECT_TRUE(RootIsEmpty(root_));
}

TEST_F(TopologyTest, RejectedSettingsAreInvalidArgumentWithTheServersComplaint) {
  struct Case {
    TopologyKind kind;
    std::pair<std::string, std::string> setting;
    std::string complaint;
  };
  const std::vector<Case> cases = {
      {TopologyKind::kRedis, {"maxmemory-policy", "nonsense"}, "FATAL CONFIG FILE ERROR"},
      {TopologyKind::kMemcached, {"threads", "0"}, "Number of threads must be greater than 0"},
      {TopologyKind::kTarantool, {"wal_mode", "bogus"}, "Incorrect value for option 'wal_mode'"},
      // Accepted by box.cfg, then too small for the storage to start.
      {TopologyKind::kTarantool, {"memtx_memory", "1k"}, "can't initialize storage"},
      {TopologyKind::kEtcd, {"quota-backend-bytes", "lots"}, "invalid value"},
  };
  for (const Case& c : cases) {
    TopologySpec spec;
    spec.kind = c.kind;
    spec.settings = {c.setting};
    Status s = StartError(spec, options_);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.message();
    EXPECT_NE(s.message().find(c.complaint), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("last lines of " + root_), std::string::npos) << s.message();
  }
  EXPECT_TRUE(RootIsEmpty(root_));
}

TEST_F(TopologyTest, TheSameNameIsRefusedWhileUpAndReplacedOnceGone) {
  TopologySpec spec;
  spec.name = "twice";
  auto first = StartOrDie(spec);
  ASSERT_NE(first, nullptr);
  Status s = StartError(spec, options_);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("topology 'twice' is already up"), std::string::npos) << s.message();
  EXPECT_EQ(NodeOwnership(first->record(), first->nodes()[0]).verdict, Ownership::kOurs);  // untouched

  // A leftover state file whose processes are gone does not block a new start.
  TopologyRecord leftover = first->record();
  ASSERT_TRUE(first->Stop().ok());
  std::filesystem::create_directories(leftover.dir);
  ASSERT_TRUE(WriteTopologyRecord(leftover.dir + "/state.json", leftover).ok());
  auto second = StartOrDie(spec);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(second->nodes()[0].process.pid, leftover.nodes[0].process.pid);

  std::filesystem::create_directories(root_ + "/not-ours");
  spec.name = "not-ours";
  s = StartError(spec, options_);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("is not a memstand run folder"), std::string::npos) << s.message();
}

// --- detached topologies and `down` --------------------------------------------------------

TEST_F(TopologyTest, DetachedTopologyOutlivesItsObjectUntilStoppedFromItsRecord) {
  options_.detach = true;
  TopologySpec spec;
  spec.kind = TopologyKind::kMemcached;
  auto t = StartOrDie(spec);
  ASSERT_NE(t, nullptr);
  std::string state = t->state_path();
  NodeRecord node = t->nodes()[0];
  TopologyRecord record = t->record();
  t->Detach();
  t.reset();
  EXPECT_EQ(NodeOwnership(record, node).verdict, Ownership::kOurs);
  EXPECT_EQ(getsid(node.process.pid), node.process.pid);  // its own session

  auto listed = ListTopologies(root_);
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  ASSERT_EQ(listed->size(), 1u);
  const ListedTopology& only = (*listed)[0];
  ASSERT_TRUE(only.record.ok()) << only.record.status().message();
  EXPECT_EQ(only.record->name, "memcached");
  EXPECT_TRUE(only.record->detached);
  std::vector<std::string> messages;
  Status s = StopRecordedTopology(*only.record, &messages);
  EXPECT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0],
            "memcached (memcached, pid " + std::to_string(node.process.pid) + "): stopped");
  waitpid(node.process.pid, nullptr, WNOHANG);  // ours to reap: it was spawned by this process
  EXPECT_FALSE(ReadProcessIdentity(node.process.pid).ok());
  EXPECT_FALSE(PathExists(state));
  EXPECT_TRUE(ListTopologies(root_)->empty());
}

TEST_F(TopologyTest, StoppingFromARecordLeavesAReusedPidAlone) {
  auto stranger = Process::Spawn(SpawnOptions{{"sleep", "1000"}, "", ""});
  ASSERT_TRUE(stranger.ok());
  auto id = ReadProcessIdentity((*stranger)->pid());
  ASSERT_TRUE(id.ok());
  TopologyRecord record;
  record.name = "reused";
  record.kind = "redis";
  record.status = "up";
  record.dir = root_ + "/reused";
  NodeRecord n;
  n.name = "redis";
  n.binary = "redis-server";
  n.process = *id;
  n.process.cmdline = {"redis-server 127.0.0.1:6379"};  // what memstand had started there
  record.nodes = {n};
  std::filesystem::create_directories(record.dir);
  ASSERT_TRUE(WriteTopologyRecord(record.dir + "/state.json", record).ok());
  auto read = ReadTopologyRecord(record.dir + "/state.json");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(NodeOwnership(*read, read->nodes[0]).verdict, Ownership::kOther);
  std::vector<std::string> messages;
  EXPECT_TRUE(StopRecordedTopology(*read, &messages).ok());
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "redis (redis-server, pid " + std::to_string(id->pid) +
                             "): left alone, the pid now runs 'sleep 1000', not the process "
                             "memstand started");
  EXPECT_TRUE((*stranger)->Alive());
  EXPECT_FALSE(PathExists(record.dir));
}

TEST(StandStateTest, RecordRoundTripsAndJunkIsRejected) {
  char tmpl[] = "/tmp/stand_state_test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  TopologyRecord r;
  r.name = "c";
  r.kind = "redis-cluster";
  r.status = "up";
  r.masters = 3;
  r.replicas = 1;
  r.detached = true;
  r.settings = {{"maxmemory", "1gb"}};
  NodeRecord n;
  n.name = "replica-1-1";
  n.role = "replica";
  n.replica_of = "master-1";
  n.host = "127.0.0.1";
  n.port = 7001;
  n.ports = {7001, 17001};
  n.process.pid = 42;
  n.process.start_ticks = 99;
  n.process.cmdline = {"redis-server 127.0.0.1:7001 [cluster]"};
  r.nodes = {n};
  ASSERT_TRUE(WriteTopologyRecord(dir + "/state.json", r).ok());
  auto back = ReadTopologyRecord(dir + "/state.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->dir, dir);
  EXPECT_EQ(back->settings, r.settings);
  EXPECT_EQ(back->masters, 3);
  EXPECT_TRUE(back->detached);
  ASSERT_EQ(back->nodes.size(), 1u);
  EXPECT_EQ(back->nodes[0].replica_of, "master-1");
  EXPECT_EQ(back->nodes[0].ports, n.ports);
  EXPECT_EQ(back->nodes[0].process.start_ticks, 99u);
  EXPECT_EQ(back->nodes[0].process.cmdline, n.process.cmdline);
  std::ofstream(dir + "/state.json") << "{\"name\": 1}";
  EXPECT_EQ(ReadTopologyRecord(dir + "/state.json").status().code(), Status::Code::kProtocol);
  EXPECT_EQ(ReadTopologyRecord(dir + "/none.json").status().code(), Status::Code::kIoError);
  // Nested a million deep: refused before nlohmann's recursive parser sees it.
  std::ofstream(dir + "/state.json") << "{\"memstand_state\": " << std::string(1'000'000, '[')
                                     << std::string(1'000'000, ']') << "}";
  auto deep = ReadTopologyRecord(dir + "/state.json");
  EXPECT_EQ(deep.status().code(), Status::Code::kProtocol);
  EXPECT_NE(deep.status().message().find("nested deeper than 64 levels"), std::string::npos)
      << deep.status().message();
  std::system(("rm -rf '" + dir + "'").c_str());
}

}  // namespace
}  // namespace memstand
