// memstand run --cluster against a real 3-master Redis Cluster the test builds from
// redis-server processes (cluster-enabled) joined by `redis-cli --cluster create`.
// Every test runs over epoll and over io_uring (IoModeTest).
#include <signal.h>

#include <chrono>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "e2e/e2e_util.h"
#include "history/history_reader.h"
#include "load/cluster_map.h"
#include "npm_util.h"
#include "stand/local_redis.h"

namespace memstand::e2e {
namespace {

class ClusterE2E : public IoModeTest {
 protected:
  void SetUp() override {
    for (int i = 0; i < 3 * (1 + replicas_); ++i) {
      ASSERT_NO_FATAL_FAILURE(StartNode());
    }
    std::string cmd = "redis-cli --cluster create";
    for (const auto& n : nodes_) cmd += " 127.0.0.1:" + std::to_string(n->port());
    cmd += " --cluster-replicas " + std::to_string(replicas_);
    auto created = testutil::RunShell(cmd + " --cluster-yes 2>&1");
    ASSERT_EQ(created.exit_code, 0) << created.output;
    for (int i = 0; i < 300 && !AllOk(); ++i) {  // 30 s: a loaded CI machine is slow
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(AllOk()) << "cluster_state:ok not reached within 30 s";
  }

  // A cluster-enabled redis-server in no cluster yet, appended to nodes_.
  void StartNode() {
    LocalRedisOptions o;
    o.config = {{"cluster-enabled", "yes"}, {"cluster-config-file", "nodes.conf"},
                {"cluster-node-timeout", "5000"},
                // A replica's first sync would wait 5 s (the diskless default) for more
                // replicas to join it; there is one per master. And CLUSTER SLOTS lists
                // a replica only once its offset is not 0, which a fresh master's first
                // PING to it makes so: every 10 s by default, every second here.
                {"repl-diskless-sync-delay", "0"}, {"repl-ping-replica-period", "1"}};
    // A cluster node's bus listens on port + 10000, so redis refuses ports above
    // 55535; the free port LocalRedis picks may be one: try again.
    auto r = LocalRedis::Start(o);
    for (int retry = 0; retry < 20 && !r.ok() &&
                        r.status().message().find("port number too high") != std::string::npos;
         ++retry) {
      r = LocalRedis::Start(o);
    }
    ASSERT_TRUE(r.ok()) << r.status().message();
    nodes_.push_back(std::move(*r));
  }

  // Every node is stopped and gone (checked by pid), whatever the test did to it.
  void TearDown() override {
    for (auto& n : nodes_) {
      const pid_t pid = n->pid();
      n->Stop();
      EXPECT_FALSE(ProcessExists(pid)) << "redis-server " << pid << " left running";
    }
  }

  std::unique_ptr<RedisClient> Client(int i) {
    RedisClientOptions o;
    o.host = "127.0.0.1";
    o.port = nodes_[i]->port();
    auto c = RedisClient::Connect(o);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? std::move(*c) : nullptr;
  }
  resp::Reply Call(int i, const std::vector<std::string>& args) {
    auto c = Client(i);
    auto r = c->Command(args);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? *r : resp::Reply();
  }
  bool AllOk() {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      auto info = Call(static_cast<int>(i), {"CLUSTER", "INFO"});
      if (info.str.find("cluster_state:ok") == std::string::npos) return false;
    }
    return true;
  }
  std::string Url(int i) { return "redis://127.0.0.1:" + std::to_string(nodes_[i]->port()); }
  // The node index owning `slot`, from node 0's CLUSTER SLOTS.
  int Owner(int slot) {
    auto map = ParseClusterSlots(Call(0, {"CLUSTER", "SLOTS"}), "127.0.0.1");
    EXPECT_TRUE(map.ok());
    const ClusterNode& n = map->nodes()[map->NodeOf(slot)];
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i]->port() == n.port) return static_cast<int>(i);
    }
    return -1;
  }
  // Moves `slot` with its keys from node `from` to node `to` as redis-cli's resharding
  // does (IMPORTING, MIGRATING, MIGRATE in batches, then NODE on the destination, the
  // source and the other masters, in that order: the other way round the source
  // already redirects to a destination that still redirects back, and a client
  // following MOVED fast enough runs out of redirects), pausing between batches so
  // that requests meet the ASK state.
  void MigrateSlot(int slot, int from, int to) {
    auto id = [&](int i) { return Call(i, {"CLUSTER", "MYID"}).str; };
    const std::string from_id = id(from), to_id = id(to), s = std::to_string(slot);
    ASSERT_EQ(Call(to, {"CLUSTER", "SETSLOT", s, "IMPORTING", from_id}).str, "OK");
    ASSERT_EQ(Call(from, {"CLUSTER", "SETSLOT", s, "MIGRATING", to_id}).str, "OK");
    for (int round = 0; round < 100; ++round) {
      auto keys = Call(from, {"CLUSTER", "GETKEYSINSLOT", s, "50"});
      if (keys.elements.empty()) break;
      std::vector<std::string> cmd = {"MIGRATE", "127.0.0.1", std::to_string(nodes_[to]->port()),
                                      "", "0", "5000", "KEYS"};
      for (const auto& k : keys.elements) cmd.push_back(k.str);
      auto moved = Call(from, cmd);
      ASSERT_FALSE(moved.is_error()) << moved.str;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let ASKs happen
    }
    std::vector<int> order = {to, from};
    for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) {
      if (i != to && i != from && IsMaster(i)) order.push_back(i);
    }
    for (int i : order) ASSERT_EQ(Call(i, {"CLUSTER", "SETSLOT", s, "NODE", to_id}).str, "OK");
  }
  bool IsMaster(int i) {
    return Call(i, {"INFO", "replication"}).str.find("role:master") != std::string::npos;
  }
  int64_t Calls(int i, const std::string& command) {
    auto stats = ParseCommandStats(Call(i, {"INFO", "commandstats"}).str);
    auto it = stats.find(command);
    return it == stats.end() ? 0 : it->second.calls + it->second.rejected_calls;
  }
  // The connections of node i whose last command was a SET or a GET: the run's (the
  // test's own run CLUSTER or INFO; a replica's link to it runs neither).
  int LoadConnections(int i) {
    std::istringstream lines(Call(i, {"CLIENT", "LIST"}).str);
    int n = 0;
    for (std::string line; std::getline(lines, line);) {
      n += line.find(" cmd=set ") != std::string::npos || line.find(" cmd=get ") != std::string::npos;
    }
    return n;
  }
  // Until node i has served n SETs (the run is under way), at most 10 s.
  void WaitForSets(int i, int64_t n, const Running& run) {
    for (int k = 0; k < 200 && Calls(i, "set") < n; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_GE(Calls(i, "set"), n) << run.OutputSoFar();
  }

  int replicas_ = 0;  // per master
  std::vector<std::unique_ptr<LocalRedis>> nodes_;
};

