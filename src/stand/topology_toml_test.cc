#include "stand/topology_toml.h"

#include <gtest/gtest.h>

#include "util/redact.h"

namespace memstand {
namespace {

Result<TopologySpec> Parse(std::string_view text) { return ParseTopologyToml(text, "t.toml", "/base"); }

std::string ErrorOf(std::string_view text) {
  auto spec = Parse(text);
  EXPECT_FALSE(spec.ok());
  if (spec.ok()) return "";
  EXPECT_EQ(spec.status().code(), Status::Code::kInvalidArgument);
  return spec.status().message();
}

TEST(TopologyTomlTest, ReadsEveryKeyIntoTheSpec) {
  auto spec = Parse(R"(
kind = "redis-cluster"
name = "bench"
masters = 8
replicas = 1
port = 7000
binary = "/usr/bin/redis-server"
ready_timeout = "30s"

[settings]
maxmemory = "256mb"
maxmemory-policy = "allkeys-lru"
appendonly = true
hz = 50
)");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->kind, TopologyKind::kRedisCluster);
  EXPECT_EQ(spec->name, "bench");
  EXPECT_EQ(spec->masters, 8);
  EXPECT_EQ(spec->replicas, 1);
  EXPECT_EQ(spec->port, 7000);
  EXPECT_EQ(spec->binary, "/usr/bin/redis-server");
  EXPECT_EQ(spec->ready_timeout_ms, 30000);
  // toml++ keeps a table's keys sorted.
  using Settings = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(spec->settings, (Settings{{"appendonly", "yes"},
                                      {"hz", "50"},
                                      {"maxmemory", "256mb"},
                                      {"maxmemory-policy", "allkeys-lru"}}));
  EXPECT_TRUE(NormalizeSpec(&*spec).ok());
}

TEST(TopologyTomlTest, TarantoolInitIsRelativeToTheFileAndBooleansAreLua) {
  auto spec = Parse(R"(
kind = "tarantool"
init_lua = "app/init.lua"
peer_port = 0
ready_timeout = 5
[settings]
memtx_memory = "64m"
wal_mode = "none"
force_recovery = false
)");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->init_lua, "/base/app/init.lua");
  EXPECT_EQ(spec->ready_timeout_ms, 5000);
  ASSERT_EQ(spec->settings.size(), 3u);
  EXPECT_EQ(spec->settings[0], (std::pair<std::string, std::string>{"force_recovery", "false"}));
  EXPECT_EQ(spec->name, "");  // defaulted by NormalizeSpec
}

// A password in [settings] is registered as a secret: no message memstand prints shows
// it (issue #25: one redaction rule wherever a credential appears).
TEST(TopologyTomlTest, SecretSettingsAreRedactedEverywhere) {
  auto spec = Parse(R"(
kind = "redis-replica"
[settings]
requirepass = "T0mlS3cretPw"
MasterAuth = "T0mlM4sterPw"
maxmemory = "T0mlNotSecret"
)");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  const std::string shown =
      RedactSecrets("requirepass T0mlS3cretPw masterauth T0mlM4sterPw maxmemory T0mlNotSecret");
  EXPECT_EQ(shown, "requirepass *** masterauth *** maxmemory T0mlNotSecret");
}

TEST(TopologyTomlTest, MalformedTomlSaysWhere) {
  std::string msg = ErrorOf("kind = \"redis\"\nmasters = = 3\n");
  EXPECT_TRUE(msg.starts_with("t.toml:2:")) << msg;
}

TEST(TopologyTomlTest, UnknownKeysWrongTypesAndMissingKindAreErrors) {
  EXPECT_EQ(ErrorOf("kind = \"redis\"\nmaster = 3\n"),
            "t.toml: unknown key 'master'; known: kind, name, masters, replicas, sentinels, members, storages, routers, "
            "port, peer_port, binary, init_lua, ready_timeout, [settings], [relay]");
  EXPECT_EQ(ErrorOf("kind = \"redis-cluster\"\nmasters = \"three\"\n"),
            "t.toml: 'masters' must be an integer");
  EXPECT_EQ(ErrorOf("name = \"x\"\n"),
            "t.toml: missing 'kind' (one of redis, redis-replica, redis-cluster, redis-sentinel, "
            "memcached, tarantool, tarantool-replicaset, tarantool-sharded, etcd, etcd-cluster)");
  EXPECT_EQ(ErrorOf("kind = \"redis-sentry\"\n"),
            "t.toml: unknown topology 'redis-sentry'; known: redis, redis-replica, "
            "redis-cluster, redis-sentinel, memcached, tarantool, tarantool-replicaset, tarantool-sharded, etcd, etcd-cluster");
  EXPECT_EQ(ErrorOf("kind = \"redis-sentinel\"\nsentinels = 0\n"), "t.toml: sentinels must be 1 or more");
  EXPECT_EQ(ErrorOf("kind = \"redis-cluster\"\nmasters = 0\n"),
            "t.toml: masters = 0: a cluster needs at least 1 master");
  EXPECT_EQ(ErrorOf("kind = \"redis-cluster\"\nreplicas = -1\n"),
            "t.toml: replicas must be 0 or more");
  EXPECT_EQ(ErrorOf("kind = \"redis\"\nsettings = 3\n"),
            "t.toml: 'settings' must be a table ([settings])");
  EXPECT_EQ(ErrorOf("kind = \"redis\"\n[settings]\nsave = [1, 2]\n"),
            "t.toml: settings.save must be a string, number or boolean");
  EXPECT_EQ(ErrorOf("kind = \"redis\"\nready_timeout = \"soon\"\n").substr(0, 22),
            "t.toml: ready_timeout:");
}

TEST(TopologyTomlTest, ARelayTableBecomesTheRelaysFlags) {
  auto spec = Parse(R"(
kind = "redis-replica"
[relay]
node = "primary"
port = 7100
delay = "20ms"
delay_back = "5ms"
mode = "serializing"
jitter = "1ms"
seed = 7
rate = "100Mbit"
nodelay = false
)");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_TRUE(spec->relay.enabled);
  EXPECT_EQ(spec->relay.node, "primary");
  EXPECT_EQ(spec->relay.port, 7100);
  // In key order (toml++ keeps a table sorted): the relay's flags do not depend on order.
  const std::vector<std::string> args = {"--delay",  "20ms",    "--delay-back", "5ms",
                                         "--jitter", "1ms",     "--mode",       "serializing",
                                         "--no-nodelay", "--rate", "100Mbit",   "--seed", "7"};
  EXPECT_EQ(spec->relay.args, args);
  EXPECT_FALSE(Parse("kind = \"redis\"\n")->relay.enabled);
  EXPECT_TRUE(Parse("kind = \"redis\"\n[relay]\n")->relay.enabled);  // delay 0: calibration
}

TEST(TopologyTomlTest, BadRelayValuesNameTheKey) {
  EXPECT_EQ(ErrorOf("kind = \"redis\"\n[relay]\ndelay = \"5xs\"\n").substr(0, 21),
            "t.toml: relay.delay: ");
  EXPECT_EQ(ErrorOf("kind = \"redis\"\n[relay]\nmode = \"serial\"\n").substr(0, 20),
            "t.toml: relay.mode: ");
  EXPECT_EQ(ErrorOf("kind = \"redis\"\n[relay]\nrate = \"100\"\n").substr(0, 20),
            "t.toml: relay.rate: ");
  EXPECT_EQ(ErrorOf("kind = \"redis\"\n[relay]\ndelay = 20\n"),
            "t.toml: 'relay.delay' must be a string");
  EXPECT_EQ(ErrorOf("kind = \"redis\"\n[relay]\nnodelay = \"no\"\n"),
            "t.toml: 'relay.nodelay' must be true or false");
  EXPECT_EQ(ErrorOf("kind = \"redis\"\n[relay]\nlatency = \"1ms\"\n"),
            "t.toml: unknown key 'relay.latency'; known: node, port, delay, delay_back, mode, "
            "jitter, seed, rate, nodelay, binary");
  EXPECT_EQ(ErrorOf("kind = \"redis\"\nrelay = 1\n"), "t.toml: 'relay' must be a table ([relay])");
}

TEST(TopologyTomlTest, UnreadableFileNamesTheFlag) {
  auto spec = LoadTopologyFile("/nonexistent/topo.toml");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(), "--file '/nonexistent/topo.toml': cannot read");
}

}  // namespace
}  // namespace memstand
