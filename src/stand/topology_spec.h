// What to stand up: one struct that `memstand up` flags and a TOML file both produce,
// and that Topology::Start consumes.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/status.h"

namespace memstand {

enum class TopologyKind {
  kRedis,
  kRedisReplica,
  kRedisCluster,
  kRedisSentinel,
  kMemcached,
  kTarantool,
  kTarantoolReplicaSet,
  kTarantoolSharded,
  kEtcd,
  kEtcdCluster
};

/// "redis", "redis-replica", "redis-cluster", "redis-sentinel", "memcached", "tarantool",
/// "tarantool-replicaset", "tarantool-sharded", "etcd", "etcd-cluster".
const char* TopologyKindName(TopologyKind kind);
/// The inverse of TopologyKindName; InvalidArgument naming the known kinds otherwise.
Result<TopologyKind> ParseTopologyKind(std::string_view name);
/// The known kinds, comma separated, for messages and help.
std::string KnownTopologyKinds();

/// A `memstand relay` (docs/relay.md) in front of one node (`[relay]` in a topology
/// file, docs/stand.md): started as a node of its own once the others are ready,
/// listening on its own port and forwarding to the node's client port.
struct RelaySpec {
  bool enabled = false;
  /// The node it fronts, by name ("redis", "primary", "master-1"). Empty: the first.
  std::string node;
  /// Its listen port. 0: a free loopback port, picked by memstand.
  int port = 0;
  /// Its flags after --link, as `memstand relay` takes them: {"--delay", "20ms", ...}.
  std::vector<std::string> args;
  /// The memstand program. Empty: this process's own (/proc/self/exe).
  std::string binary;
};

struct TopologySpec {
  TopologyKind kind = TopologyKind::kRedis;
  /// Names the run folder (<run root>/<name>) and the topology in `ps` and `down`.
  /// Empty: the kind's name, so a second `up` of the same kind needs --name.
  std::string name;
  /// redis-cluster: how many masters. 0: the default, 8 (the benchmark size).
  int masters = 0;
  /// redis-replica: replicas of the primary (default 1, the smallest that replicates);
  /// redis-cluster: replicas per master (default 0: a cluster for load, not failover);
  /// tarantool-replicaset: replicas of the master (default 3: the published set);
  /// tarantool-sharded: replicas of each storage's master (default 1: reads from a
  /// replica, with the fewest processes on one machine);
  /// redis-sentinel: replicas of the primary (default 2).
  /// -1: the kind's default.
  int replicas = -1;
  /// redis-sentinel: how many Sentinels watch the primary (default 3; the quorum is a
  /// majority of them). -1: the default.
  int sentinels = -1;
  /// tarantool-sharded: storage replica sets (default 2, the smallest that shards)
  /// and routers (default 2: a pool of routers). -1: the default.
  int storages = -1;
  int routers = -1;
  /// etcd-cluster: how many members (default 3, the smallest that survives losing one).
  /// -1: the default.
  int members = -1;
  /// The first client port. 0: free loopback ports, picked by memstand. A multi-node
  /// topology uses port, port+1, ... in node order.
  int port = 0;
  /// etcd's peer port (etcd-cluster: the first member's; the others take the next ones).
  /// 0: picked.
  int peer_port = 0;
  /// The server program, a name searched in PATH or a path. Empty: the binary of the
  /// kind's Debian package (redis-server, memcached, tarantool, etcd).
  std::string binary;
  /// Server options in the server's own names, applied after memstand's own (so they
  /// win), in order: redis directives, memcached long options, tarantool box.cfg keys,
  /// etcd flags. Options memstand manages (ports, dirs, logs) are refused. redis-sentinel:
  /// "sentinel.<directive>" (down-after-milliseconds, failover-timeout, parallel-syncs)
  /// goes to every Sentinel's configuration for the watched primary; the rest to the
  /// redis-servers.
  std::vector<std::pair<std::string, std::string>> settings;
  /// tarantool: a Lua file run with dofile() after box.cfg (tarantool-replicaset: on
  /// the master only; the replicas get what it creates by replication;
  /// tarantool-sharded: on every storage master). Empty: none.
  std::string init_lua;
  /// Bounds each wait: one server's readiness, replication, cluster agreement. 20 s: an
  /// empty server is up in milliseconds and a cluster agrees in ~2 s; the rest is
  /// headroom for a loaded 2-core CI machine.
  int ready_timeout_ms = 20000;
  RelaySpec relay;
};

/// Fills the defaults (name, masters, replicas) and checks the spec: counts, ports,
/// name, setting keys, the init file. Errors are InvalidArgument naming the flag.
Status NormalizeSpec(TopologySpec* spec);

/// The Sentinel directives a "sentinel.<directive>" setting may give (per watched primary).
inline constexpr std::string_view kSentinelDirectives[] = {"down-after-milliseconds", "failover-timeout",
                                                           "parallel-syncs"};

/// True for a redis-sentinel setting key, "sentinel.<directive>" in any case.
bool IsSentinelSetting(std::string_view key);

/// How many server processes the spec describes. REQUIRES: NormalizeSpec succeeded.
int NodeCount(const TopologySpec& spec);

/// Parses "KEY=VALUE" (a --set argument). The value may be empty or hold '='.
Result<std::pair<std::string, std::string>> ParseSetting(std::string_view text);

}  // namespace memstand