class ClusterWithReplicasE2E : public ClusterE2E {
 protected:
  ClusterWithReplicasE2E() { replicas_ = 1; }
  bool IsReplica(int i) {
    return Call(i, {"INFO", "replication"}).str.find("role:slave") != std::string::npos;
  }
  bool ReplicasSynced() {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      auto info = Call(static_cast<int>(i), {"INFO", "replication"}).str;
      if (info.find("role:slave") != std::string::npos &&
          info.find("master_link_status:up") == std::string::npos) {
        return false;
      }
    }
    // ... and the seed's CLUSTER SLOTS lists a replica for every range (gossip lags).
    for (const auto& range : Call(0, {"CLUSTER", "SLOTS"}).elements) {
      if (range.elements.size() < 4) return false;
    }
    return true;
  }
  // The node index of a replica of node `master`, or -1.
  int ReplicaOf(int master) {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const std::string info = Call(static_cast<int>(i), {"INFO", "replication"}).str;
      if (info.find("role:slave") != std::string::npos &&
          info.find("master_port:" + std::to_string(nodes_[master]->port()) + "\r") != std::string::npos) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }
  // Slot 0's master, its replica, and another master to seed a run with, once every
  // replica is in sync.
  struct SlotZero {
    int master = -1, replica = -1, seed = -1;
  };
  void RolesOfSlotZero(SlotZero* z) {
    for (int i = 0; i < 300 && !ReplicasSynced(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_TRUE(ReplicasSynced());
    z->master = Owner(0);
    ASSERT_GE(z->master, 0);
    z->replica = ReplicaOf(z->master);
    ASSERT_GE(z->replica, 0) << "no replica of the master of slot 0";
    z->seed = z->master == 0 ? 1 : 0;
  }
  // Waits (bounded: 10 s) until node i counted n SETs: the run's load is under way.
  // CLUSTER SLOTS (the map reads of memstand's control side) served by all the nodes.
  int64_t SlotsReads() {
    int64_t n = 0;
    for (size_t i = 0; i < nodes_.size(); ++i) n += Calls(static_cast<int>(i), "cluster|slots");
    return n;
  }
};

// --read-from-replicas: every GET is served by a replica (READONLY), every SET by a
// master, and the cross-check (masters' counts plus the replicas' reads) holds.
TEST_P(ClusterWithReplicasE2E, ReadsGoToReplicas) {
  // Up to 30 s: a replica's first sync and the gossip that tells the seed about it took
  // over 10 s once, with CI's build and a valgrind run sharing the two cores.
  for (int i = 0; i < 300 && !ReplicasSynced(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(ReplicasSynced());
  std::string json = TempDir() + "/run.json";
  Outcome out = RunMemstand({"run", "--target", Url(0), "--cluster", "--read-from-replicas",
                             "--exclusive", "-n", "3000", "--io", Io(), "--json", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  auto j = ReadJson(json);
  EXPECT_FALSE(j["cross_check"]["mismatch"].get<bool>()) << out.output;
  int64_t replica_gets = 0, master_gets = 0, replicas = 0;
  for (int i = 0; i < static_cast<int>(nodes_.size()); ++i) {
    if (IsReplica(i)) {
      ++replicas;
      replica_gets += Calls(i, "get");
      EXPECT_GT(Calls(i, "readonly"), 0) << "replica " << i;
    } else {
      master_gets += Calls(i, "get");
    }
  }
  EXPECT_EQ(replicas, 3);
  EXPECT_EQ(master_gets, 0);
  const nlohmann::json* get = nullptr;
  for (const auto& c : j["commands"]) {
    if (c["command"] == "GET") get = &c;
  }
  ASSERT_NE(get, nullptr);
  EXPECT_EQ(replica_gets, (*get)["ops"].get<int64_t>());
}

// Sequential SETs of 1000 keys: every master gets its share, the three DBSIZEs add up
// to the keys, the masters' commandstats add up to memstand's counts (--exclusive
// makes a mismatch fail the run), and with the map right from the start, no MOVED.
TEST_P(ClusterE2E, RoutesEveryKeyToItsMaster) {
  std::string json = TempDir() + "/run.json";
  Outcome out = RunMemstand({"run", "--target", Url(1), "--cluster", "--exclusive", "--ratio",
                             "1:0", "--key-pattern", "S", "--key-maximum", "999", "-n", "1000",
                             "--clients", "4", "--io", Io(), "--json", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  auto j = ReadJson(json);
  EXPECT_EQ(j["cluster"]["masters"].size(), 3u);
  EXPECT_EQ(j["cluster"]["moved"], 0);
  EXPECT_EQ(j["totals"]["errors"], 0);
  EXPECT_FALSE(j["cross_check"]["mismatch"].get<bool>()) << out.output;
  EXPECT_EQ(j["options"]["io"], Io());
  EXPECT_EQ(j["cluster"]["connections_opened"], 0);
  int64_t keys = 0, sets = 0;
  for (int i = 0; i < 3; ++i) {
    int64_t n = Call(i, {"DBSIZE"}).integer;
    EXPECT_GT(n, 200) << "node " << i << " got too few of 1000 uniform-slot keys";
    keys += n;
    sets += Calls(i, "set");
    // Every key a node holds hashes to a slot it owns.
    auto some = Call(i, {"RANDOMKEY"});
    EXPECT_EQ(Owner(KeySlot(some.str)), i) << some.str;
  }
  EXPECT_EQ(keys, 1000);
  EXPECT_EQ(sets, 1000);
}

// Without --cluster every request goes to the given node: the keys it does not own are
// answered MOVED, counted by kind and not followed (how a cluster-unaware client fares).
// The published study's memtier line (--cluster-mode, --print-percentiles,
// --hide-histogram), shortened to -n 100 per client: every request reaches a master,
// and memtier's table has its cluster columns.
TEST_P(ClusterE2E, MemtierClusterModeRunsThePublishedLine) {
  if (Io() == "epoll") GTEST_SKIP() << "memtier's line has no --io: the uring instance runs it (auto)";
  int64_t before = 0;
  for (int i = 0; i < 3; ++i) before += Calls(i, "set") + Calls(i, "get");
  Outcome out = RunMemstand({"memtier", "--cluster-mode", "-s", "127.0.0.1", "-p", std::to_string(nodes_[0]->port()),
                             "--ratio=1:10", "--key-pattern=R:R", "--key-maximum=100000", "-d", "100", "-c", "2",
                             "-t", "2", "-n", "100", "--print-percentiles", "50,99,99.9", "--hide-histogram"});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  int64_t after = 0;
  for (int i = 0; i < 3; ++i) after += Calls(i, "set") + Calls(i, "get");
  EXPECT_EQ(after - before, 2 * 2 * 100) << out.output;
  EXPECT_NE(out.output.find("Type         Ops/sec     Hits/sec   Misses/sec    MOVED/sec      ASK/sec    Avg. Latency"),
            std::string::npos)
      << out.output;
  EXPECT_NE(out.output.find("\nTotals "), std::string::npos) << out.output;
}

// The number on the row of `command` in block 7 (the cross-check with the masters'
// INFO commandstats) of memstand's report: column 1 memstand's count, 2 the servers'.
int64_t CrossCheckCount(const std::string& output, const std::string& command, int column) {
  const size_t block = output.find("Cross-check with the server's INFO commandstats");
  if (block == std::string::npos) return -1;
  const size_t row = output.find("\n    " + command + " ", block);
  if (row == std::string::npos) return -1;
  std::istringstream line(output.substr(row + 1, output.find('\n', row + 1) - row - 1));
  std::string name;
  int64_t counts[2] = {-1, -1};
  line >> name >> counts[0] >> counts[1];
  return counts[column - 1];
}

// The published study's memtier line as docs/memtier.md prints it, verbatim but for the
// port and --test-time (60 s there, 1 s here): 4 threads x 50 clients, each connected to
// the three masters, SET:GET 1:10 over 100,000 keys of 100 bytes. Exit 0, memtier's
// table with its cluster columns, and memstand's counts equal to the masters' own.
TEST_P(ClusterE2E, MemtierPublishedLineVerbatim) {
  if (Io() == "epoll") GTEST_SKIP() << "memtier's line has no --io: the uring instance runs it (auto)";
  int64_t sets = 0, gets = 0;
  for (int i = 0; i < 3; ++i) {
    sets -= Calls(i, "set");
    gets -= Calls(i, "get");
  }
  Outcome out = RunMemstand({"memtier", "--cluster-mode", "-s", "127.0.0.1", "-p", std::to_string(nodes_[0]->port()),
                             "--ratio=1:10", "--key-pattern=R:R", "--key-maximum=100000", "-d", "100", "-c", "50",
                             "-t", "4", "--test-time=1", "--print-percentiles", "50,99,99.9", "--hide-histogram"},
                            120);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  for (int i = 0; i < 3; ++i) {
    sets += Calls(i, "set");
    gets += Calls(i, "get");
  }
  EXPECT_GT(sets, 0) << out.output;
  EXPECT_GT(gets, sets) << "SET:GET 1:10\n" << out.output;
  EXPECT_EQ(CrossCheckCount(out.output, "set", 1), sets) << out.output;
  EXPECT_EQ(CrossCheckCount(out.output, "get", 1), gets) << out.output;
  EXPECT_NE(out.output.find("4         Threads\n50        Connections per thread\n1         Seconds\n"),
            std::string::npos)
      << out.output;
  EXPECT_NE(out.output.find("Type         Ops/sec     Hits/sec   Misses/sec    MOVED/sec      ASK/sec    Avg. Latency"
                            "     p50 Latency     p99 Latency   p99.9 Latency       KB/sec \n"),
            std::string::npos)
      << out.output;
  for (const char* row : {"\nSets ", "\nGets ", "\nWaits ", "\nTotals "}) {
    EXPECT_NE(out.output.find(row), std::string::npos) << row << "\n" << out.output;
  }
  EXPECT_EQ(out.output.find("Request Latency Distribution"), std::string::npos) << "--hide-histogram";
}

TEST_P(ClusterE2E, LegacyModeCountsMovedReplies) {
  std::string json = TempDir() + "/run.json";
  Outcome out = RunMemstand({"run", "--target", Url(0), "-n", "3000", "--io", Io(), "--json", json});
  ASSERT_EQ(out.exit_code, 0) << out.output;
  auto j = ReadJson(json);
  const int64_t moved = j["totals"]["errors_by_kind"]["MOVED"]["count"].get<int64_t>();
  EXPECT_GT(moved, 1000);  // ~2/3 of uniform keys belong to the other two masters
  EXPECT_LT(moved, 3000);
  EXPECT_EQ(j["totals"]["errors"].get<int64_t>(), moved);
}

// A slot moved from its master to another while memstand writes and reads keys in it
// (a hash tag keeps every key in that slot): ASK while keys move, MOVED after the
// ownership changes, and not one failed request.
TEST_P(ClusterE2E, SlotMigratedLiveWithoutFailedRequests) {
  const int slot = KeySlot("mig");
  const int from = Owner(slot), to = (from + 1) % 3;
  std::string json = TempDir() + "/run.json";
  auto run = Running::Start({"run", "--target", Url(0), "--cluster", "--duration", "4s",
                             "--clients", "4", "--command", "set {mig}__key__ __data__",
                             "--command", "get {mig}__key__", "--key-maximum", "499",
                             "--io", Io(), "--json", json});
  ASSERT_NE(run, nullptr);
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  ASSERT_NO_FATAL_FAILURE(MigrateSlot(slot, from, to));
  Outcome out = run->Wait(60);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  auto j = ReadJson(json);
  EXPECT_EQ(j["totals"]["errors"], 0) << out.output;
  EXPECT_EQ(j["unanswered"], 0);
  EXPECT_GT(j["cluster"]["ask"].get<int64_t>(), 0) << out.output;
  EXPECT_GT(j["cluster"]["moved"].get<int64_t>(), 0) << out.output;
  EXPECT_EQ(Call(from, {"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)}).integer, 0);
  EXPECT_GT(Call(to, {"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)}).integer, 0);
  EXPECT_NE(out.output.find("cluster: 3 masters"), std::string::npos);
  EXPECT_EQ(j["cluster"]["connections_opened"], 0);  // every master had its connections
}

// --history over a cluster while the slot of every key migrates live: a request sent
// again after ASK or MOVED carries the same tagged value, so every read sees a value of
// this run, the history is linearizable, and the new owner holds every acknowledged
// write (the keys share a hash tag: `{mig}` is part of the history's key prefix).
TEST_P(ClusterE2E, HistoryOverALiveMigrationKeepsEveryWriteAndStaysLinearizable) {
  const int slot = KeySlot("mig");
  const int from = Owner(slot), to = (from + 1) % 3;
  const std::string dir = TempDir();
  // A load that would outlast the migration, interrupted once the new owner has taken
  // 1000 of its SETs: a longer history (4 s of it made ~190,000 operations) only makes
  // the check slower.
  auto run = Running::Start({"run", "--target", Url(0), "--cluster", "--duration", "120s", "--clients", "4",
                             "--command", "set {mig}__key__ __data__", "--command", "get {mig}__key__",
                             "--key-maximum", "49", "--io", Io(), "--history", dir + "/run.hist", "--json",
                             dir + "/run.json"});
  ASSERT_NE(run, nullptr);
  ASSERT_NO_FATAL_FAILURE(WaitForSets(from, 500, *run));
  ASSERT_NO_FATAL_FAILURE(MigrateSlot(slot, from, to));
  const int64_t sets_moved = Calls(to, "set");
  ASSERT_TRUE(testutil::Within(30, [&] { return Calls(to, "set") >= sets_moved + 1000; })) << run->OutputSoFar();
  kill(run->pid(), SIGINT);
  Outcome out = run->Wait(60);
  ASSERT_EQ(out.exit_code, 130) << out.output;  // a failed run says 1 even when interrupted
  const auto j = ReadJson(dir + "/run.json");
  EXPECT_GT(j["cluster"]["ask"].get<int64_t>() + j["cluster"]["moved"].get<int64_t>(), 0) << out.output;
  auto h = history::ReadHistoryFile(dir + "/run.hist");
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->header.key_prefix, "{mig}memtier-");
  uint64_t ours = 0;
  for (const history::Record& r : h->records) {
    EXPECT_EQ(r.outcome, history::Outcome::kOk) << h->String(r.error);
    EXPECT_NE(r.seen, history::Seen::kForeign);
    ours += r.seen == history::Seen::kOurs;
  }
  EXPECT_GT(ours, 100u);
  Outcome check = RunMemstand({"check", dir + "/run.hist", "--target", Url(to)}, 120);
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("lost-writes        pass"), std::string::npos) << check.output;
}

// A master with no slot when the run starts (it joined the cluster, CLUSTER SLOTS does not
// list it) takes over the slot every key is in mid-run: the redirects (ASK while the keys
// move, then MOVED) name a node memstand had no connection to, so each client of each
// thread opens one mid-run (over io_uring too: its connect, set-up and requests go
// through the ring), and no request fails. The node joins before the run starts: gossip
// took longer than a short run under a loaded CI machine, and the run ended before the
// slot moved.
TEST_P(ClusterE2E, MasterTakingASlotMidRunGetsConnectionsOpenedMidRun) {
  ASSERT_NO_FATAL_FAILURE(StartNode());
  const int added = 3;
  const int slot = KeySlot("mig");
  const int from = Owner(slot);
  ASSERT_EQ(Call(0, {"CLUSTER", "MEET", "127.0.0.1", std::to_string(nodes_[added]->port())}).str,
            "OK");
  // Until every node knows the new one, it knows them all and the slots' owners (gossip:
  // before that it answers CLUSTERDOWN, MIGRATE to it included), at most 30 s.
  auto joined = [&] {
    if (!AllOk()) return false;
    for (int i = 0; i <= added; ++i) {
      const std::string nodes = Call(i, {"CLUSTER", "NODES"}).str;
      int connected = 0;
      for (size_t at = 0; (at = nodes.find(" connected", at)) != std::string::npos; ++at) ++connected;
      if (connected != added + 1 || nodes.find("handshake") != std::string::npos) return false;
    }
    return true;
  };
  for (int i = 0; i < 300 && !joined(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(joined()) << Call(0, {"CLUSTER", "NODES"}).str;
  std::string json = TempDir() + "/run.json";
  auto run = Running::Start({"run", "--target", Url(0), "--cluster", "--duration", "6s",
                             "-t", "2", "--clients", "3", "--command", "set {mig}__key__ __data__",
                             "--command", "get {mig}__key__", "--key-maximum", "499",
                             "--io", Io(), "--json", json});
  ASSERT_NE(run, nullptr);
  // Moved once the run's SETs reach the slot's owner, not after a fixed time.
  ASSERT_NO_FATAL_FAILURE(WaitForSets(from, 500, *run));
  ASSERT_NO_FATAL_FAILURE(MigrateSlot(slot, from, added));
  Outcome out = run->Wait(60);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  auto j = ReadJson(json);
  EXPECT_EQ(j["options"]["io"], Io());
  EXPECT_EQ(j["totals"]["errors"], 0) << out.output;
  EXPECT_EQ(j["unanswered"], 0);
  EXPECT_EQ(j["connection_errors"], 0);
  EXPECT_EQ(j["cluster"]["masters"].size(), 3u);  // CLUSTER SLOTS at the start
  EXPECT_GT(j["cluster"]["moved"].get<int64_t>() + j["cluster"]["ask"].get<int64_t>(), 0)
      << out.output;
  EXPECT_EQ(j["cluster"]["connections_opened"], 2 * 3) << out.output;  // threads x clients
  // The new master served the slot's requests over those connections.
  EXPECT_GT(Calls(added, "set") + Calls(added, "get"), 0);
  EXPECT_GT(Call(added, {"CLUSTER", "COUNTKEYSINSLOT", std::to_string(slot)}).integer, 0);
}

// A master killed mid-run: the run ends (no hang), exit 1, the lost connection stated.
TEST_P(ClusterE2E, MasterKilledMidRunEndsTheRun) {
  std::string json = TempDir() + "/run.json";
  auto run = Running::Start({"run", "--target", Url(0), "--cluster", "--duration", "30s",
                             "--io", Io(), "--json", json});
  ASSERT_NE(run, nullptr);
  // Killed once the run is under way (its SETs reach the node), not at a fixed time: on a
  // loaded machine the ASan binary had not finished its start in a second, failed at
  // start and wrote no JSON.
  ASSERT_NO_FATAL_FAILURE(WaitForSets(2, 50, *run));
  kill(nodes_[2]->pid(), SIGKILL);
  Outcome out = run->Wait(30);
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_LT(out.seconds, 15) << out.output;
  auto j = ReadJson(json);
  EXPECT_GT(j["connection_errors"].get<int64_t>(), 0);
  EXPECT_GT(j["totals"]["ops"].get<int64_t>(), 0);
  EXPECT_NE(out.output.find("FAILED"), std::string::npos);
}

// --reconnect: the master of slot 0 killed (SIGKILL) and its replica promoted
// (CLUSTER FAILOVER TAKEOVER) mid-run. The run reads the slot map again through a
// surviving node, sends that master's slots to the promoted replica, and ends 0; the
// SET outage it reports is over before the end.
TEST_P(ClusterWithReplicasE2E, ReconnectFollowsThePromotedReplica) {
  SlotZero z;
  ASSERT_NO_FATAL_FAILURE(RolesOfSlotZero(&z));
  const int master = z.master, replica = z.replica, seed = z.seed;
  const std::string json_path = TempDir() + "/run.json";
  // A load that would outlast the failover, interrupted a second after both of its
  // connections to slot 0 are open again to the promoted replica and serving.
  auto run = Running::Start({"run", "--target", Url(seed), "--cluster", "--io", Io(), "--reconnect",
                             "--reconnect-min", "20ms", "--reconnect-max", "200ms", "--duration", "120s", "-c", "2",
                             "--json", json_path});
  ASSERT_NE(run, nullptr);
  ASSERT_NO_FATAL_FAILURE(WaitForSets(master, 500, *run));
  ASSERT_TRUE(nodes_[master]->node().Kill().ok());
  const resp::Reply took = Call(replica, {"CLUSTER", "FAILOVER", "TAKEOVER"});
  ASSERT_EQ(took.str, "OK") << took.str;
  const int64_t replica_sets = Calls(replica, "set");
  ASSERT_TRUE(testutil::Within(30, [&] { return LoadConnections(replica) >= 2; })) << run->OutputSoFar();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  kill(run->pid(), SIGINT);
  Outcome out = run->Wait(60);
  ASSERT_EQ(out.exit_code, 130) << out.output;  // a failed run says 1 even when interrupted
  const nlohmann::json rep = ReadJson(json_path);
  EXPECT_GE(rep["cluster"]["map_reads"].get<int>(), 1) << rep["cluster"].dump();
  const nlohmann::json& a = rep["availability"];
  EXPECT_GE(a["connections_lost"].get<int>(), 2) << a.dump();
  const nlohmann::json& longest = a["commands"]["SET"]["longest"];
  ASSERT_FALSE(longest.empty()) << a.dump();
  EXPECT_TRUE(longest[0]["recovered"].get<bool>()) << a.dump();
  // The promoted replica, now a master, took SETs from the run after the takeover.
  EXPECT_GT(Calls(replica, "set"), replica_sets) << out.output;
}
// A manual failover (CLUSTER FAILOVER on a replica, its master alive: no connection is
// lost) mid-run, without --reconnect: only MOVED replies tell the run, one slot at a
// time; the 5th slot a thread finds moved makes the run read the whole slot map again
// (counted as a MOVED storm's), and the promoted replica takes that master's writes with
// not one request failed.
TEST_P(ClusterWithReplicasE2E, MovedStormAfterAManualFailoverReadsTheSlotMapAgain) {
  SlotZero z;
  ASSERT_NO_FATAL_FAILURE(RolesOfSlotZero(&z));
  const int master = z.master, replica = z.replica, seed = z.seed;
  const std::string json_path = TempDir() + "/run.json";
  // A load that would outlast the failover, interrupted a second after all 4 of its
  // connections to the promoted replica are open and serving.
  auto run = Running::Start({"run", "--target", Url(seed), "--cluster", "--io", Io(), "--duration", "120s",
                             "-t", "2", "-c", "2", "--ratio", "1:1", "--json", json_path});
  ASSERT_NE(run, nullptr);
  ASSERT_NO_FATAL_FAILURE(WaitForSets(master, 500, *run));
  const int64_t slots_reads = SlotsReads();
  const resp::Reply failover = Call(replica, {"CLUSTER", "FAILOVER"});
  ASSERT_EQ(failover.str, "OK") << failover.str;
  for (int i = 0; i < 300 && !(IsMaster(replica) && IsReplica(master)); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(IsMaster(replica) && IsReplica(master)) << "the manual failover did not finish";
  const int64_t replica_sets = Calls(replica, "set");
  ASSERT_TRUE(testutil::Within(30, [&] { return LoadConnections(replica) >= 2 * 2; })) << run->OutputSoFar();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  kill(run->pid(), SIGINT);
  Outcome out = run->Wait(60);
  ASSERT_EQ(out.exit_code, 130) << out.output;  // a failed run says 1 even when interrupted
  const nlohmann::json rep = ReadJson(json_path);
  const nlohmann::json& cl = rep["cluster"];
  EXPECT_GT(cl["moved"].get<int64_t>(), 0) << cl.dump();
  EXPECT_GE(cl["map_reads_moved"].get<int64_t>(), 1) << cl.dump();
  EXPECT_GE(cl["map_reads"].get<int64_t>(), cl["map_reads_moved"].get<int64_t>()) << cl.dump();
  EXPECT_GE(SlotsReads() - slots_reads, cl["map_reads"].get<int64_t>());  // each read is a CLUSTER SLOTS
  EXPECT_EQ(cl["connections_opened"], 2 * 2) << cl.dump();  // to the new master: threads x clients
  // No request failed, save one case: on a loaded machine (a CI run with builds beside
  // it) the nodes may report the cluster down for a moment while the failover settles,
  // and those replies are CLUSTERDOWN errors, counted as such. Any other error fails.
  const nlohmann::json& kinds = rep["totals"]["errors_by_kind"];
  const int64_t clusterdown = kinds.contains("CLUSTERDOWN") ? kinds["CLUSTERDOWN"]["count"].get<int64_t>() : 0;
  EXPECT_EQ(rep["totals"]["errors"].get<int64_t>(), clusterdown) << kinds.dump() << out.output;
  EXPECT_EQ(rep["connection_errors"], 0) << out.output;
  EXPECT_EQ(rep["unanswered"], 0) << out.output;
  if (clusterdown == 0) {
    EXPECT_FALSE(rep.contains("availability")) << rep["availability"].dump();  // nothing failed
  }
  EXPECT_NE(out.output.find("a MOVED storm: "), std::string::npos) << out.output;
  // The promoted replica, now a master, took SETs from the run after the failover.
  EXPECT_GT(Calls(replica, "set"), replica_sets) << out.output;
}

INSTANTIATE_TEST_SUITE_P(EpollAndUring, ClusterE2E, ::testing::Values("epoll", "uring"));
INSTANTIATE_TEST_SUITE_P(EpollAndUring, ClusterWithReplicasE2E, ::testing::Values("epoll", "uring"));

}  // namespace
}  // namespace memstand::e2e
