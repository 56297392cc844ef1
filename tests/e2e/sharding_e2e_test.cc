// The tarantool-sharded stand and the sharding scenario end to end, on real tarantools:
// `up` passes its health check and `ps` shows each role; a replace through both routers
// reaches the storages, whose counts sum to the client's; a killed storage fails the
// health check by name and its calls come back as `nil, err`; the scenario at its
// smallest size prints both sweeps and the matrix; `down` leaves nothing running.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <map>

#include "e2e/e2e_util.h"
#include "load/proto_control.h"
#include "scenario/kit/shard_cluster.h"
#include "scenario/kit/topology_nodes.h"
#include "stand/shard_lua.h"
#include "stand/stand_state.h"
#include "stand/topology.h"

namespace memstand::e2e {
namespace {

namespace fs = std::filesystem;

// A control connection to a tarantool node of the topology.
Result<std::unique_ptr<ProtoControl>> ConnectTo(const NodeRecord& n, int timeout_ms) {
  RedisTarget target;
  target.scheme = "tarantool";
  target.host = n.host;
  target.port = n.port;
  return ProtoControl::Connect(Protocol::kIproto, target, timeout_ms);
}

// A running tarantool-sharded topology of 2 storages and 1 router that passed its
// health check, and the index of storage-2-master (the fault tests' victim).
struct TwoSets {
  std::unique_ptr<Topology> topology;
  size_t victim = 0;
};
void StartTwoSets(TwoSets* out) {
  TopologySpec spec;
  spec.kind = TopologyKind::kTarantoolSharded;
  spec.storages = 2;
  spec.routers = 1;
  TopologyOptions options;
  options.run_root = TempDir();
  auto t = Topology::Start(spec, options);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_TRUE(CheckShardHealth(**t).ok()) << CheckShardHealth(**t).message();
  out->victim = NodeIndex(**t, "storage-2-master");
  ASSERT_LT(out->victim, (*t)->nodes().size());
  out->topology = std::move(*t);
}

// One EVAL returning one integer on a node; -1 (and a test failure) otherwise.
int64_t EvalCount(const NodeRecord& n, const std::string& lua) {
  auto c = ConnectTo(n, 5000);
  if (!c.ok()) {
    ADD_FAILURE() << n.name << ": " << c.status().message();
    return -1;
  }
  auto r = (*c)->Eval(lua, iproto::Value::Array({}));
  if (!r.ok() || r->size() != 1 || r->items()[0].type() != iproto::Value::Type::kUint) {
    ADD_FAILURE() << n.name << ": " << (r.ok() ? iproto::ToString(*r) : r.status().message());
    return -1;
  }
  return static_cast<int64_t>(r->items()[0].uint_value());
}

std::string RouterUrl(const NodeRecord& n) { return "tarantool://" + n.host + ":" + std::to_string(n.port); }

TEST(ShardingE2E, UpPassesItsHealthCheckPsShowsRolesAReplaceThroughBothRoutersIsCountedByTheStoragesDownLeavesNothing) {
  const std::string root = TempDir();
  auto memstand = [&root](std::vector<std::string> args) {
    args.insert(args.end(), {"--run-dir", root});
    return RunMemstand(args, 90);
  };
  Outcome up = memstand({"up", "tarantool-sharded", "--storages", "2", "--routers", "2", "--name", "shard"});
  ASSERT_EQ(up.exit_code, 0) << up.output;
  EXPECT_NE(up.output.find("memstand up: tarantool-sharded 'shard' is up: 6 process(es)"), std::string::npos)
      << up.output;
  EXPECT_NE(up.output.find("load it through its routers: memstand run --target tarantool://127.0.0.1:"),
            std::string::npos)
      << up.output;
  auto record = ReadTopologyRecord(root + "/shard/state.json");
  ASSERT_TRUE(record.ok()) << record.status().message();
  std::map<std::string, int> roles;
  for (const NodeRecord& n : record->nodes) ++roles[n.role];
  EXPECT_EQ(roles, (std::map<std::string, int>{{"router", 2}, {"storage-master", 2}, {"storage-replica", 2}}));

  Outcome ps = memstand({"ps"});
  ASSERT_EQ(ps.exit_code, 0) << ps.output;
  EXPECT_NE(ps.output.find("shard (tarantool-sharded, up): 6/6 process(es) alive"), std::string::npos) << ps.output;
  for (const char* line : {"  storage-master  storage-1-master ", "  storage-replica storage-1-replica-1 ",
                           "  storage-master  storage-2-master ", "  router          router-2 "}) {
    EXPECT_NE(ps.output.find(line), std::string::npos) << line << "\n" << ps.output;
  }

  // 400 replaces through both routers (round robin: a connection each).
  std::vector<std::string> args = {"--command", "call shard.replace 'test' [__seq__, nil, __rand:16__]", "-n", "400",
                                   "--threads", "1", "--clients", "2"};
  for (const NodeRecord& n : record->nodes) {
    if (n.role == "router") args.insert(args.end(), {"--target", RouterUrl(n)});
  }
  nlohmann::json run = RunOk(args);
  const int64_t client = CommandOps(run, "CALL");
  EXPECT_EQ(client, 400);
  int64_t storages = 0, stored = 0;
  for (const NodeRecord& n : record->nodes) {
    if (n.role == "router") continue;
    const int64_t replaced = EvalCount(n, "return memstand_storage.counts().replace");
    if (n.role == "storage-master") {
      EXPECT_GT(replaced, 0) << n.name << ": its buckets got none of 400 keys";
      stored += EvalCount(n, "return box.space.test:len()");
    } else {
      EXPECT_EQ(replaced, 0) << n.name << ": a write went to a replica";
    }
    storages += replaced;
  }
  EXPECT_EQ(storages, client);
  EXPECT_EQ(stored, 400);  // __seq__ 0..399, each once

  Outcome down = memstand({"down", "shard"});
  ASSERT_EQ(down.exit_code, 0) << down.output;
  for (const NodeRecord& n : record->nodes) EXPECT_EQ(NodeOwnership(*record, n).verdict, Ownership::kGone) << n.name;
  EXPECT_FALSE(fs::exists(root + "/shard"));
}

TEST(ShardingE2E, AKilledStorageMasterFailsTheHealthCheckByNameAndItsCallsAreNilErr) {
  TwoSets two;
  ASSERT_NO_FATAL_FAILURE(StartTwoSets(&two));
  Topology* t = two.topology.get();
  const size_t victim = two.victim;
  const NodeRecord killed = t->nodes()[victim];
  ASSERT_TRUE(t->KillNode(victim).ok());

  Status health = CheckShardHealth(*t);
  EXPECT_FALSE(health.ok());
  EXPECT_NE(health.message().find("router-1"), std::string::npos) << health.message();
  EXPECT_NE(health.message().find("replica set 2: master 127.0.0.1:" + std::to_string(killed.port)),
            std::string::npos)
      << health.message();

  // The router answers `nil, err` for the keys of set 2: errors of kind `call: ...`.
  const NodeRecord& router = t->nodes().back();
  const std::string json = TempDir() + "/run.json";
  Outcome run = RunMemstand({"run", "--target", RouterUrl(router), "--command",
                             "call shard.replace 'test' [__seq__, nil, 'x']", "-n", "100", "--threads", "1",
                             "--clients", "1", "--json", json, "-q"},
                            60);
  nlohmann::json j = ReadJson(json);
  EXPECT_NE(j.dump().find("call: shard.replace: replica set 2 (127.0.0.1:" + std::to_string(killed.port) + ")"),
            std::string::npos)
      << run.output << j.dump();
  const nlohmann::json* call = FindCommand(j, "CALL");
  ASSERT_NE(call, nullptr);
  const int64_t errors = (*call)["errors"].get<int64_t>();
  EXPECT_GT(errors, 0);
  EXPECT_LT(errors, 100);  // set 1's keys still go through
  EXPECT_EQ(EvalCount(t->nodes()[0], "return memstand_storage.counts().replace"), 100 - errors);
}

// A storage that does not answer (SIGSTOPped here; a synchronous write whose quorum never
// comes is the other case) holds a router's call for kShardCallTimeoutS at most: the
// caller gets nil, err naming the set, not a request left unanswered.
TEST(ShardingE2E, APausedStorageMastersCallsComeBackAsNilErrAfterTheRoutersCallTimeout) {
  TwoSets two;
  ASSERT_NO_FATAL_FAILURE(StartTwoSets(&two));
  Topology* t = two.topology.get();
  const size_t victim = two.victim;
  const NodeRecord paused = t->nodes()[victim];
  const NodeRecord& router = t->nodes().back();
  auto c = ConnectTo(router, (kShardCallTimeoutS + 30) * 1000);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_TRUE(t->PauseNode(victim).ok());
  // The first key of set 2 (buckets 513..1024 of 1024 with two sets), written once.
  auto r = (*c)->Eval(
      "local d = require('digest') "
      "for k = 1, 1000 do if d.crc32(tostring(k)) % 1024 + 1 > 512 then "
      "local res, err = shard.replace('test', {k, nil, 'x'}) return tostring(res) .. ' | ' .. tostring(err) end end",
      iproto::Value::Array({}));
  ASSERT_TRUE(t->ResumeNode(victim).ok());
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->size(), 1u) << iproto::ToString(*r);
  const std::string text = r->items()[0].str();
  EXPECT_EQ(text.rfind("nil | shard.replace: replica set 2 (127.0.0.1:" + std::to_string(paused.port) + "): ", 0), 0u)
      << text;
  EXPECT_NE(text.find("no answer within " + std::to_string(kShardCallTimeoutS) + " s"), std::string::npos) << text;
}

// Steps of 0.2 s instead of --smallest's 0.5 s: the same points and cells (20 steps), each
// still with requests to count; nothing here asserts a throughput.
TEST(ShardingE2E, TheScenarioAtItsSmallestSizePrintsBothSweepsAndTheMatrixWithCpuPerRole) {
  const std::string json = TempDir() + "/sharding.json";
  Outcome out = RunMemstand({"scenario", "run", "sharding", "--smallest", "--step-duration", "0.2s", "--json", json,
                             "-q"},
                            300);
  ASSERT_EQ(out.exit_code, 0) << out.output;
  for (const char* text : {"Routers per storage (1 storage(s)", "Storage count (at the best ratio",
                           "Operation matrix at the knee", "router x", "storage-master x", "storage-replica x",
                           "client ", "A toy on this machine", "about 7 routers per storage",
                           "storages' requests == client's requests"}) {
    EXPECT_NE(out.output.find(text), std::string::npos) << text << "\n" << out.output;
  }
  nlohmann::json j = ReadJson(json);
  std::map<std::string, int> sweeps;
  for (const nlohmann::json& p : j["points"]) {
    ++sweeps[p["sweep"].get<std::string>()];
    EXPECT_TRUE(p["ok"].get<bool>()) << p.dump();
    EXPECT_EQ(p["storage_requests"], p["client_requests"]) << p.dump();
    EXPECT_GT(p["client_requests"].get<int64_t>(), 0) << p.dump();
    int64_t per_set = 0;
    for (const nlohmann::json& n : p["per_set"]) per_set += n.get<int64_t>();
    EXPECT_EQ(per_set, p["storage_requests"].get<int64_t>());
    if (p["sweep"] == "matrix") {
      EXPECT_EQ(p["cells"].size(), 12u);
    }
  }
  EXPECT_EQ(sweeps, (std::map<std::string, int>{{"ratio", 2}, {"storages", 2}, {"matrix", 1}}));
}

}  // namespace
}  // namespace memstand::e2e
