// memstand run with several --target (a pool): each connection goes to one member by
// --balance, each member's own counters move by what its connections sent, and the
// cross-check sums them. Checked against each server's statistics, read by the test.
#include <gtest/gtest.h>

#include <charconv>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "client/redis_client.h"
#include "client/redis_info.h"
#include "codec/server_util.h"
#include "core/buffer.h"
#include "core/socket.h"
#include "e2e/e2e_util.h"
#include "proto/memcache/memcache.h"
#include "stand/local_redis.h"

namespace memstand::e2e {
namespace {

// What the test itself reads from a redis-server: INFO all, parsed.
struct RedisCounts {
  std::map<std::string, std::string> info;
  std::map<std::string, CommandStat> commands;
  int64_t Calls(const std::string& name) const {
    auto it = commands.find(name);
    return it == commands.end() ? 0 : it->second.calls;
  }
  int64_t Info(const std::string& key) const {
    auto it = info.find(key);
    return it == info.end() ? -1 : std::stoll(it->second);
  }
};

class RedisProbe {
 public:
  explicit RedisProbe(int port) {
    RedisClientOptions o;
    o.host = "127.0.0.1";
    o.port = port;
    auto c = RedisClient::Connect(o);
    EXPECT_TRUE(c.ok()) << c.status().message();
    if (c.ok()) client_ = std::move(*c);
  }
  RedisCounts Read() {
    RedisCounts counts;
    if (!client_) return counts;
    auto reply = client_->Command({"INFO", "all"});
    EXPECT_TRUE(reply.ok());
    if (!reply.ok()) return counts;
    counts.info = ParseInfo(reply->str);
    counts.commands = ParseCommandStats(reply->str);
    return counts;
  }

 private:
  std::unique_ptr<RedisClient> client_;
};

// memcached `stats`, read over a connection of the test's own with the project's codec;
// the numeric ones.
std::map<std::string, int64_t> MemcachedStats(int port) {
  std::map<std::string, int64_t> stats;
  auto conn = codec_test::BlockingConn::Connect(port);
  EXPECT_TRUE(conn.ok()) << conn.status().message();
  if (!conn.ok()) return stats;
  Buffer request;
  memcache::AppendStats(&request);
  memcache::Reader reader(memcache::Reader::Mode::kFull);
  Status s = (*conn)->Send(request);
  if (s.ok()) s = (*conn)->ReadReply(&reader);
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return stats;
  for (const auto& [name, value] : memcache::StatsMap(reader.TakeReply())) {
    int64_t n = 0;
    const char* end = value.data() + value.size();
    auto [ptr, ec] = std::from_chars(value.data(), end, n);
    if (ec == std::errc() && ptr == end) stats[name] = n;
  }
  EXPECT_GT(stats.count("total_connections"), 0u);
  return stats;
}

std::string RedisUrl(int port, const std::string& path = "") {
  return "redis://127.0.0.1:" + std::to_string(port) + path;
}

std::vector<uint64_t> PoolConnections(const nlohmann::json& j) {
  std::vector<uint64_t> conns;
  if (!j.contains("pool")) return conns;
  for (const auto& t : j["pool"]["targets"]) conns.push_back(t["connections"].get<uint64_t>());
  return conns;
}

TEST(PoolE2E, RedisRoundRobinSplitsConnectionsAndTheCountsSumOverThePool) {
  auto a = StartRedis(), b = StartRedis();
  ASSERT_TRUE(a && b);
  RedisProbe pa(a->port()), pb(b->port());
  RedisCounts a0 = pa.Read(), b0 = pb.Read();
  // The second member keeps its own database (/2): its connections SELECT 2.
  // One client per thread: by the global client index (0, 1) the split is {1, 1}; an
  // index counted per thread would send both threads' client 0 to a: {2, 0}.
  nlohmann::json j = RunOk({"--target", RedisUrl(a->port()), "--target", RedisUrl(b->port(), "/2"),
                            "-t", "2", "-c", "1", "-n", "4000", "--key-maximum", "500"});
  RedisCounts a1 = pa.Read(), b1 = pb.Read();
  ASSERT_TRUE(j.contains("pool")) << j.dump();
  EXPECT_EQ(j["pool"]["balance"], "round-robin");
  EXPECT_EQ(j["pool"]["targets"][1]["url"], RedisUrl(b->port(), "/2"));
  EXPECT_EQ(PoolConnections(j), (std::vector<uint64_t>{1, 1}));
  // Server side: each got 1 load connection and memstand's control connection.
  EXPECT_EQ(a1.Info("total_connections_received") - a0.Info("total_connections_received"), 2);
  EXPECT_EQ(b1.Info("total_connections_received") - b0.Info("total_connections_received"), 2);
  const int64_t a_ops = a1.Calls("get") + a1.Calls("set") - a0.Calls("get") - a0.Calls("set");
  const int64_t b_ops = b1.Calls("get") + b1.Calls("set") - b0.Calls("get") - b0.Calls("set");
  EXPECT_GT(a_ops, 0);
  EXPECT_GT(b_ops, 0);
  EXPECT_EQ(a_ops + b_ops, CommandOps(j, "GET") + CommandOps(j, "SET"));
  EXPECT_EQ(a_ops + b_ops, 4000);
  // Once per connection to b: its load connection and memstand's control connection.
  EXPECT_EQ(b1.Calls("select") - b0.Calls("select"), 2);
  EXPECT_EQ(a1.Calls("select") - a0.Calls("select"), 0);
  EXPECT_EQ(j["pool"]["targets"][0]["server_counts"]["get"].get<int64_t>(),
            a1.Calls("get") - a0.Calls("get"));
  EXPECT_EQ(j["pool"]["targets"][1]["server_counts"]["set"].get<int64_t>(),
            b1.Calls("set") - b0.Calls("set"));
  EXPECT_EQ(j["cross_check"]["mismatch"], false) << j["cross_check"].dump();
  EXPECT_EQ(b1.info.count("db2"), 1u);  // b's keys went to database 2
  EXPECT_EQ(b1.info.count("db0"), 0u);
}

// A --balance random run of 8 connections over a and b: the split in the JSON, checked
// against what each server counted (+1: memstand's control connection).
std::vector<uint64_t> RandomSplit(const LocalRedis& a, const LocalRedis& b,
                                  const std::string& seed) {
  RedisProbe pa(a.port()), pb(b.port());
  RedisCounts a0 = pa.Read(), b0 = pb.Read();
  nlohmann::json j = RunOk({"--target", RedisUrl(a.port()), "--target", RedisUrl(b.port()),
                            "--balance", "random", "--seed", seed, "-c", "8", "-n", "800"});
  RedisCounts a1 = pa.Read(), b1 = pb.Read();
  EXPECT_EQ(j["pool"]["balance"], "random");
  std::vector<uint64_t> split = PoolConnections(j);
  EXPECT_EQ(split.size(), 2u);
  if (split.size() != 2) return split;
  EXPECT_EQ(split[0] + split[1], 8u);
  // (The probes connected in their constructors, before a0 and b0.)
  EXPECT_EQ(a1.Info("total_connections_received") - a0.Info("total_connections_received"),
            static_cast<int64_t>(split[0]) + 1);
  EXPECT_EQ(b1.Info("total_connections_received") - b0.Info("total_connections_received"),
            static_cast<int64_t>(split[1]) + 1);
  return split;
}

TEST(PoolE2E, RandomBalanceIsReproducibleFromTheSeed) {
  auto a = StartRedis(), b = StartRedis();
  ASSERT_TRUE(a && b);
  // The same seed twice: the same split.
  const std::vector<uint64_t> first = RandomSplit(*a, *b, "5");
  EXPECT_EQ(RandomSplit(*a, *b, "5"), first);
  // And it is the draw, not round-robin's {4, 4}: seeds 5 and 7 split 8 connections
  // {3, 5} and {6, 2} (found by running memstand once; pool_test.cc pins PoolIndex).
  // Round-robin, or a draw that ignored the seed, would fail one of these.
  EXPECT_EQ(first, (std::vector<uint64_t>{3, 5}));
  EXPECT_EQ(RandomSplit(*a, *b, "7"), (std::vector<uint64_t>{6, 2}));
}

// memcached counts a connection when a worker thread takes it over from the accepting
// thread, not at the accept: a probe connection of the server's start may be counted
// after a first snapshot (a clean-clone CI run saw 5 where 4 were made). The baseline is
// a snapshot that differs from the one before it by its own connection only.
std::map<std::string, int64_t> SettledMemcachedStats(int port) {
  std::map<std::string, int64_t> before = MemcachedStats(port);
  for (int i = 0; i < 50; ++i) {
    std::map<std::string, int64_t> now = MemcachedStats(port);
    if (now["total_connections"] - before["total_connections"] == 1) return now;
    before = std::move(now);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << "memcached on port " << port << " kept counting connections nobody made";
  return before;
}

TEST(PoolE2E, MemcachedPoolCountsMatchEachServersStats) {
  auto a = codec_test::StartMemcached(), b = codec_test::StartMemcached();
  ASSERT_TRUE(a.ok() && b.ok());
  const int pa = (*a)->port(), pb = (*b)->port();
  auto a0 = SettledMemcachedStats(pa), b0 = SettledMemcachedStats(pb);
  nlohmann::json j = RunOk({"--target", "memcache://127.0.0.1:" + std::to_string(pa), "--target",
                            "memcache://127.0.0.1:" + std::to_string(pb), "-c", "4", "-n", "3000",
                            "--pipeline", "4", "--key-maximum", "200"});
  auto a1 = MemcachedStats(pa), b1 = MemcachedStats(pb);
  EXPECT_EQ(PoolConnections(j), (std::vector<uint64_t>{2, 2}));
  // 2 load connections, memstand's control connection and the test's second `stats` one.
  EXPECT_EQ(a1["total_connections"] - a0["total_connections"], 4);
  EXPECT_EQ(b1["total_connections"] - b0["total_connections"], 4);
  for (const char* stat : {"cmd_get", "cmd_set"}) {
    EXPECT_GT(a1[stat] - a0[stat], 0) << stat;
    EXPECT_GT(b1[stat] - b0[stat], 0) << stat;
  }
  EXPECT_EQ(a1["cmd_get"] - a0["cmd_get"] + b1["cmd_get"] - b0["cmd_get"], CommandOps(j, "GET"));
  EXPECT_EQ(a1["cmd_set"] - a0["cmd_set"] + b1["cmd_set"] - b0["cmd_set"], CommandOps(j, "SET"));
  EXPECT_EQ(CommandOps(j, "GET") + CommandOps(j, "SET"), 3000);
  EXPECT_EQ(j["pool"]["targets"][1]["server_counts"]["cmd_get"].get<int64_t>(),
            b1["cmd_get"] - b0["cmd_get"]);
  EXPECT_EQ(j["cross_check"]["mismatch"], false) << j["cross_check"].dump();
}

// {EXTRA} is Lua run before the space is made (another space shifts its id).
constexpr const char* kTarantoolInit = R"(
box.cfg{memtx_memory = 64 * 1024 * 1024, wal_mode = 'none', log_level = 4}
{EXTRA}
local s = box.schema.space.create('memstand')
s:create_index('pk', {type = 'hash', parts = {1, 'string'}})
box.schema.user.grant('guest', 'read,write,execute', 'universe')
box.cfg{listen = '127.0.0.1:{PORT}'}
)";

Result<std::unique_ptr<codec_test::TestServer>> StartTarantool(const std::string& extra) {
  std::string init = kTarantoolInit;
  init.replace(init.find("{EXTRA}"), 7, extra);
  return codec_test::StartTarantool(init);
}

std::string TarantoolUrl(const codec_test::TestServer& s) {
  return "tarantool://127.0.0.1:" + std::to_string(s.port());
}

// IPROTO: box.stat() of each member as memstand's control connections read it.
TEST(PoolE2E, IprotoPoolSplitsAndSpacesMustAgree) {
  auto a = StartTarantool(""), b = StartTarantool("");
  ASSERT_TRUE(a.ok() && b.ok());
  nlohmann::json j = RunOk({"--target", TarantoolUrl(**a), "--target", TarantoolUrl(**b), "-c", "2",
                            "--pipeline", "8", "-n", "2000"});
  EXPECT_EQ(PoolConnections(j), (std::vector<uint64_t>{1, 1}));
  int64_t replaces = 0;
  for (const auto& t : j["pool"]["targets"]) {
    EXPECT_GT(t["server_counts"]["REPLACE"].get<int64_t>(), 0) << t.dump();
    replaces += t["server_counts"]["REPLACE"].get<int64_t>();
  }
  EXPECT_EQ(replaces, CommandOps(j, "REPLACE"));
  EXPECT_EQ(j["cross_check"]["mismatch"], false) << j["cross_check"].dump();
  // A member whose space 'memstand' has another id: refused before any load.
  auto c = StartTarantool("box.schema.space.create('first')");
  ASSERT_TRUE(c.ok());
  Outcome out = RunMemstand({"run", "--target", TarantoolUrl(**a), "--target", TarantoolUrl(**c),
                             "-n", "100", "-q"}, 60);
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find("space 'memstand' has id 512 on " + TarantoolUrl(**a) + " but 513 on " +
                            TarantoolUrl(**c)),
            std::string::npos)
      << out.output;
}

TEST(PoolE2E, BadPoolsExitTwoNamingTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--target", "redis://127.0.0.1:1", "--target", "memcache://127.0.0.1:2"},
       "--target: a pool speaks one protocol"},
      {{"--target", "redis://127.0.0.1:1", "--target", "redis://127.0.0.1:2", "--cluster"},
       "--cluster: takes one --target"},
      {{"--target", "redis://127.0.0.1:1", "--target", "redis://127.0.0.1:2", "--balance",
        "least-conn"},
       "--balance: 'least-conn' is not a balancing policy; use round-robin, random or per-request"},
      {{"--target", "redis://127.0.0.1:1", "--target", "redis://127.0.0.1:1/3"},
       "--target: 127.0.0.1:1 is given twice"},
      {{"--target", "redis://127.0.0.1:1", "--target", "redis://127.0.0.1:2", "-p", "3"},
       "give either --target or -s/-p"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    args.insert(args.begin(), "run");
    Outcome out = RunMemstand(args, 30);
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find(c.message), std::string::npos) << out.output;
  }
}

TEST(PoolE2E, AnUnreachableSecondTargetIsNamed) {
  auto a = StartRedis();
  ASSERT_TRUE(a);
  auto port = PickFreePort();
  ASSERT_TRUE(port.ok());
  const std::string dead = RedisUrl(*port);
  Outcome out = RunMemstand({"run", "--target", RedisUrl(a->port()), "--target", dead, "-n", "100",
                             "--connect-timeout", "3s", "-q"},
                            60);
  EXPECT_FALSE(out.timed_out);
  EXPECT_EQ(out.exit_code, 1) << out.output;
  EXPECT_NE(out.output.find("cannot use " + dead), std::string::npos) << out.output;
}

}  // namespace
}  // namespace memstand::e2e
